#!/usr/bin/env bash
# ctest label "sanitize": runs a GPU test binary under one compute-sanitizer tool and fails on
# any finding. Exits 77 (ctest: skipped, never passed) without compute-sanitizer or a GPU.
#   run_sanitizer.sh TOOL GPU_TEST_BINARY [catch filter]
set -u
tool=$1 bin=$2 filter=${3:-"~[cli]"}
cs=$(command -v compute-sanitizer || true)
[ -z "$cs" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] && cs=/usr/local/cuda/bin/compute-sanitizer
if [ -z "$cs" ]; then
  echo "SKIPPED: compute-sanitizer not found"
  exit 77
fi
# The GPU test binary itself exits 77 when no GPU is usable.
"$bin" "[no-such-test]" >/dev/null 2>&1
if [ $? = 77 ]; then
  echo "SKIPPED: no usable CUDA GPU"
  exit 77
fi
extra=()
[ "$tool" = memcheck ] && extra=(--leak-check full)
# initcheck cannot see what the JPEG engines (nvJPEG's hardware backend) write, and reports
# nvJPEG's own colour conversion reading it: initcheck decodes with the CUDA backend instead.
[ "$tool" = initcheck ] && export WK_NVJPEG_BACKEND=cuda
# [cli] tests start child processes; the apps' kernels are the library's, tested directly here.
# WK_SANITIZER_RUN: tests whose workload is only a longer run of the same paths shrink it here
# (the bcrypt batch: racecheck instruments every S-box lookup); the plain ctest run checks it all.
WK_SANITIZER_RUN=1 "$cs" --tool "$tool" "${extra[@]}" --target-processes application-only --error-exitcode 99 \
  --print-limit 20 "$bin" "$filter"
rc=$?
echo "compute-sanitizer $tool: exit $rc"
exit $rc
