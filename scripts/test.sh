#!/usr/bin/env bash
# Builds and runs every test: the C++ suites through ctest (CUDA ones report skipped, with the
# reason, on a machine without a GPU) and the plot scripts' tests.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/build_deps.sh"
build_release
ctest --preset release --parallel "$(nproc)"
"$REPO_ROOT/scripts/test_plot.sh"
