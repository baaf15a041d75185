#!/usr/bin/env bash
# Ports each corpus project with `burn-migrate --apply` and checks the port against Burn 0.22.
#
#   scripts/corpus.sh CORPUS_DIR [NAME...]
#
# CORPUS_DIR holds the materialized projects (OWNER+NAME folders, see
# /work/shared/corpus/README.md); NAMEs pick rows of scripts/corpus-projects.tsv (default:
# all). Each project is copied to a scratch folder (CORPUS_DIR is never touched), prepared,
# ported, then `cargo check`ed with its listed arguments, one project at a time, under
# `flock $BURN_BUILD_LOCK` (Burn builds are heavy; one at a time per machine), into the
# shared `CARGO_TARGET_DIR` (default /work/corpus-target) so Burn builds once.
# One line per project: apply time, findings fixed/manual, manual findings `--check` still
# lists on the port (`left`, must equal `manual`), cargo check errors (`nobuild` when cargo
# could not load or resolve the port, `buildscript` when a dependency's build script
# failed, naming it), how many sit at a finding of the port (`reported`,
# scripts/corpus-errors.py) and how many do not, failing packages; a row
# whose arguments are `-` is ported but not checked (it cannot build here); a sixth column runs
# in the port before the check (ddrs: `cuda`, which needs CubeCL's LLVM download, left out). Logs stay under $CORPUS_WORK (default /tmp/corpus-work). CORPUS_CHECK=0 skips
# `cargo check` (errors then read `-`); BURN_MIGRATE names the binary (default: a release
# build of this checkout).
set -euo pipefail

corpus=${1:?usage: scripts/corpus.sh CORPUS_DIR [NAME...]}
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
list="$repo/scripts/corpus-projects.tsv"
work=${CORPUS_WORK:-/tmp/corpus-work}
lock=${BURN_BUILD_LOCK:-/work/burn-build.lock}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/work/corpus-target}
migrate=${BURN_MIGRATE:-$repo/target/release/burn-migrate}
if [[ -z "${BURN_MIGRATE:-}" ]]; then
    # Into the checkout's own target: CARGO_TARGET_DIR above is the corpus projects'.
    (cd "$repo" && CARGO_TARGET_DIR="$repo/target" cargo build --release --quiet -p burn-migrate)
fi
mkdir -p "$work"
# utoipa-swagger-ui's build script downloads Swagger UI from GitHub, which this machine cannot
# reach: point it at the same release, fetched from crates.io (scripts/corpus-prep/swagger-ui.sh).
# Without it (no crates.io either), only such a project's check fails, at that build script.
if [[ -z "${SWAGGER_UI_DOWNLOAD_URL:-}" ]]; then
    if SWAGGER_UI_DOWNLOAD_URL=$("$repo/scripts/corpus-prep/swagger-ui.sh"); then
        export SWAGGER_UI_DOWNLOAD_URL
    else
        echo "corpus.sh: no Swagger UI zip from crates.io; utoipa-swagger-ui will try GitHub" >&2
        unset SWAGGER_UI_DOWNLOAD_URL
    fi
fi

printf '%-13s %8s %6s %6s %6s %7s %8s %6s  %s\n' project apply_s fixed manual left errors reported others failing_packages
while IFS=$'\t' read -r name folder scope prep args check_prep; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    if [[ $# -gt 0 ]] && ! printf '%s\n' "$@" | grep -qx "$name"; then
        continue
    fi
    src="$corpus/$folder"
    if [[ ! -d "$src" ]]; then
        printf '%-10s not materialized in %s\n' "$name" "$corpus"
        continue
    fi
    copy="$work/$name"
    rm -rf "$copy"
    cp -r "$src" "$copy"
    dir="$copy/$scope"
    [[ "$prep" != "-" ]] && (cd "$copy" && eval "$prep")
    log="$work/$name"
    # What the port finds (fixable or for a person), then the port itself, timed.
    "$migrate" --check --format json "$dir" > "$log.findings.json" 2> "$log.check.log" || true
    read -r fixed manual < <(python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))
print(sum(1 for x in f if x["fixable"]), sum(1 for x in f if not x["fixable"]))
' "$log.findings.json" 2>/dev/null || echo "? ?")
    start=$(date +%s.%N)
    "$migrate" --apply --allow-dirty --allow-no-vcs "$dir" > "$log.diff" 2> "$log.apply.log" || true
    apply_s=$(echo "$(date +%s.%N) - $start" | bc)
    # What --check still lists on the port: the manual findings --apply printed, no fewer.
    "$migrate" --check --format json "$dir" > "$log.after.json" 2> /dev/null || true
    left=$(python3 -c '
import json, sys
print(sum(1 for x in json.load(open(sys.argv[1])) if not x["fixable"]))
' "$log.after.json" 2>/dev/null || echo "?")
    if [[ "${CORPUS_CHECK:-1}" == 0 || "$args" == "-" ]]; then
        printf '%-13s %8.1f %6s %6s %6s %7s %8s %6s  %s\n' "$name" "$apply_s" "$fixed" "$manual" "$left" - - - -
        continue
    fi
    # shellcheck disable=SC2086 # the listed arguments are words
    # The machine's toolchain, whatever the project pins (a pin to an uninstalled toolchain
    # would make rustup try to download it).
    # A step between the port and the check, for what cannot build here (CubeCL's LLVM
    # download): the row says what it changes, and the results table says so too.
    [[ -n "${check_prep:-}" && "$check_prep" != "-" ]] && (cd "$dir" && eval "$check_prep")
    (cd "$dir" && RUSTUP_TOOLCHAIN=${CORPUS_TOOLCHAIN:-stable} flock "$lock" cargo check --keep-going $args --message-format short) \
        > "$log.check-0.22.log" 2>&1 || true
    # Each error matched to the findings --check lists on the port (scripts/corpus-errors.py):
    # at a finding (or inside an item reported whole), or not.
    read -r errors reported others < <(python3 "$repo/scripts/corpus-errors.py" \
        "$log.check-0.22.log" "$log.after.json" "$dir" 2>/dev/null || echo "? ? ?")
    if ! grep -q 'Checking\|Compiling\|Finished' "$log.check-0.22.log"; then
        # cargo stopped before compiling anything (the workspace does not load or resolve).
        errors="nobuild"
    fi
    failing=$(grep -o 'could not compile `[^`]*`' "$log.check-0.22.log" \
        | sed 's/could not compile `\(.*\)`/\1/' | sort -u | paste -sd, - || true)
    if grep -q 'failed to run custom build command' "$log.check-0.22.log"; then
        # A dependency's build script failed (a system library this machine lacks): cargo
        # checked nothing that depends on it, so no count says anything of the port.
        errors="buildscript"
        failing=$(grep -o 'failed to run custom build command for `[^`]*`' "$log.check-0.22.log" \
            | sed 's/.*for `\(.*\)`/\1/' | sort -u | paste -sd, - || true)
    fi
    printf '%-13s %8.1f %6s %6s %6s %7s %8s %6s  %s\n' "$name" "$apply_s" "$fixed" "$manual" "$left" \
        "$errors" "$reported" "$others" "${failing:--}"
done < "$list"
