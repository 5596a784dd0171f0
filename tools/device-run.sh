#!/usr/bin/env bash
# Build, test, sanitize and benchmark warpkit on a GPU machine in one command, as the device
# tool runs it (docs/development.md). Logs go to $OUT (or ./device-out).
#
#   bash tools/device-run.sh [--kit DIR] [--no-sanitize | --sanitize-tool TOOL]... [--bench "gray --ladder"]...
#                            [--cmd "shell"]...
#
# --sanitize-tool TOOL (memcheck, racecheck, initcheck, synccheck; repeatable): only those tools,
# one after the other (all four together outlast one 10-minute device call).
#
# --kit: the unpacked-or-packed device kit (../shared/device-kit copied into an ignored folder);
# without it the system's packages are used.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$SRC/device-out}
mkdir -p "$OUT"
KIT="" SANITIZE=1
BENCHES=() CMDS=() TOOLS=()
while (($#)); do
  case "$1" in
    --kit) KIT=$2; shift 2 ;;
    --no-sanitize) SANITIZE=0; shift ;;
    --sanitize-tool) TOOLS+=("$2"); shift 2 ;;
    --bench) BENCHES+=("$2"); shift 2 ;;
    --cmd) CMDS+=("$2"); shift 2 ;;
    *) echo "device-run: unknown argument $1" >&2; exit 2 ;;
  esac
done
BUILD=/tmp/wk-build
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY"; }

note "device-run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
CMAKE_ARGS=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=${WK_CUDA_ARCH:-90})
if [ -n "$KIT" ]; then
  sh "$KIT/setup.sh" /tmp/wk-deps >"$OUT/setup.log" 2>&1 || { note "kit setup FAILED"; tail "$OUT/setup.log"; exit 1; }
  CMAKE_ARGS+=(-DOpenCV_DIR=/tmp/wk-deps/opencv/lib/cmake/opencv4 "-DCMAKE_PREFIX_PATH=/tmp/wk-deps/catch2;/tmp/wk-deps/extra")
fi
t0=$(date +%s)
if ! cmake -S "$SRC" -B $BUILD "${CMAKE_ARGS[@]}" >"$OUT/configure.log" 2>&1; then
  note "configure FAILED"; tail -30 "$OUT/configure.log"; exit 1
fi
grep -E "warpkit:" "$OUT/configure.log" | tee -a "$SUMMARY"
if ! cmake --build $BUILD -j "$(nproc)" >"$OUT/build.log" 2>&1; then
  note "build FAILED"; grep -E -A5 "error|FAILED" "$OUT/build.log" | head -60; exit 1
fi
note "build ok in $(( $(date +%s) - t0 )) s"

ctest --test-dir $BUILD -j 4 -LE sanitize --output-on-failure --timeout 300 >"$OUT/ctest.log" 2>&1
note "ctest: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log")"
grep -E "\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Skipped\)|Not Run" "$OUT/ctest.log" | tee -a "$SUMMARY"

# The ctest label "sanitize": every GPU test binary under memcheck (leak check), racecheck,
# initcheck and synccheck (tests/sanitize/run_sanitizer.sh).
if ((SANITIZE)); then
  note "$(compute-sanitizer --version 2>/dev/null | grep -i version | head -1)"
  if ((${#TOOLS[@]})); then
    : >"$OUT/sanitize.log"
    for tool in "${TOOLS[@]}"; do
      ctest --test-dir $BUILD -L sanitize -R "$tool" --output-on-failure --timeout 900 >>"$OUT/sanitize.log" 2>&1
    done
  else
    ctest --test-dir $BUILD -L sanitize --output-on-failure --timeout 900 >"$OUT/sanitize.log" 2>&1
  fi
  note "ctest -L sanitize: $(grep -E 'tests passed|tests failed' "$OUT/sanitize.log" | tr '\n' ' ')"
  grep -E "^ *[0-9]+/[0-9]+ Test|ERROR SUMMARY" "$OUT/sanitize.log" | tee -a "$SUMMARY"
fi

for b in "${BENCHES[@]}"; do
  note ""
  note "\$ wk-bench $b"
  # shellcheck disable=SC2086
  $BUILD/apps/wk-bench $b 2>&1 | tee -a "$SUMMARY"
done
for c in "${CMDS[@]}"; do
  note ""
  note "\$ $c"
  (cd $BUILD && PATH=$BUILD/apps:$BUILD/samples:$PATH bash -c "$c") 2>&1 | tail -40 | tee -a "$SUMMARY"
done
note "device-run: done in $(( $(date +%s) - t0 )) s"
