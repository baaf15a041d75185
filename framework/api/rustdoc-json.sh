#!/bin/bash
# Writes the rustdoc JSON that `cargo run -p xtask -- api-diff --json-dir DIR` reads:
# DIR/<version>/<crate>.json for the user-facing Burn crates of both pinned releases.
#
#   framework/api/rustdoc-json.sh [DIR]        (default /work/apidiff-target/json)
#
# For each release it makes a scratch crate outside the repository (next to DIR) that depends on
# `burn` at the exact version with the features the pinned framework crate uses (plus `store`),
# copies the framework lockfile into it (so every dependency resolves as pinned), and runs
# `cargo +nightly rustdoc -p <crate>@<version> --lib -- -Z unstable-options --output-format json`
# for each crate, one at a time. No `cpu`/`cuda` features: they download LLVM. 0.21 also
# builds `collective` (its `burn::collective` module, which 0.22 removed: the tool reads an
# import of it as gone), whose crates the framework lockfile does not hold: cargo adds them to
# the scratch copy at their newest compatible versions and keeps every other pin. 0.22
# also builds `wgpu` and `template`, so the listing has the backend module a custom kernel
# imports from (`burn::backend::wgpu::{CubeTensor, KernelSource, ..}`) and the tool can tell
# which of those imports 0.22.1 still resolves. `PINS="0.22"` regenerates one release only.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-/work/apidiff-target/json}
work=$(dirname "$out")
crates="burn-std burn-backend burn-tensor burn-core burn-nn burn-optim burn-dataset burn-store burn-autodiff burn-dispatch burn-train burn-cubecl burn-wgpu burn-collective burn"
for pin in ${PINS:-0.21 0.22}; do
  lock=$repo/framework/burn-$pin/Cargo.lock
  version=$(grep -A1 '^name = "burn"$' "$lock" | sed -n 's/^version = "\(.*\)"/\1/p')
  case $pin in 0.21) backend='"ndarray", "collective"' ;; 0.22) backend='"flex", "wgpu", "template"' ;; esac
  scratch=$work/scratch-$pin
  mkdir -p "$scratch/src" "$out/$version"
  : > "$scratch/src/lib.rs"
  cp "$lock" "$scratch/Cargo.lock"
  cat > "$scratch/Cargo.toml" <<TOML
[package]
name = "apidiff-scratch-${pin/./-}"
version = "0.1.0"
edition = "2021"
publish = false
[dependencies]
burn = { version = "=$version", features = [$backend, "autodiff", "dataset", "train", "store"] }
[workspace]
TOML
  for c in $crates; do
    json=$out/$version/${c//-/_}.json
    [ -f "$json" ] && continue
    # crates this release's dependency graph does not build (burn-dispatch in 0.21) are skipped
    (cd "$scratch" && cargo +nightly tree -e normal --prefix none | grep -q "^$c v$version") \
      || { echo "skip $c@$version (not in the graph)"; continue; }
    echo "== $c@$version"
    (cd "$scratch" && CARGO_TARGET_DIR=$work/target-$pin nice -n 10 cargo +nightly rustdoc \
      -p "$c@$version" --lib -- -Z unstable-options --output-format json)
    cp "$work/target-$pin/doc/${c//-/_}.json" "$json"
  done
done
