#!/usr/bin/env bash
# Builds and runs every test: the C++ suites through ctest (CUDA ones report skipped, with the
# reason, on a machine without a GPU) and the plot scripts' tests.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/build_deps.sh"
build_release
ctest --preset release --parallel "$(nproc)"
# ctest names skipped tests but not why: each reason once, with how many tests it skipped.
grep -A1 -E ': Skipped$' "$REPO_ROOT/build/release/Testing/Temporary/LastTest.log" |
    grep -v -E ': Skipped$|^--$' | sort | uniq -c | sed -E 's/^ *([0-9]+) /[test] \1 tests skipped: /' || true
"$REPO_ROOT/scripts/test_plot.sh"
