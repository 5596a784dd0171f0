#!/usr/bin/env bash
# The wk-image folder benchmark: generates the dataset (COUNT photos of SIZE, JPEG q90), then
# runs the job `gray,gauss:5,hist` with warpkit and with the OpenCV baseline (same threads) for
# JPEG q90 and PNG (OpenCV's default settings, as wk-image) outputs, and prints, per run:
#   wall     img/s by wall clock, exec to exit (what a user times), with the peak RSS and the
#            peak GPU memory in use while it ran (nvidia-smi, where there is one)
#   report   img/s by the job's own clock (the report's totals)
#   steady   img/s of the files after the first tenth (start-up left out)
#   after hand-over   (--device auto, when files went to both devices) img/s from the GPU's first
#            finished file to the last file: the CPU's share of the start left out
#   first    when the first output was finished, from the job's start
#   gpu      when the GPU took over (--device auto), files on the GPU / on the CPU, and the
#            decoding thread's time: busy (split into nvJPEG's header inspection, the host time inside
#            nvjpegDecodeBatched and the wait for its stream), starved (waiting for files), waiting for buffers
# and the bounds measured in the same run: the nvJPEG decode ceiling (one thread, best of
# batches 64 and 128), OpenCV's decode-only and encode-only rates on the same threads.
#   bash tools/bench-image-folder.sh BUILD_DIR [COUNT] [SIZE] [OPS]
# WK_BENCH_LONG=N also runs the defaults over N files (the dataset copied N/COUNT times) for the
# steady rate and memory of a long job. WK_BENCH_QUALITY sets the JPEG quality of the outputs
# (default 90).
# The thumbnail job (OPS thumbnail:WxH, e.g. `bash tools/bench-image-folder.sh build 3000 3840x2160
# thumbnail:1920x1080` with WK_BENCH_QUALITY=85): JPEG outputs only, the OpenCV baseline decodes at
# half size (IMREAD_REDUCED_COLOR_2) and fits with INTER_AREA, and with WK_VIPS=PATH/run.sh
# (../shared/device-peers' libvips) vipsthumbnail runs too, one process per core over slices of
# the file list (VIPS_CONCURRENCY=1, 20 files a process), timed exec to exit.
# Outputs (warpkit's and OpenCV's alike) go to WK_BENCH_OUT, by default a folder in /dev/shm when it
# has 16 GB free, else under WK_BENCH_DIR: on a disk, runs that write gigabytes slow down one
# after another as dirty pages pile up (H100 machine: a 3000-file job from 960 to 540 img/s over
# eight runs), which says more about the disk's writeback than about the job. The header line
# says where they went.
set -euo pipefail
BUILD=${1:?build dir}
COUNT=${2:-300}
SIZE=${3:-3840x2160}
OPS=${4:-gray,gauss:5,hist}
QUALITY=${WK_BENCH_QUALITY:-90}
THUMB=""
FORMATS="jpg png"
if [[ $OPS == thumbnail:* ]]; then
  THUMB=${OPS#thumbnail:}
  FORMATS=jpg
fi
WORK=${WK_BENCH_DIR:-/tmp/wk-folder-bench}
T=$(nproc)
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$WORK"
if [ -z "${WK_BENCH_OUT:-}" ]; then
  WK_BENCH_OUT=$WORK/out
  shm_free=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 {print $4}')
  [ "${shm_free:-0}" -ge $((16 * 1024 * 1024)) ] && WK_BENCH_OUT=/dev/shm/wk-bench-out
fi
OUTS=$WK_BENCH_OUT
mkdir -p "$OUTS"
trap 'rm -rf "$OUTS/o-wk" "$OUTS/o-cv" "$OUTS/o-dec" "$OUTS/o-vips"' EXIT  # gigabytes of outputs, in memory on /dev/shm
if [ ! -f "$WORK/in-$COUNT-$SIZE.done" ]; then
  rm -rf "$WORK/in" "$WORK"/in-*.done
  "$BUILD/samples/wk-make-images" -o "$WORK/in" --count "$COUNT" --size "$SIZE" --formats jpg --quality 90
  touch "$WORK/in-$COUNT-$SIZE.done"
fi
rm -rf "$WORK/one" && mkdir -p "$WORK/one" && cp "$(ls "$WORK"/in/*.jpg | head -1)" "$WORK/one/"
sync
rate() { grep -oE '[0-9.]+ img/s' | head -1 | cut -d' ' -f1; }
echo "dataset: $COUNT x $SIZE JPEG q90; job $OPS; $T threads; outputs in $OUTS ($(df -P "$OUTS" | awk 'NR == 2 {print $1}')); $(date -u +%FT%TZ); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

# timed OUT_JSON CMD...: runs CMD with stdout and stderr to $WORK/last.log, and writes the wall
# time (exec to exit), the peak RSS of the process and the peak GPU memory used during the run
# (above what was in use before it) to OUT_JSON.
timed() {
  local out=$1
  shift
  python3 - "$out" "$WORK/last.log" "$@" <<'PY'
import json, resource, shutil, subprocess, sys, threading, time
out, log, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
smi = shutil.which("nvidia-smi")
def gpu_used():
    try:
        return max(int(x) for x in subprocess.run([smi, "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                                                   capture_output=True, text=True, timeout=5).stdout.split())
    except Exception:
        return None
base = gpu_used() if smi else None
peak = [base]
done = threading.Event()
def sample():
    while not done.wait(0.05):
        u = gpu_used()
        if u is not None and (peak[0] is None or u > peak[0]): peak[0] = u
if smi: threading.Thread(target=sample, daemon=True).start()
with open(log, "wb") as f:
    t = time.monotonic()
    rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode
    wall = time.monotonic() - t
done.set()
json.dump({"wall_s": wall, "rc": rc, "rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
           "gpu_mb": (peak[0] - base) if base is not None and peak[0] is not None else None}, open(out, "w"))
PY
}

# summary REPORT TIMED_JSON: one line from the report's per-file records and the timing.
summary() {
  python3 - "$1" "$2" <<'PY'
import json, sys, collections
w = json.load(open(sys.argv[2]))
try:
    r = json.load(open(sys.argv[1]))
except OSError:
    print(0, f"no report: exit code {w['rc']}:", open(sys.argv[2].replace("t.json", "last.log"), errors="replace").read().strip()[-300:])
    sys.exit(0)
ok = [f for f in r["files"] if f["status"] == "ok"]
n = max(len(ok), 1)
stages = ("read", "decode", "process", "encode", "write")
med = {k: sorted(f["ms"][k] for f in ok)[len(ok) // 2] if ok else 0 for k in stages}
done = sorted(f["finished_s"] for f in ok)
k = len(done) // 10
steady = (len(done) - 1 - k) / (done[-1] - done[k]) if len(done) > 20 and done[-1] > done[k] else 0
# After the hand-over (--device auto, files on both devices): the whole job's rate from the GPU's
# first finished file to the last one, the start-up on the CPU left out.
gpu_done = sorted(f["finished_s"] for f in ok if f.get("device", "").startswith("gpu"))
cpu_files = sum(1 for f in ok if f.get("device") == "cpu")
after = [d for d in done if gpu_done and d >= gpu_done[0]]
handed = (len(after) - 1) / (after[-1] - after[0]) if cpu_files and len(after) > 20 and after[-1] > after[0] else 0
t = r["totals"]
dev = collections.Counter(f.get("device", "") for f in ok)
g = r.get("gpu")
gpu = ""
if g:
    gpu = (f" | gpu ready {g['ready_s']:.2f} s, files gpu {g['files_gpu']} cpu {g['files_cpu']}, decoder busy "
           f"{g['decode_busy_s']:.2f} s (inspect {g.get('decode_inspect_s', 0):.2f}, in nvjpegDecodeBatched {g.get('decode_call_s', 0):.2f}, "
           f"stream wait {g.get('decode_sync_s', 0):.2f}; workers' inspect {g.get('worker_inspect_s', 0):.2f}) starved {g['decode_starved_s']:.2f} s waiting-for-buffers {g['decode_waiting_room_s']:.2f} s "
           f"in {g['decode_batches']} batches" + (f" ({g['not_used']})" if g.get("not_used") else ""))
gm = f", GPU mem +{w['gpu_mb']} MiB" if w.get("gpu_mb") is not None else ""
# First field: wall img/s (parsed by the caller).
print(f"{len(ok) / w['wall_s']:.1f}", f"wall {w['wall_s']:.2f} s (rc {w['rc']}, RSS {w['rss_mb']:.0f} MiB{gm}); report {t['images_per_second']:.1f} img/s;"
      f" steady {steady:.1f} img/s;" + (f" after hand-over {handed:.1f} img/s;" if handed else "") + f" first file {done[0] if done else 0:.2f} s; median ms",
      "/".join(f"{med[k]:.1f}" for k in stages), "(read/decode/process/encode/write); devices", dict(dev),
      "decoders", dict(collections.Counter(f.get("decoder", "") for f in ok)), f"failed {t['failed']}{gpu}")
PY
}

# wk IN FMT ARGS...: one wk-image run; prints its summary line.
wk() {
  local in=$1 fmt=$2
  shift 2
  rm -rf "$OUTS/o-wk" "$WORK/report.json"
  timed "$WORK/t.json" "$BUILD/apps/wk-image" "$OPS" "$@" -q --format "$fmt" --quality "$QUALITY" -o "$OUTS/o-wk" \
    --report "$WORK/report.json" "$in"
  summary "$WORK/report.json" "$WORK/t.json"
}
# a / b to two places; "n/a" when either is missing (a run that failed) or b is 0.
ratio() { python3 -c "a, b = '$1', '$2'; print(f'{float(a) / float(b):.2f}' if a and b and float(b) else 'n/a')"; }

# The bounds.
line=$("$BUILD/samples/wk-opencv-baseline" --decode-only -o "$OUTS/o-dec" --threads "$T" "$WORK/in")
echo "$line"
base_dec=$(echo "$line" | rate)
ceiling=0
if command -v nvcc >/dev/null && nvcc -O2 -std=c++17 "$HERE/nvjpeg-decode-bound.cu" -lnvjpeg -lcuda -o "$WORK/nvjpeg-decode-bound" 2>/dev/null; then
  bound=$("$WORK/nvjpeg-decode-bound" "$WORK/in" 64,128 3 || true)
  echo "$bound"
  ceiling=$(echo "$bound" | sed -n 's/^nvJPEG decode ceiling: \([0-9.]*\).*/\1/p')
  ceiling=${ceiling:-0}
fi

vips=""
if [ -n "$THUMB" ] && [ -n "${WK_VIPS:-}" ]; then
  rm -rf "$OUTS/o-vips" && mkdir -p "$OUTS/o-vips"
  timed "$WORK/tv.json" bash -c "ls '$WORK'/in/*.jpg | VIPS_CONCURRENCY=1 xargs -P $T -n 20 sh '$WK_VIPS' vipsthumbnail -s $THUMB -o '$OUTS/o-vips/%s.jpg[Q=$QUALITY]'"
  vips=$(python3 -c "import json; t = json.load(open('$WORK/tv.json')); print(f\"{$COUNT / t['wall_s']:.1f}\")")
  echo "vipsthumbnail, $T processes: $vips img/s wall ($(ls "$OUTS/o-vips" | wc -l) outputs; $(sh "$WK_VIPS" vipsthumbnail --vips-version 2>/dev/null | head -1))"
fi

for fmt in $FORMATS; do
  rm -rf "$OUTS/o-cv"
  line=$("$BUILD/samples/wk-opencv-baseline" --format $fmt --quality "$QUALITY" ${THUMB:+--thumbnail "$THUMB"} -o "$OUTS/o-cv" --threads "$T" "$WORK/in")
  echo "$line"
  base=$(echo "$line" | rate)
  enc_bound=0
  if [ $fmt = png ]; then
    rm -rf "$OUTS/o-cv"
    line=$("$BUILD/samples/wk-opencv-baseline" --encode-only --format png -o "$OUTS/o-cv" --threads "$T" "$WORK/in")
    echo "$line"
    enc_bound=$(echo "$line" | rate)
  fi
  variants=("--device auto" "--device gpu")
  # thumbnail: also the GPU job with JPEGs decoded reduced on the CPU (shrink-on-load) and uploaded
  [ -n "$THUMB" ] && variants+=("--device gpu --jpeg-decoder opencv")
  [[ " ${WK_DEVICES:-gpu cpu} " != *" gpu "* ]] && variants=()
  variants+=("--device cpu")
  for v in "${variants[@]}"; do
    # shellcheck disable=SC2086
    s=$(wk "$WORK/in" $fmt $v)
    wall=${s%% *}
    steady=$(echo "$s" | sed -n 's/.* steady \([0-9.]*\) img\/s.*/\1/p')
    handed=$(echo "$s" | sed -n 's/.* after hand-over \([0-9.]*\) img\/s.*/\1/p')
    extra=""
    [ "$ceiling" != 0 ] && [ "$v" != "--device cpu" ] && extra="; steady = $(ratio "$steady" "$ceiling")x the nvJPEG ceiling $ceiling img/s"
    [ "$enc_bound" != 0 ] && extra="$extra; wall = $(ratio "$wall" "$enc_bound")x, steady = $(ratio "$steady" "$enc_bound")x${handed:+, after hand-over = $(ratio "$handed" "$enc_bound")x} the PNG encode bound $enc_bound img/s"
    [ -n "$vips" ] && extra="$extra; wall = $(ratio "$wall" "$vips")x vipsthumbnail-$T ($vips img/s)"
    echo "$fmt output, wk-image $v: wall $wall img/s = $(ratio "$wall" "$base")x OpenCV $T threads ($base img/s)$extra;" \
         "OpenCV decode-only $base_dec img/s; ${s#* }"
  done
done

# One file: the whole command with each device (what a user waits for on a single photo).
for v in "--device auto" "--device cpu" "--device gpu"; do
  [[ " ${WK_DEVICES:-gpu cpu} " != *" gpu "* ]] && [ "$v" != "--device cpu" ] && continue
  # shellcheck disable=SC2086
  s=$(wk "$WORK/one" jpg $v)
  echo "one file, wk-image $v: $(python3 -c "import json; print(f\"{json.load(open('$WORK/t.json'))['wall_s']:.3f}\")") s wall; ${s#* }"
done

if [ -n "${WK_BENCH_LONG:-}" ]; then
  copies=$(( (WK_BENCH_LONG + COUNT - 1) / COUNT ))
  rm -rf "$WORK/long"
  for c in $(seq 1 "$copies"); do mkdir -p "$WORK/long/$c" && cp "$WORK"/in/*.jpg "$WORK/long/$c/"; done
  sync
  s=$(wk "$WORK/long" jpg --device auto)
  echo "long job ($((copies * COUNT)) files), jpg output, wk-image --device auto: wall ${s%% *} img/s; ${s#* }"
  rm -rf "$WORK/long"
fi
