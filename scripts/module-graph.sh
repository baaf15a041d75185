#!/bin/sh
# Prints every module of migrator/src with the modules it imports (`module -> imports`), then
# the groups of modules that import each other. The same test fails on any cycle
# (migrator/tests/module_graph.rs).
set -e
cd "$(dirname "$0")/.."
MODULE_GRAPH_PRINT=1 cargo test --quiet -p burn-migrate --test module_graph modules_form_a_dag -- --nocapture --test-threads=1 |
    grep -E ' -> |^cycle among'
