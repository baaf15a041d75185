#!/bin/bash
# Writes the rustdoc JSON that `cargo run -p xtask -- docs-rs-lists --json-dir DIR` reads: what
# docs.rs shows for each Burn crate the guide links to, built the way docs.rs builds it.
#
#   framework/api/docsrs-json.sh [DIR] [PIN:CRATE ...]
#     (default DIR /work/apidiff-target/docsrs; default crates below)
#
# docs.rs documents a crate version alone, with the features its own manifest asks for in
# `[package.metadata.docs.rs]` (`features`, `all-features`, `no-default-features`), and with
# the default features where that table is absent (burn 0.21.0 has none: its docs.rs pages
# lack everything behind `train`, `store`, `dataset`, `ndarray`). For each PIN:CRATE this makes
# a scratch crate outside the repository that depends on CRATE at the version the pinned
# framework lockfile holds, reads that table from Cargo's own view of the package
# (`cargo metadata`), sets the dependency's features to it, and runs nightly
# `cargo rustdoc --output-format json` for CRATE (and, for the `burn` facade, for every Burn
# crate its re-exports reach, so the walk can follow them).
#
# Output: DIR/<crate>-<version>/<crate_ident>.json plus DIR/<crate>-<version>/features, the
# feature set and where it came from (the list's header repeats it).
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-/work/apidiff-target/docsrs}
shift || true
specs=${*:-"0.21:burn 0.21:burn-core 0.21:burn-train 0.21:burn-store 0.21:burn-ndarray 0.21:burn-dataset 0.21:burn-autodiff 0.22:burn 0.22:burn-store"}
work=$(dirname "$out")
facade_crates="burn-std burn-backend burn-tensor burn-core burn-nn burn-optim burn-dataset burn-store burn-autodiff burn-dispatch burn-train burn"
mkdir -p "$out"
for spec in $specs; do
  pin=${spec%%:*}
  crate=${spec#*:}
  lock=$repo/framework/burn-$pin/Cargo.lock
  version=$(grep -A1 "^name = \"$crate\"$" "$lock" | sed -n 's/^version = "\(.*\)"/\1/p' | head -1)
  [ -n "$version" ] || { echo "$crate: not in $lock" >&2; exit 1; }
  dest=$out/$crate-$version
  scratch=$work/docsrs-scratch/$crate-$version
  mkdir -p "$scratch/src" "$dest"
  : > "$scratch/src/lib.rs"
  cp "$lock" "$scratch/Cargo.lock"
  manifest() {
    cat > "$scratch/Cargo.toml" <<TOML
[package]
name = "docsrs-scratch"
version = "0.1.0"
edition = "2021"
publish = false
[dependencies]
$crate = { version = "=$version"$1 }
[workspace]
TOML
  }
  manifest ""
  # Cargo's view of the package: its docs.rs table and its feature names.
  meta=$(cd "$scratch" && cargo metadata --format-version 1 2>/dev/null \
    | jq -c --arg n "$crate" --arg v "$version" '.packages[] | select(.name == $n and .version == $v)
        | {docs: (.metadata.docs.rs // null), features: (.features | keys)}')
  docs=$(jq -c '.docs' <<<"$meta")
  if [ "$docs" = null ]; then
    features=() ; defaults=true ; source="no [package.metadata.docs.rs]: default features"
  else
    if [ "$(jq -r '."all-features" // false' <<<"$docs")" = true ]; then
      mapfile -t features < <(jq -r '.features[]' <<<"$meta")
    else
      mapfile -t features < <(jq -r '.docs.features // [] | .[]' <<<"$meta")
    fi
    defaults=$([ "$(jq -r '."no-default-features" // false' <<<"$docs")" = true ] && echo false || echo true)
    source="[package.metadata.docs.rs] of $crate $version: $docs"
  fi
  list=""
  for f in "${features[@]}"; do list="$list${list:+, }\"$f\""; done
  manifest ", default-features = $defaults, features = [$list]"
  printf 'default-features = %s\nfeatures = [%s]\nsource = %s\n' "$defaults" "$list" "$source" > "$dest/features"
  echo "== $crate $version: default-features = $defaults, features = [$list]"
  if [ "$crate" = burn ]; then targets=$facade_crates; else targets=$crate; fi
  for c in $targets; do
    json=$dest/${c//-/_}.json
    [ -f "$json" ] && continue
    (cd "$scratch" && cargo +nightly tree -e normal --prefix none | grep -q "^$c v") \
      || { echo "   skip $c (not in this build's graph)"; continue; }
    dep_version=$(cd "$scratch" && cargo +nightly tree -e normal --prefix none | sed -n "s/^$c v\([^ ]*\).*/\1/p" | head -1)
    echo "   rustdoc $c@$dep_version"
    args=(-Z unstable-options --output-format json)
    # docs.rs passes the crate's own rustdoc-args (`--cfg docsrs`) to the crate it documents.
    if [ "$c" = "$crate" ] && [ "$docs" != null ]; then
      # Only the `--cfg` pairs: they decide what is compiled; the others style the HTML.
      mapfile -t extra < <(jq -r '."rustdoc-args" // [] | .[]' <<<"$docs")
      for ((i = 0; i + 1 < ${#extra[@]}; i++)); do
        [ "${extra[i]}" = --cfg ] && args+=(--cfg "${extra[i + 1]}")
      done
    fi
    # docs.rs sets DOCS_RS=1 for its builds; build scripts read it (CubeCL's LLVM bundler
    # skips its download, which this machine cannot make).
    (cd "$scratch" && DOCS_RS=1 CARGO_TARGET_DIR=$work/docsrs-target-$pin nice -n 10 cargo +nightly rustdoc \
      -p "$c@$dep_version" --lib -- "${args[@]}")
    cp "$work/docsrs-target-$pin/doc/${c//-/_}.json" "$json"
  done
done
