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
# The nvJPEG decode-only bound of the same files, where the toolkit has nvJPEG (the GPU machine).
HERE=$(cd "$(dirname "$0")" && pwd)
if command -v nvcc >/dev/null && nvcc -O2 -std=c++17 "$HERE/nvjpeg-decode-bound.cu" -lnvjpeg -o "$WORK/nvjpeg-decode-bound" 2>/dev/null; then
  "$WORK/nvjpeg-decode-bound" "$WORK/in" 64 3 || true
fi
# Per run: img/s from the report's totals, then the mean ms per file of each stage and which
# decoders and encoders the files got (the report's per-file records).
summary() {
  python3 - "$1" <<'PY'
import json, sys, collections
r = json.load(open(sys.argv[1]))
ok = [f for f in r["files"] if f["status"] == "ok"]
n = max(len(ok), 1)
stages = ("read", "decode", "process", "encode", "write")
ms = {k: sum(f["ms"][k] for f in ok) / n for k in stages}
med = {k: sorted(f["ms"][k] for f in ok)[len(ok) // 2] if ok else 0 for k in stages}
dec = collections.Counter(f.get("decoder", "") for f in ok)
enc = collections.Counter(f.get("encoder", "") for f in ok)
t = r["totals"]
# Steady state: the files after the first tenth, over the time they took (start-up excluded).
done = sorted(f["finished_s"] for f in ok)
k = len(done) // 10
steady = (len(done) - 1 - k) / (done[-1] - done[k]) if len(done) > 20 and done[-1] > done[k] else 0
print(f"{t['images_per_second']:.1f}", f"(steady {steady:.1f} img/s, first file done at {done[0]:.2f} s)",
      "mean", " ".join(f"{k} {v:.1f}" for k, v in ms.items()), "| median", " ".join(f"{k} {v:.2f}" for k, v in med.items()),
      "decoders", dict(dec), "encoders", dict(enc), f"failed {t['failed']}")
PY
}
# wk-image variants per output format: the defaults (nvJPEG decode and, for JPEG, encode where
# built), CPU decode, and both codecs on the CPU; then the CPU backend.
for fmt in jpg png; do
  rm -rf "$WORK/o-cv" "$WORK/o-wk"
  line=$("$BUILD/samples/wk-opencv-baseline" --format $fmt --quality 90 -o "$WORK/o-cv" --threads "$T" "$WORK/in")
  echo "$line"
  base=$(echo "$line" | rate)
  variants=("--device gpu" "--device gpu --jpeg-decoder opencv")
  [ $fmt = jpg ] && variants+=("--device gpu --jpeg-decoder opencv --jpeg-encoder opencv" "--device gpu --jpeg-batch 128" "--device gpu --threads 8")
  [[ " ${WK_DEVICES:-gpu cpu} " == *" cpu "* ]] && variants+=("--device cpu")
  [[ " ${WK_DEVICES:-gpu cpu} " != *" gpu "* ]] && variants=("--device cpu")
  for v in "${variants[@]}"; do
    rm -rf "$WORK/o-wk"
    # shellcheck disable=SC2086
    "$BUILD/apps/wk-image" "$OPS" $v -q --format $fmt --quality 90 -o "$WORK/o-wk" --report "$WORK/report.json" "$WORK/in" \
      >/dev/null || true
    s=$(summary "$WORK/report.json")
    wk=${s%% *}
    echo "$fmt output, wk-image $v: $wk img/s; OpenCV $T threads: $base img/s; ratio $(python3 -c "print(f'{$wk/$base:.2f}')")x" \
         "(OpenCV decode-only bound $base_dec img/s); ms per file: ${s#* }"
  done
done
