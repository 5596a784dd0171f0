#!/usr/bin/env bash
# Captures, on a GPU machine, the real tool output that docs/debugging.md and docs/profiling.md
# quote: compute-sanitizer on the halo-bug sample, a cuda-gdb session in its kernel, and an
# Nsight Compute summary of a warpkit kernel selected by NVTX range.
#   bash tools/capture-debug-docs.sh BUILD_DIR OUTDIR [DEBUG_BUILD_DIR]
# With DEBUG_BUILD_DIR (a `cmake --preset debug`-style build, device code with -G) it also captures
# a cuda-gdb session inside a library kernel during a wk-image run.
set -u
BUILD=$1 OUT=$2 DEBUG_BUILD=${3:-}
SRC=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
{
  echo "### $(date -u +%F) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
  compute-sanitizer --version | head -3
  for bug in none halo; do
    echo "\$ compute-sanitizer --tool memcheck wk-sample-halo-bug --bug $bug"
    compute-sanitizer --tool memcheck "$BUILD/samples/wk-sample-halo-bug" --bug $bug 2>&1 | head -40
  done
  for bug in none sync; do
    echo "\$ compute-sanitizer --tool racecheck wk-sample-halo-bug --bug $bug"
    compute-sanitizer --tool racecheck "$BUILD/samples/wk-sample-halo-bug" --bug $bug 2>&1 | head -40
  done
} >"$OUT/sanitizer-halo.txt" 2>&1

# cuda-gdb: a -G build of the sample, stop where the tile is read, switch focus, print shared memory.
nvcc -G -g -std=c++17 -arch=sm_90 "$SRC/samples/halo_bug.cu" -o /tmp/halo_dbg 2>&1 | tail -3
LINE=$(grep -n "float sum = 0.f;" "$SRC/samples/halo_bug.cu" | head -1 | cut -d: -f1)
cat >/tmp/gdbcmds <<GDB
set pagination off
break halo_bug.cu:$LINE
run
info cuda kernels
cuda block 3 thread 1
print g
print l
print tile[l]
print tile[260]
print tile
info cuda blocks
continue
GDB
cuda-gdb -batch -x /tmp/gdbcmds --args /tmp/halo_dbg --bug halo >"$OUT/cuda-gdb.txt" 2>&1
echo "cuda-gdb exit $?" >>"$OUT/cuda-gdb.txt"

# cuda-gdb in a library kernel: wk-image gray,hist on one image, stop in the histogram kernel's
# merge (after the barrier: the default gray rung keeps one sub-histogram per warp in shared
# memory), switch focus to block 2 thread 100, print bin 100 of each warp's copy, step over the sum.
if [ -n "$DEBUG_BUILD" ]; then
  rm -rf /tmp/gdb-in /tmp/gdb-out /tmp/gdb-cpu
  "$BUILD/samples/wk-make-images" -o /tmp/gdb-in --count 1 --size 640x480 --formats png >/dev/null
  HLINE=$(grep -n "const std::uint32_t sum = L::total(smem, b);" "$SRC/lib/src/image/histogram/histogram.cu" | cut -d: -f1)
  cat >/tmp/gdbcmds-app <<GDB
set pagination off
break histogram.cu:$HLINE
run
info cuda kernels
cuda block 2 thread 100
print b
print warp
set \$w = 0
while \$w < 8
  printf "warp %d: smem[%d] = %u\\n", \$w, \$w * 256 + b, smem[\$w * 256 + b]
  set \$w = \$w + 1
end
next
print sum
delete
continue
GDB
  {
    echo "\$ cat cmds"; cat /tmp/gdbcmds-app
    echo "\$ cuda-gdb -batch -x cmds --args build-debug/apps/wk-image gray,hist --device gpu --threads 1 -q -o /tmp/gdb-out /tmp/gdb-in"
    cuda-gdb -batch -x /tmp/gdbcmds-app --args "$DEBUG_BUILD/apps/wk-image" gray,hist --device gpu --threads 1 -q \
      -o /tmp/gdb-out /tmp/gdb-in 2>&1
    echo "cuda-gdb exit $?"
    echo "\$ sed -n '1p;102p' /tmp/gdb-out/*.hist.csv   # bin 100 of the whole image"
    sed -n '1p;102p' /tmp/gdb-out/*.hist.csv
    "$BUILD/apps/wk-image" gray,hist --device cpu -q -o /tmp/gdb-cpu /tmp/gdb-in && cmp /tmp/gdb-out/*.hist.csv /tmp/gdb-cpu/*.hist.csv && echo "GPU and CPU histograms identical"
  } >"$OUT/cuda-gdb-app.txt" 2>&1
fi

# ncu with NVTX filtering: the gray kernel of one wk-image run.
samples=/tmp/ncu-in
rm -rf $samples && "$BUILD/samples/wk-make-images" -o $samples --count 1 --size 3840x2160 --formats png >/dev/null
{
  for filter in "warpkit@file/gray/" "warpkit@gray/"; do
    echo "\$ ncu --nvtx --nvtx-include \"$filter\" --clock-control none --section SpeedOfLight wk-image gray --device gpu --threads 1 -q -o /tmp/ncu-out $samples"
    ncu --nvtx --nvtx-include "$filter" --clock-control none --section SpeedOfLight --section LaunchStats \
      "$BUILD/apps/wk-image" gray --device gpu --threads 1 -q -o /tmp/ncu-out $samples 2>&1
  done
} >"$OUT/ncu-gray.txt" 2>&1
echo "captures written to $OUT"
