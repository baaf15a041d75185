#!/usr/bin/env bash
# Checks that two builds of burn-migrate say the same: `--diff`, `--check --format json` and
# human `--check` output, exit codes included, byte for byte, on each DIR. Run it before
# committing a change meant to make the tool faster, not different.
#
#   BASE=/path/to/old/burn-migrate scripts/compare-outputs.sh NEW_BINARY DIR...
#
# Good DIRs: generated trees (`gen-workspace`, see bench-speed.sh), the corpus projects
# (/work/shared/corpus) as read, and copies of them ported by `--apply` (0.22 code).
set -uo pipefail
new=${1:?usage: BASE=OLD scripts/compare-outputs.sh NEW DIR...}
shift
base=${BASE:?set BASE to the binary to compare with}
[ $# -gt 0 ] || { echo "name at least one DIR" >&2; exit 2; }
differ=0
for dir in "$@"; do
    for mode in "--diff" "--check --format json" "--check --color never"; do
        # shellcheck disable=SC2086 # `mode` is several arguments
        before=$("$base" $mode "$dir" 2>&1; echo "exit $?")
        # shellcheck disable=SC2086
        after=$("$new" $mode "$dir" 2>&1; echo "exit $?")
        if [ "$before" != "$after" ]; then
            echo "differs: $dir ($mode)"
            diff <(echo "$before") <(echo "$after") | head -10
            differ=1
        fi
    done
done
[ "$differ" = 0 ] && echo "identical on $# trees"
exit "$differ"
