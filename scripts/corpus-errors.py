#!/usr/bin/env python3
"""Matches the compiler errors of a ported corpus project to the findings `--check` lists on
the port (what `--apply` left for a person), error by error.

    scripts/corpus-errors.py CHECK_LOG AFTER_JSON [PORT_DIR] [--others] [--rules]

CHECK_LOG: `cargo check --message-format short` output (paths relative to the project);
AFTER_JSON: `burn-migrate --check --format json` of the port; PORT_DIR: the ported project
(its sources, for the extent of `use` items and of items reported whole). An error counts as reported when
a finding of the port sits on its line, on the line above (a to-do marker), or spans it; an
error on a `use` item when a finding sits on one of the item's lines; an error on an
attribute's first line (where rustc places what a procedural macro expands to) when a finding
sits in its arguments; and an error inside an item a finding reports whole (a backend
extension: its `{ .. }` body below the finding).
Prints `errors at_findings others` and, with --others, each error no finding explains.
"""
import json
import re
import sys
from collections import defaultdict


# Rules whose findings stand for the whole item below them (trait or impl, to its brace).
WHOLE_ITEM = {"backend-extension-trait"}


def item_end(lines, start):
    """The line (1-based) of the brace that closes the item starting at or after `start`."""
    depth, opened = 0, False
    for number in range(start, len(lines) + 1):
        for char in lines[number - 1]:
            if char == "{":
                depth, opened = depth + 1, True
            elif char == "}":
                depth -= 1
        if opened and depth <= 0:
            return number
        if not opened and lines[number - 1].rstrip().endswith(";"):
            return number
    return start


def attribute_end(lines, start):
    """The line (1-based) of the `]` that closes the attribute starting on line `start`."""
    depth = 0
    for number in range(start, min(len(lines), start + 200) + 1):
        for char in lines[number - 1]:
            if char == "[":
                depth += 1
            elif char == "]":
                depth -= 1
                if depth == 0:
                    return number
    return start


def use_end(lines, start):
    """The last line of the `use` item on line `start`."""
    for number in range(start, min(len(lines), start + 40) + 1):
        if lines[number - 1].rstrip().endswith(";"):
            return number
    return start


def main():
    log, after = sys.argv[1], sys.argv[2]
    root = sys.argv[3] if len(sys.argv) > 3 and not sys.argv[3].startswith("--") else None
    findings = defaultdict(list)
    sources = {}

    def source(file):
        if root and file not in sources:
            try:
                sources[file] = open(f"{root}/{file}", errors="replace").read().split("\n")
            except OSError:
                sources[file] = []
        return sources.get(file, [])

    for f in json.load(open(after)):
        if f.get("fixable"):
            continue
        start, end = f["start"]["line"], f["end"]["line"]
        if f["rule"] in WHOLE_ITEM or "todo(backend-extension-trait)" in f.get("message", ""):
            end = max(end, item_end(source(f["file"]), start + 1))
        findings[f["file"]].append((start, end, f["rule"]))
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
        last = line
        if msg.startswith("unresolved import"):
            for k in candidates:
                last = max(last, use_end(source(k), line))
        # rustc places what a procedural macro attribute expands to at the attribute: an
        # error there is the attribute's, whose arguments may hold the finding.
        for k in candidates:
            text = source(k)
            if 0 < line <= len(text) and text[line - 1].lstrip().startswith("#["):
                last = max(last, attribute_end(text, line))
        hit = [
            rule
            for k in candidates
            for (start, end, rule) in findings[k]
            if start <= last and line <= end + 1
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
