#!/usr/bin/env bash
# Preparation for merely-made/mere (run in the copy's root): the two crates in scope
# (crates/intel/esp, crates/conatus/quint) with the path dependencies they reach become a
# workspace of their own; the monorepo's other members (git dependencies) leave it.
set -euo pipefail
python3 - <<'PY'
import re, pathlib, tomllib
root = pathlib.Path(".").resolve()
todo, seen = ["crates/intel/esp", "crates/conatus/quint"], []
while todo:
    member = todo.pop()
    if member in seen:
        continue
    seen.append(member)
    manifest = tomllib.loads((root / member / "Cargo.toml").read_text())
    tables = [manifest.get(k, {}) for k in ("dependencies", "dev-dependencies", "build-dependencies")]
    for target in manifest.get("target", {}).values():
        tables += [target.get(k, {}) for k in ("dependencies", "dev-dependencies")]
    for table in tables:
        for spec in table.values():
            if isinstance(spec, dict) and "path" in spec:
                todo.append(str((root / member / spec["path"]).resolve().relative_to(root)))
text = (root / "Cargo.toml").read_text()
members = "members = [\n" + "".join(f'    "{m}",\n' for m in sorted(seen)) + "]"
text = re.sub(r"(?ms)^members = \[.*?^\]", members, text, count=1)
(root / "Cargo.toml").write_text(text)
print("mere members:", ", ".join(sorted(seen)))
PY
# The monorepo's git dependencies (unused by the two crates) cannot be fetched here.
sed -i '/git = "https:\/\//d' Cargo.toml
rm -f Cargo.lock
