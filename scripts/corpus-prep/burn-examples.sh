#!/usr/bin/env bash
# Preparation for tracel-ai/burn at v0.21.0 (run in the copy's root): the examples become a
# workspace of their own against Burn 0.21.0 from crates.io. The root manifest keeps its
# [workspace.dependencies] (every example uses `workspace = true`), its members become
# `examples/*`, and the `path = "crates/..."` of Burn's own crates is dropped so they resolve
# from the registry at the version the line already names. Burn's sources leave the copy.
# custom-csv-dataset and modern-lstm leave the workspace too: their `polars = "0.53"` needs
# chrono <= 0.4.41, while Burn 0.22's SQLite (turso) needs >= 0.4.42, so no port of a
# workspace with both resolves (`--apply` says so, with cargo's conflict); the other
# examples are checked.
set -euo pipefail
python3 - <<'PY'
import re
text = open("Cargo.toml").read()
text = re.sub(r"(?ms)^members = \[.*?\]", 'members = ["examples/*"]', text, count=1)
text = text.replace(
    'exclude = [', 'exclude = [\n    "examples/custom-csv-dataset",\n    "examples/modern-lstm",', 1
)
text = re.sub(r'path = "crates/[^"]*", ', "", text)
open("Cargo.toml", "w").write(text)
PY
rm -rf crates xtask Cargo.lock
