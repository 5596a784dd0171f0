#!/usr/bin/env bash
# Build, test, sanitize and benchmark warpkit on a GPU machine in one command, as the device
# tool runs it (docs/development.md). Logs go to $OUT (or ./device-out).
#
#   bash tools/device-run.sh [--kit DIR] [--no-tests] [--no-sanitize | --sanitize-tool TOOL]...
#                            [--sanitize-jobs N] [--bench "gray --ladder"]... [--cmd "shell"]...
#
# --no-tests: skip the plain ctest run (a call that only sanitizes or benchmarks).
# --sanitize-tool TOOL (memcheck, racecheck, initcheck, synccheck; repeatable): only those tools.
# --sanitize-jobs N: sanitize ctests run N at a time (default 8; one per tool and test group).
#
# --kit: the unpacked-or-packed device kit (../shared/device-kit copied into an ignored folder);
# without it the system's packages are used.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$SRC/device-out}
mkdir -p "$OUT"
KIT="" SANITIZE=1 TESTS=1 SAN_JOBS=8
BENCHES=() CMDS=() TOOLS=()
while (($#)); do
  case "$1" in
    --kit) KIT=$2; shift 2 ;;
    --no-sanitize) SANITIZE=0; shift ;;
    --no-tests) TESTS=0; shift ;;
    --sanitize-jobs) SAN_JOBS=$2; shift 2 ;;
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

if ((TESTS)); then
  ctest --test-dir $BUILD -j 4 -LE sanitize --output-on-failure --timeout 300 >"$OUT/ctest.log" 2>&1
  note "ctest: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log")"
  grep -E "\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Skipped\)|Not Run" "$OUT/ctest.log" | tee -a "$SUMMARY"
fi

# The ctest label "sanitize": every GPU test binary under memcheck (leak check), racecheck,
# initcheck and synccheck (tests/sanitize/run_sanitizer.sh).
if ((SANITIZE)); then
  note "$(compute-sanitizer --version 2>/dev/null | grep -i version | head -1)"
  select=()
  if ((${#TOOLS[@]})); then
    select=(-R "sanitize: ($(IFS='|'; echo "${TOOLS[*]}")) ")
  fi
  ctest --test-dir $BUILD -L sanitize "${select[@]}" -j "$SAN_JOBS" --output-on-failure --timeout 1200 \
    >"$OUT/sanitize.log" 2>&1
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
