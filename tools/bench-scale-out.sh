#!/usr/bin/env bash
# Scale-out benchmark: wk-hash (bcrypt cost 10, CPU path) and the wk-image folder job
# (CPU path) over 1, 2, 4, 8 mpirun ranks on one machine, wall clock from exec to exit.
#
#   tools/bench-scale-out.sh BUILD_DIR WORK_DIR [CORES]
#
# Two views, each rank pinned to its own CPUs (mpirun --use-hwthread-cpus --map-by slot:PE=K):
#   machine  N ranks x CORES/N CPUs: the whole machine every time; efficiency = rate(N) / rate(1),
#            i.e. what dealing chunks and collecting results costs against one process;
#   rank     N ranks x 2 CPUs (weak scaling: N times the work); efficiency = rate(N) / (N rate(1)),
#            which also shows the machine's shared resources (memory bandwidth, SMT siblings).
# Prints one table; HASHES / PHOTOS scale the work (defaults: ~12 s / ~2 s per run on 16 cores);
# JOBS="folder" runs one job only.
set -euo pipefail
BUILD=${1:?build dir}
WORK=${2:?work dir}
CORES=${3:-$(nproc)}
HASHES=${HASHES:-2400}   # machine view, all ranks together; the rank view takes HASHES/8 per rank
PHOTOS=${PHOTOS:-480}    # machine view; the rank view takes PHOTOS/8 per rank
mkdir -p "$WORK"
cd "$WORK"
MPI=(mpirun --allow-run-as-root --oversubscribe --use-hwthread-cpus)

now() { date +%s.%N; }
# run_timed SECONDS_VAR cmd...: wall clock of the command, exec to exit (fails the script on error).
run_timed() {
  local var=$1 t0 t1
  shift
  t0=$(now)
  "$@" >/dev/null 2>"$WORK/last.err" || { echo "FAILED: $*" >&2; cat "$WORK/last.err" >&2; exit 1; }
  t1=$(now)
  printf -v "$var" '%s' "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')"
}

echo "scale-out bench: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs ($(lscpu | awk -F: '/Model name/{gsub(/^ +/,"",$2); print $2}')), $(lscpu | awk -F: '/Thread\(s\) per core/{gsub(/ /,"",$2); print $2}') threads per core"

# ---- inputs --------------------------------------------------------------------------------------
seq 1 "$HASHES" | sed 's/^/password-/' >pw-machine.txt
PHOTO_DIR=photos
if [ ! -d $PHOTO_DIR ]; then
  "$BUILD/samples/wk-make-images" -o $PHOTO_DIR --count "$PHOTOS" --size 1920x1080 --formats jpg >/dev/null
fi

table() {  # job view ranks seconds units rate eff
  printf '| %-9s | %-7s | %5s | %8.2f | %8s | %10.1f | %5.1f %% |\n' "$@"
}
echo
echo "| job       | view    | ranks | wall s   | work     | rate /s    | eff.    |"
echo "|-----------|---------|-------|----------|----------|------------|---------|"

for job in ${JOBS:-bcrypt10 folder}; do
  base_machine="" base_rank=""
  for n in 1 2 4 8; do
    for view in machine rank; do
      if [ $view = machine ]; then pe=$((CORES / n)); else pe=2; fi
      ((pe >= 1)) || continue
      if [ $job = bcrypt10 ]; then
        if [ $view = machine ]; then work=$HASHES; in=pw-machine.txt; else work=$((HASHES / 8 * n)); in=pw-rank-$n.txt
          head -n "$work" pw-machine.txt >"$in"; fi
        run_timed secs "${MPI[@]}" -np $n --map-by slot:PE=$pe "$BUILD/apps/wk-hash" hash --method bcrypt --cost 10 \
          --device cpu -q -i "$in" -o "out-hash-$view-$n.txt"
      else
        if [ $view = machine ]; then work=$PHOTOS; src=$PHOTO_DIR; else work=$((PHOTOS / 8 * n)); src=photos-rank-$n
          rm -rf "$src"; mkdir -p "$src"; ls $PHOTO_DIR | sed -n "1,${work}p" | while read -r f; do ln -s "$PWD/$PHOTO_DIR/$f" "$src/$f"; done; fi
        rm -rf out-img
        run_timed secs "${MPI[@]}" -np $n --map-by slot:PE=$pe "$BUILD/apps/wk-image" gray,gauss:5 -o out-img "$src" \
          --device cpu -q
      fi
      rate=$(awk -v w="$work" -v s="$secs" 'BEGIN{print w/s}')
      if [ $n = 1 ]; then
        [ $view = machine ] && base_machine=$rate || base_rank=$rate
      fi
      if [ $view = machine ]; then eff=$(awk -v r="$rate" -v b="$base_machine" 'BEGIN{print 100*r/b}')
      else eff=$(awk -v r="$rate" -v b="$base_rank" -v n="$n" 'BEGIN{print 100*r/(n*b)}'); fi
      table $job $view $n "$secs" "$work" "$rate" "$eff"
    done
  done
done
