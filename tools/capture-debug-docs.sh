#!/usr/bin/env bash
# Captures, on a GPU machine, the real tool output that docs/debugging.md and docs/profiling.md
# quote: compute-sanitizer on the halo-bug sample, a cuda-gdb session in its kernel, and an
# Nsight Compute summary of a warpkit kernel selected by NVTX range.
#   bash tools/capture-debug-docs.sh BUILD_DIR OUTDIR
set -u
BUILD=$1 OUT=$2
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
