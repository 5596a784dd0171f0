#!/usr/bin/env bash
# Multi-GPU scaling on one machine: wk-hash (hash sha512crypt and md5crypt), wk-image (a folder of
# 4K JPEGs) and wk-crypt (a file in /dev/shm) on 1, 2 and 4 GPUs (as many as the machine has), in
# one process (--gpus 0,..) and as mpirun ranks (one per GPU), wall clock from exec to exit.
# --device gpu throughout: with auto, the first files go to the CPU (OpenCV's JPEG bytes, not
# nvJPEG's) for as long as the GPUs start, so outputs would differ from run to run.
#
#   bash tools/bench-scale-gpus.sh BUILD_DIR WORK_DIR
#
# Per run: wall seconds, speed-up and efficiency against one GPU in one process (speed-up / GPUs),
# and for one-process runs the start-up (backend chosen + every GPU started; wk-image: GPU ready)
# and its share of the wall clock, and the steady rate (wk-hash: lines after the GPUs were ready;
# wk-image: files after the first tenth). Ranks: wk-hash gives its outputs to rank 0, which writes
# them (docs/scale-out.md). Every output is compared with the one-GPU output (hash: fresh salts,
# so its line count; crypt: the decrypted bytes).
# SHA_LINES (default 2^22), MD5_LINES (2^26), PHOTOS (3000), PHOTO_SIZE (3840x2160), CRYPT_MIB
# (4096) size the jobs; JOBS ("sha512crypt md5crypt image crypt") picks them.
set -euo pipefail
BUILD=$(cd "${1:?build dir}" && pwd)
WORK=${2:?work dir}
SHA_LINES=${SHA_LINES:-4194304}
MD5_LINES=${MD5_LINES:-67108864}
PHOTOS=${PHOTOS:-3000}
PHOTO_SIZE=${PHOTO_SIZE:-3840x2160}
CRYPT_MIB=${CRYPT_MIB:-4096}
JOBS=${JOBS:-"sha512crypt md5crypt image crypt"}
mkdir -p "$WORK"
cd "$WORK"
HAVE=$(nvidia-smi -L | wc -l)
COUNTS=()
for g in 1 2 4; do ((g <= HAVE)) && COUNTS+=("$g"); done
ids() { seq -s, 0 $(($1 - 1)); }
MPI=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
SHM=/dev/shm/wk-scale-gpus
mkdir -p "$SHM"
trap 'rm -rf "$SHM"' EXIT

echo "GPU scaling: $(date -u +%Y-%m-%dT%H:%MZ), ${HAVE} x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) CPUs"
printf '%-12s %-16s %8s %8s %6s %10s %14s %s\n' job run wall_s speedup eff startup steady note

now() { date +%s.%N; }
# timed VAR cmd...: wall clock of the command, exec to exit; its stderr kept in last.err.
timed() {
  local var=$1 t0 t1
  shift
  t0=$(now)
  "$@" >last.out 2>last.err || { echo "FAILED ($?): $*" >&2; tail -5 last.err >&2; exit 1; }
  t1=$(now)
  printf -v "$var" '%s' "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')"
}
declare -A BASE
row() {  # row JOB RUN GPUS WALL STARTUP_S STEADY NOTE
  local job=$1 run=$2 g=$3 wall=$4 st=$5 steady=$6 note=$7
  [ "$run" = "1 GPU" ] && BASE[$job]=$wall
  awk -v j="$job" -v r="$run" -v g="$g" -v w="$wall" -v b="${BASE[$job]}" -v s="$st" -v y="$steady" -v n="$note" 'BEGIN{
    sp = b / w; share = s == "" ? "" : sprintf("%.2f s %2.0f%%", s, 100 * s / w)
    printf "%-12s %-16s %8.2f %7.2fx %5.0f%% %10s %14s %s\n", j, r, w, sp, 100 * sp / g, share, y, n }'
}

hash_job() {  # hash_job METHOD LINES
  local m=$1 n=$2 pw="$SHM/pw-$2.txt" w st lines ms ref
  [ -f "$pw" ] || seq -f 'pw-%.0f' 1 "$n" >"$pw"
  for g in "${COUNTS[@]}"; do
    timed w "$BUILD/apps/wk-hash" hash --method "$m" --device gpu --gpus "$(ids "$g")" -v -i "$pw" -o "$SHM/out.txt"
    # "chosen in A ms, GPUs started in B ms more"; "N lines through the engine in T ms"
    st=$(sed -n 's/.*chosen in \([0-9.]*\) ms, GPUs started in \([0-9.]*\) ms more.*/\1 \2/p' last.err | awk '{printf "%.3f", ($1 + $2) / 1000}')
    read -r lines ms < <(sed -n 's/.*: \([0-9]*\) lines through the engine in \([0-9.]*\) ms.*/\1 \2/p' last.err)
    [ "$(wc -l <"$SHM/out.txt")" = "$n" ] || { echo "wk-hash $m on $g GPUs: wrong line count" >&2; exit 1; }
    row "$m" "$g GPU$( ((g > 1)) && echo s)" "$g" "$w" "$st" \
      "$(awk -v l="$lines" -v t="$ms" -v s="$st" 'BEGIN{printf "%.0f/s", l / (t / 1000 - s)}')" \
      "$(grep -o 'GPU jobs:.*' last.err || true)"
    rm -f "$SHM/out.txt"
  done
  for g in "${COUNTS[@]}"; do
    ((g > 1)) || continue
    timed w env CUDA_VISIBLE_DEVICES="$(ids "$g")" "${MPI[@]}" -np "$g" "$BUILD/apps/wk-hash" hash --method "$m" \
      --device gpu -q -i "$pw" -o "$SHM/out.txt"
    [ "$(wc -l <"$SHM/out.txt")" = "$n" ] || { echo "wk-hash $m on $g ranks: wrong line count" >&2; exit 1; }
    row "$m" "$g ranks" "$g" "$w" "" "" "mpirun -np $g"
    rm -f "$SHM/out.txt"
  done
}

image_summary() {  # image_summary REPORT: "READY_S STEADY"
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
done = sorted(f["finished_s"] for f in r["files"] if f["status"] == "ok")
k = len(done) // 10
steady = (len(done) - 1 - k) / (done[-1] - done[k]) if len(done) > 20 and done[-1] > done[k] else 0
print(f'{r.get("gpu", {}).get("ready_s", -1):.3f} {steady:.1f}/s')
PY
}

image_job() {
  local photos="$WORK/photos-$PHOTOS-$PHOTO_SIZE" w st steady
  [ -d "$photos" ] || "$BUILD/samples/wk-make-images" -o "$photos" --count "$PHOTOS" --size "$PHOTO_SIZE" --formats jpg --quality 90 >/dev/null
  for g in "${COUNTS[@]}"; do
    rm -rf "$SHM/img"
    timed w "$BUILD/apps/wk-image" gray,gauss:5,hist -o "$SHM/img" --device gpu --gpus "$(ids "$g")" --report "$SHM/r.json" -q "$photos"
    read -r st steady < <(image_summary "$SHM/r.json")
    if ((g == 1)); then rm -rf "$SHM/img1"; mv "$SHM/img" "$SHM/img1"
    elif ! diff -rq "$SHM/img1" "$SHM/img" >/dev/null; then echo "wk-image on $g GPUs: outputs differ from one GPU's" >&2; exit 1; fi
    row image "$g GPU$( ((g > 1)) && echo s)" "$g" "$w" "$st" "$steady" "GPU ready at the start-up column"
  done
  for g in "${COUNTS[@]}"; do
    ((g > 1)) || continue
    rm -rf "$SHM/img"
    timed w env CUDA_VISIBLE_DEVICES="$(ids "$g")" "${MPI[@]}" -np "$g" "$BUILD/apps/wk-image" gray,gauss:5,hist \
      -o "$SHM/img" --device gpu --report "$SHM/r.json" -q "$photos"
    diff -rq "$SHM/img1" "$SHM/img" >/dev/null || { echo "wk-image on $g ranks: outputs differ" >&2; exit 1; }
    row image "$g ranks" "$g" "$w" "" "$(image_summary "$SHM/r.json" | cut -d' ' -f2)" "mpirun -np $g"
  done
  rm -rf "$SHM/img" "$SHM/img1"
}

crypt_job() {
  local w key="$SHM/key"
  "$BUILD/apps/wk-crypt" keygen "$key" >/dev/null 2>&1 || true
  head -c $((CRYPT_MIB << 20)) /dev/urandom >"$SHM/plain"
  for g in "${COUNTS[@]}"; do
    rm -f "$SHM/sealed"; timed w "$BUILD/apps/wk-crypt" encrypt -q --device gpu --gpus "$(ids "$g")" --key "$key" "$SHM/plain" "$SHM/sealed"
    row crypt-seal "$g GPU$( ((g > 1)) && echo s)" "$g" "$w" "" \
      "$(awk -v m="$CRYPT_MIB" -v t="$w" 'BEGIN{printf "%.1f GB/s", m * 1048576 / t / 1e9}')" "file to file, /dev/shm"
    timed w "$BUILD/apps/wk-crypt" decrypt -q --force --device gpu --gpus "$(ids "$g")" --key "$key" "$SHM/sealed" "$SHM/back"
    cmp -s "$SHM/plain" "$SHM/back" || { echo "wk-crypt on $g GPUs: round trip differs" >&2; exit 1; }
    row crypt-open "$g GPU$( ((g > 1)) && echo s)" "$g" "$w" "" \
      "$(awk -v m="$CRYPT_MIB" -v t="$w" 'BEGIN{printf "%.1f GB/s", m * 1048576 / t / 1e9}')" "file to file, /dev/shm"
    rm -f "$SHM/sealed" "$SHM/back"
  done
  rm -f "$SHM/plain"
}

for job in $JOBS; do
  case $job in
    sha512crypt) hash_job sha512crypt "$SHA_LINES" ;;
    md5crypt) hash_job md5crypt "$MD5_LINES" ;;
    image) image_job ;;
    crypt) crypt_job ;;
    *) echo "unknown job $job" >&2; exit 2 ;;
  esac
done
