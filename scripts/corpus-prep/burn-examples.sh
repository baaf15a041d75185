#!/usr/bin/env bash
# Preparation for tracel-ai/burn at v0.21.0 (run in the copy's root): the examples become a
# workspace of their own against Burn 0.21.0 from crates.io. The root manifest keeps its
# [workspace.dependencies] (every example uses `workspace = true`), its members become
# `examples/*`, and the `path = "crates/..."` of Burn's own crates is dropped so they resolve
# from the registry at the version the line already names. Burn's sources leave the copy.
set -euo pipefail
python3 - <<'PY'
import re
text = open("Cargo.toml").read()
text = re.sub(r"(?ms)^members = \[.*?\]", 'members = ["examples/*"]', text, count=1)
text = re.sub(r'path = "crates/[^"]*", ', "", text)
open("Cargo.toml", "w").write(text)
PY
rm -rf crates xtask Cargo.lock
