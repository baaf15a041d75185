#!/usr/bin/env bash
# Runs `burn-migrate verify` on the corpus projects of scripts/corpus-verify.tsv: the original
# built and tested against Burn 0.21, the port (made by verify itself, as `--apply` would)
# against Burn 0.22, outputs compared.
#
#   scripts/corpus-verify.sh CORPUS_DIR [NAME...]
#
# Each project is copied to $CORPUS_WORK/verify-NAME and prepared as scripts/corpus.sh does
# (CORPUS_DIR is never touched); verify's verdict goes to $CORPUS_WORK/NAME.verify.json, its
# progress to NAME.verify.log. One line per project: tests passed under 0.21 and under 0.22,
# tests passing before and failing after, binaries whose outputs were compared, the verdict.
# BURN_MIGRATE names the binary (default: a release build of this checkout). Builds go to
# verify's shared cache (BURN_MIGRATE_CACHE), one project at a time under $BURN_BUILD_LOCK,
# with the toolchain scripts/corpus.sh checks with (CORPUS_TOOLCHAIN, default stable: a
# project's rust-toolchain.toml may pin one this machine does not have).
set -euo pipefail

corpus=${1:?usage: scripts/corpus-verify.sh CORPUS_DIR [NAME...]}
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${CORPUS_WORK:-/tmp/corpus-work}
lock=${BURN_BUILD_LOCK:-/work/burn-build.lock}
migrate=${BURN_MIGRATE:-$repo/target/release/burn-migrate}
if [[ -z "${BURN_MIGRATE:-}" ]]; then
    (cd "$repo" && cargo build --release --quiet -p burn-migrate)
fi
mkdir -p "$work"

printf '%-10s %8s %8s %9s %9s %8s  %s\n' project passed21 passed22 regressed compared verified problems
while IFS=$'\t' read -r name verify_args _why; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    if [[ $# -gt 0 ]] && ! printf '%s\n' "$@" | grep -qx "$name"; then
        continue
    fi
    row=$(awk -F'\t' -v n="$name" '$1 == n' "$repo/scripts/corpus-projects.tsv")
    IFS=$'\t' read -r _ folder scope prep _ <<< "$row"
    copy="$work/verify-$name"
    rm -rf "$copy"
    cp -r "$corpus/$folder" "$copy"
    [[ "$prep" != "-" ]] && (cd "$copy" && eval "$prep")
    log="$work/$name"
    # shellcheck disable=SC2086 # the arguments are words of the table
    RUSTUP_TOOLCHAIN=${CORPUS_TOOLCHAIN:-stable} flock "$lock" "$migrate" verify $verify_args --format json "$copy/$scope" \
        > "$log.verify.json" 2> "$log.verify.log" || true
    python3 - "$log.verify.json" "$name" <<'PY'
import json, sys
path, name = sys.argv[1:]
try:
    v = json.load(open(path))
except ValueError:
    print(f"{name:<10} verify gave no verdict: see {path[:-5]}.log")
    sys.exit()
before, after = v["before"], v["after"]
regressed = set(before["passed_tests"]) - set(after["passed_tests"])
compared = sorted(set(before["runs"]) & set(after["runs"]))
print(f'{name:<10} {len(before["passed_tests"]):>8} {len(after["passed_tests"]):>8} '
      f'{len(regressed):>9} {len(compared):>9} {str(v["verified"]).lower():>8}  '
      + "; ".join(v["problems"])[:300])
PY
done < "$repo/scripts/corpus-verify.tsv"
