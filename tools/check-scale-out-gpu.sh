#!/usr/bin/env bash
# Scale-out on a GPU machine: N ranks sharing the node's GPU(s) against one process,
# outputs compared byte for byte, wall clock from exec to exit.
#
#   tools/check-scale-out-gpu.sh BUILD_DIR WORK_DIR [RANKS]
#
# wk-image --device gpu over 200 1920x1080 JPEGs (gray,gauss:5, JPEG out: nvJPEG where built) and
# wk-hash crypt --device gpu over 2^20 md5crypt + 2^16 sha512crypt lines with fixed settings.
set -euo pipefail
BUILD=${1:?build dir}
WORK=${2:?work dir}
RANKS=${3:-2}
mkdir -p "$WORK"
cd "$WORK"
MPI=(mpirun --allow-run-as-root --oversubscribe -np "$RANKS")
fail=0
timed() {  # timed LABEL cmd...: prints the wall clock, exec to exit; the exit code is kept in $rc
  local label=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  rc=0
  "$@" >"$label.out" 2>"$label.err" || rc=$?
  t1=$(date +%s.%N)
  printf '%-28s exit %3d  %6.2f s\n' "$label" "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')"
}

[ -d photos ] || "$BUILD/samples/wk-make-images" -o photos --count 200 --size 1920x1080 --formats jpg >/dev/null
rm -rf img-one img-ranks
timed image-1-process "$BUILD/apps/wk-image" gray,gauss:5 -o img-one photos --device gpu --report one.json -q
timed "image-$RANKS-ranks" "${MPI[@]}" "$BUILD/apps/wk-image" gray,gauss:5 -o img-ranks photos --device gpu \
  --report ranks.json -q
if diff -r img-one img-ranks >/dev/null; then echo "image: outputs identical ($(ls img-one | wc -l) files)"
else echo "image: OUTPUTS DIFFER"; fail=1; fi
python3 - <<'EOF' || fail=1
import json, sys
def norm(p):
    j = json.load(open(p))
    for f in j["files"]:
        f.pop("ms"); f.pop("finished_s")
        f["output"] = f["output"].split("/", 1)[1]  # img-one/ vs img-ranks/
    for k in ("seconds", "images_per_second"):
        j["totals"].pop(k)
    g = j.pop("gpu", {})
    return j, g
a, ga = norm("one.json")
b, gb = norm("ranks.json")
print("image: reports identical apart from timings" if a == b else "image: REPORTS DIFFER")
print("image: files on the GPU: one process %s, ranks %s; devices %s" % (
    ga.get("files_gpu"), gb.get("files_gpu"), sorted({f["device"] for f in b["files"]})))
sys.exit(0 if a == b else 1)
EOF

awk 'BEGIN { for (i = 0; i < 1048576; i++) printf "$1$s%07d\tpassword-%d\n", i % 9999999, i;
             for (i = 0; i < 65536; i++) printf "$6$rounds=5000$salt%05d\tpw-%d\n", i, i }' >crypt.tsv
timed hash-1-process "$BUILD/apps/wk-hash" crypt -i crypt.tsv -o hash-one.txt --device gpu -q
timed "hash-$RANKS-ranks" "${MPI[@]}" "$BUILD/apps/wk-hash" crypt -i crypt.tsv -o hash-ranks.txt --device gpu -q
if cmp -s hash-one.txt hash-ranks.txt; then echo "hash: outputs identical ($(wc -l <hash-one.txt) lines)"
else echo "hash: OUTPUTS DIFFER"; fail=1; fi
exit $fail
