#!/usr/bin/env bash
# Runs one fuzz target on its seed corpus (and the corpus earlier runs grew) for SECONDS:
#   tests/fuzz/run_fuzz.sh NAME BINARY [SECONDS] [more libFuzzer options]
# New inputs go to $WK_FUZZ_WORK/NAME/corpus (default: work/ next to the binary), crashes to
# .../artifacts; the seed corpus in the tree is only read. Exit status non-zero on any finding.
set -euo pipefail
name=$1 bin=$2 seconds=${3:-30}
shift $(( $# < 3 ? $# : 3 ))
here=$(cd "$(dirname "$0")" && pwd)
work=${WK_FUZZ_WORK:-$(dirname "$bin")/work}/$name
mkdir -p "$work/corpus" "$work/artifacts"
args=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1
      -artifact_prefix="$work/artifacts/")
[[ -f $here/dict/$name.dict ]] && args+=(-dict="$here/dict/$name.dict")
exec "$bin" "${args[@]}" "$@" "$work/corpus" "$here/corpus/$name"
