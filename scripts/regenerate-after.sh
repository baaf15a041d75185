#!/usr/bin/env bash
# Regenerates testdata/projects/<name>/after from before/ with the current burn-migrate.
# Review the resulting `git diff` by hand: after/ is the expected output, not a snapshot to
# accept blindly.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build -q --manifest-path "$root/Cargo.toml" -p burn-migrate
if [ $# -eq 0 ]; then set -- $(ls "$root/testdata/projects"); fi
for name in "$@"; do
  project="$root/testdata/projects/$name"
  rm -rf "$project/after"
  cp -r "$project/before" "$project/after"
  rm -rf "$project/after/target" "$project/after/Cargo.lock"
  "$root/target/debug/burn-migrate" --apply --allow-dirty --allow-no-vcs "$project/after" >/dev/null || true
done
