#!/usr/bin/env bash
# The wk-image folder benchmark: generates the dataset (COUNT photos of SIZE, JPEG q90), then
# runs the job `gray,gauss:5,hist` with warpkit and with the OpenCV baseline (same threads) for
# JPEG q90 and PNG (compression 1, RLE) outputs, and prints the ratios.
#   bash tools/bench-image-folder.sh BUILD_DIR [COUNT] [SIZE] [OPS]
set -euo pipefail
BUILD=${1:?build dir}
COUNT=${2:-300}
SIZE=${3:-3840x2160}
OPS=${4:-gray,gauss:5,hist}
WORK=${WK_BENCH_DIR:-/tmp/wk-folder-bench}
T=$(nproc)
mkdir -p "$WORK"
if [ ! -f "$WORK/in-$COUNT-$SIZE.done" ]; then
  rm -rf "$WORK/in"
  "$BUILD/samples/wk-make-images" -o "$WORK/in" --count "$COUNT" --size "$SIZE" --formats jpg --quality 90
  touch "$WORK/in-$COUNT-$SIZE.done"
fi
sync
rate() { grep -oE '[0-9.]+ img/s' | head -1 | cut -d' ' -f1; }
echo "dataset: $COUNT x $SIZE JPEG q90; job $OPS; $T threads; $(date -u +%F)"
# (Each baseline line is printed once and parsed; no tee to stderr: when stdout and stderr are
# the same file, two writers at different offsets corrupt it.)
line=$("$BUILD/samples/wk-opencv-baseline" --decode-only -o "$WORK/o-dec" --threads "$T" "$WORK/in")
echo "$line"
base_dec=$(echo "$line" | rate)
for fmt in jpg png; do
  rm -rf "$WORK/o-cv" "$WORK/o-wk"
  line=$("$BUILD/samples/wk-opencv-baseline" --format $fmt --quality 90 -o "$WORK/o-cv" --threads "$T" "$WORK/in")
  echo "$line"
  base=$(echo "$line" | rate)
  for dev in ${WK_DEVICES:-gpu cpu}; do
    rm -rf "$WORK/o-wk"
    wk=$("$BUILD/apps/wk-image" "$OPS" --device $dev -q --format $fmt --quality 90 -o "$WORK/o-wk" \
         --report "$WORK/report-$fmt-$dev.json" "$WORK/in" >/dev/null; \
         python3 -c "import json,sys; t=json.load(open('$WORK/report-$fmt-$dev.json'))['totals']; print(f\"{t['images_per_second']:.1f}\")")
    echo "$fmt output, wk-image --device $dev: $wk img/s; OpenCV $T threads: $base img/s; ratio $(python3 -c "print(f'{$wk/$base:.2f}')")x (OpenCV decode-only bound $base_dec img/s)"
  done
done
