#!/usr/bin/env bash
# Times burn-migrate (release build) against ast-grep on generated Burn 0.21 workspaces of
# 1/4, 1/2 and the full size (`xtask` gen-workspace, seeded), plus one 10 MB file, and prints a
# Markdown table: median of 3 runs, wall and CPU seconds, peak memory (`/usr/bin/time`).
#
#   scripts/bench-speed.sh [WORK_DIR]      (default: /tmp/burn-migrate-bench)
#
# ast-grep: `AST_GREP=/path/to/ast-grep` or `ast-grep` on PATH (`npm i -g @ast-grep/cli`).
# Its patterns (ten 0.21 idioms) are in scripts/ast-grep/. `RUNS=5` changes the run count,
# `LINES=320000` the full size, `SIZES="quarter half"` which trees to time (`SIZES=none`:
# none). `CORPUS_DIR=/work/corpus-src` adds the real-code row: one `--check` process over
# every project folder there that `--check` can read alone (exit 0 or 1; a tree whose Cargo
# project is in a subfolder is left out) against one ast-grep scan
# of the same folders. Nothing outside WORK_DIR is written.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/burn-migrate-bench}
runs=${RUNS:-3}
full=${LINES:-320000}
ast_grep=${AST_GREP:-ast-grep}
command -v "$ast_grep" >/dev/null || { echo "ast-grep not found: set AST_GREP or npm i -g @ast-grep/cli" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time (GNU time) is needed for peak memory" >&2; exit 2; }

cargo build --release --quiet --manifest-path "$repo/Cargo.toml" -p burn-migrate -p xtask
tool="$repo/target/release/burn-migrate"
gen="$repo/target/release/gen-workspace"

sizes=${SIZES:-quarter half full huge}
[ "$sizes" = none ] && sizes=""
rm -rf "$work"
mkdir -p "$work"
for size in $sizes; do
    case $size in
        quarter) "$gen" "$work/quarter" --lines $((full / 4)) ;;
        half) "$gen" "$work/half" --lines $((full / 2)) ;;
        full) "$gen" "$work/full" --lines "$full" ;;
        huge) "$gen" "$work/huge" --huge-mb 10 ;;
    esac
done

# Runs "$@" `runs` times (with `prepare` before each when set); prints the median
# "wall cpu peak_mb" line. Exit status 1 is burn-migrate's "findings" answer, not a failure.
measure() {
    local samples=()
    for _ in $(seq "$runs"); do
        [ -n "${prepare:-}" ] && eval "$prepare"
        local status=0
        /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" || status=$?
        if [ "$status" -gt 1 ]; then
            echo "failed ($status): $*" >&2
            cat "$work/stderr.txt" >&2
            exit 1
        fi
        # The last line: GNU time puts "Command exited with non-zero status 1" before it.
        samples+=("$(tail -n 1 "$work/time.txt" | awk '{printf "%.2f %.2f %.0f\n", $1, $2 + $3, $4 / 1024}')")
    done
    printf '%s\n' "${samples[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p"
}

lines_of() { find "$1" -name '*.rs' -exec cat {} + | wc -l; }
mb_of() { find "$1" -name '*.rs' -exec cat {} + | wc -c | awk '{printf "%.1f", $1 / 1e6}'; }

echo "load before: $(uptime)"
echo
echo "| tree | lines | MB | command | wall s | CPU s | peak MB |"
echo "|---|---:|---:|---|---:|---:|---:|"
for size in $sizes; do
    dir="$work/$size"
    lines=$(lines_of "$dir")
    mb=$(mb_of "$dir")
    row() { echo "| $size | $lines | $mb | $1 | $(echo "$2" | awk '{print $1 " | " $2 " | " $3}') |"; }
    prepare=""
    row "burn-migrate --check" "$(measure "$tool" --check "$dir")"
    row "ast-grep scan (10 rules)" "$(measure "$ast_grep" scan -c "$repo/scripts/ast-grep/sgconfig.yml" "$dir")"
    if [ "$size" = huge ]; then
        row "burn-migrate --diff" "$(measure "$tool" --diff "$dir")"
    fi
    prepare="rm -rf '$work/copy'; cp -r '$dir' '$work/copy'"
    row "burn-migrate --apply (on a copy)" "$(measure "$tool" --apply --allow-dirty --allow-no-vcs "$work/copy")"
    prepare=""
done
if [ -n "${CORPUS_DIR:-}" ]; then
    # Real code: the projects `--check` reads on its own (a git dependency it cannot fetch
    # here, say, stops one with exit 2), all in one process, as one ast-grep scan reads them.
    projects=()
    for dir in "$CORPUS_DIR"/*/; do
        status=0
        "$tool" --check "$dir" >/dev/null 2>&1 || status=$?
        [ "$status" -le 1 ] && projects+=("$dir")
    done
    lines=$(find "${projects[@]}" -name '*.rs' -exec cat {} + | wc -l)
    mb=$(find "${projects[@]}" -name '*.rs' -exec cat {} + | wc -c | awk '{printf "%.1f", $1 / 1e6}')
    row() { echo "| real code (${#projects[@]} projects) | $lines | $mb | $1 | $(echo "$2" | awk '{print $1 " | " $2 " | " $3}') |"; }
    row "burn-migrate --check (one process)" "$(measure "$tool" --check "${projects[@]}")"
    row "ast-grep scan (10 rules)" "$(measure "$ast_grep" scan -c "$repo/scripts/ast-grep/sgconfig.yml" "${projects[@]}")"
fi
echo
echo "load after: $(uptime)"
echo "machine: $(nproc) cores; $("$tool" --version 2>/dev/null || true); $("$ast_grep" --version)"
