#!/usr/bin/env bash
# Prints a file:// URL of the Swagger UI release that utoipa-swagger-ui's build script
# downloads from GitHub (v5.17.14 for utoipa-swagger-ui 9), for SWAGGER_UI_DOWNLOAD_URL.
#
# This machine reaches the package registries only, so the download fails (burn-lm's server
# crate). The utoipa authors publish that same release zip on crates.io as
# utoipa-swagger-ui-vendored, which cargo can fetch: the build script then copies it from
# the file instead (its documented `file:` form). The projects' code and features are
# untouched.
set -euo pipefail
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/src"
touch "$scratch/src/lib.rs"
cat > "$scratch/Cargo.toml" <<'TOML'
[package]
name = "swagger-ui-zip"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
utoipa-swagger-ui-vendored = "=0.1.2"
TOML
cargo fetch --quiet --manifest-path "$scratch/Cargo.toml"
zip=$(cargo metadata --quiet --format-version 1 --manifest-path "$scratch/Cargo.toml" \
    | python3 -c '
import json, os, sys
meta = json.load(sys.stdin)
package = next(p for p in meta["packages"] if p["name"] == "utoipa-swagger-ui-vendored")
print(os.path.join(os.path.dirname(package["manifest_path"]), "res", "v5.17.14.zip"))
')
[[ -f "$zip" ]] || { echo "swagger-ui.sh: $zip is missing" >&2; exit 1; }
echo "file://$zip"
