#!/usr/bin/env bash
# Builds and runs every test of this machine's build: the C++ suites and the house rules
# (scripts/check_house.py) through ctest (CUDA ones report skipped, with the reason, on a machine
# without a GPU), then the plot scripts' tests and the framework runner's. The aarch64 cross build's
# suites under qemu-user are CI's (scripts/ci_platforms.sh): emulation alone takes longer than this.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/build_deps.sh"
build_release
ctest --preset release --parallel "$(nproc)"
# ctest names skipped tests but not why: each reason once, with how many tests it skipped.
report_skipped "$REPO_ROOT/build/release" test
"$REPO_ROOT/scripts/test_plot.sh"
"$REPO_ROOT/scripts/test_frameworks.sh"
