#!/usr/bin/env python3
"""Matches the compiler errors of a ported corpus project to the findings `--check` lists on
the port (what `--apply` left for a person), error by error.

    scripts/corpus-errors.py CHECK_LOG AFTER_JSON [--others]

CHECK_LOG: `cargo check --message-format short` output (paths relative to the project);
AFTER_JSON: `burn-migrate --check --format json` of the port. An error counts as reported when
a finding of the port sits on its line, on the line above (a to-do marker), or spans it.
Prints `errors at_findings others` and, with --others, each error no finding explains.
"""
import json
import re
import sys
from collections import defaultdict


def main():
    log, after = sys.argv[1], sys.argv[2]
    findings = defaultdict(list)
    for f in json.load(open(after)):
        if f.get("fixable"):
            continue
        findings[f["file"]].append((f["start"]["line"], f["end"]["line"], f["rule"]))
    errors = []
    pattern = re.compile(r"^(?P<file>[^ :]+\.rs):(?P<line>\d+):\d+: error(\[E\d+\])?: (?P<msg>.*)$")
    for line in open(log, errors="replace"):
        m = pattern.match(line.strip())
        if m:
            errors.append((m["file"], int(m["line"]), m["msg"]))
    at, others = [], []
    for file, line, msg in errors:
        # cargo prints paths from the workspace root; the JSON from the checked folder too
        candidates = [k for k in findings if file.endswith(k) or k.endswith(file)]
        hit = [
            rule
            for k in candidates
            for (start, end, rule) in findings[k]
            if start <= line <= end + 1
        ]
        (at if hit else others).append((file, line, msg, hit))
    print(len(errors), len(at), len(others))
    if "--others" in sys.argv:
        for file, line, msg, _ in others:
            print(f"  {file}:{line}: {msg}")
    if "--rules" in sys.argv:
        count = defaultdict(int)
        for *_, hit in at:
            count[hit[0]] += 1
        print("  " + ", ".join(f"{r} x{n}" for r, n in sorted(count.items(), key=lambda x: -x[1])))


main()
