#!/usr/bin/env bash
# CI, after scripts/test.sh: the aarch64 cross build and its suites under qemu-user
# (scripts/aarch64.sh), the Clang builds (libstdc++, libc++) and the Windows cross build, each with
# warnings as errors, and the CPU suites of all but Clang with libstdc++ (under Wine for Windows).
# Prints each step's time.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/platforms.sh"
install_platform_packages
status=0
for step in aarch64_build_and_test clang_build clang_libcxx_build_and_test windows_build_and_test; do
    start=$SECONDS
    "$step" || { platforms_log "FAILED: $step"; status=1; }
    platforms_log "$step: $((SECONDS - start)) s"
done
exit "$status"
