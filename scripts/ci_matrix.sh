#!/usr/bin/env bash
# CI's longer checks, run by .ci/run after scripts/test.sh: the CPU test suites and the command-line
# checks under the address and undefined-behaviour sanitizers, the CPU test suites under the thread
# sanitizer, then each libFuzzer target in fuzz/ for FUZZ_SECONDS (default 60); the suites and the
# targets run as many at once as there are cores. Each step prints what it runs and how long it
# took; the first step that fails stops the script with its exit status.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/build_deps.sh"

FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
CPU_SUITES=(harness_tests cpu_backends_test cpu_accuracy_test exact_backends_test)
FUZZ_TARGETS=(sizes command_line float_file npy_header)

# The fuzz preset's compiler, its libFuzzer runtime, and the OpenMP runtime CMake needs for it.
BUILD_PACKAGES[clang-16]="command -v clang++-16"
BUILD_PACKAGES[libclang-rt-16-dev]="test -f /usr/lib/llvm-16/lib/clang/16/lib/linux/libclang_rt.fuzzer-$(uname -m).a"
BUILD_PACKAGES[libomp-16-dev]="test -f /usr/lib/llvm-16/lib/libomp.so"

# step NAME COMMAND...: runs COMMAND, printing it before and its duration after. COMMAND runs where
# set -e is off (it is tested), so the functions below return at their first failure themselves.
step() {
    local name="$1"
    shift
    echo "[ci] ${name}: $*"
    local start="$SECONDS" status=0
    "$@" || status=$?
    if [[ $status -ne 0 ]]; then
        echo "[ci] ${name}: FAILED (exit status ${status}) after $((SECONDS - start)) s" >&2
        exit "$status"
    fi
    echo "[ci] ${name}: passed in $((SECONDS - start)) s"
}

build_preset() {
    local preset="$1"
    shift
    cmake --preset "$preset" >/dev/null || return
    cmake --build --preset "$preset" --parallel "$(nproc)" --target "$@"
}

# in_parallel LOGS SUMMARY COMMAND NAME...: COMMAND NAME for each NAME, as many at once as there
# are cores (each one's whole time, not a share of it), the output of each in LOGS/NAME.log. Prints
# each one's lines matching the regular expression SUMMARY when it passed and its whole log when it
# failed; fails when any failed.
in_parallel() {
    local logs="$1" summary="$2" command="$3"
    shift 3
    mkdir -p "$logs" || return
    local -A pids=()
    local name status=0
    for name in "$@"; do
        while (($(jobs -rp | wc -l) >= $(nproc))); do sleep 1; done
        echo "[ci]   ${name}: ${command} ${name} > ${logs}/${name}.log"
        "$command" "$name" >"${logs}/${name}.log" 2>&1 &
        pids[$name]=$!
    done
    for name in "$@"; do
        if wait "${pids[$name]}"; then
            grep -E "$summary" "${logs}/${name}.log" | sed "s/^/[ci]   ${name}: /"
        else
            cat "${logs}/${name}.log"
            echo "[ci]   ${name}: FAILED"
            status=1
        fi
    done
    return "$status"
}

# run_suites DIR [ARGS...]: the CPU suites of the build in DIR, in parallel, with these arguments.
run_suites() {
    SUITES_DIR="$1"
    SUITE_ARGS=("${@:2}")
    in_parallel "$SUITES_DIR/suites" '^\[  (PASSED|SKIPPED) +\]' run_suite "${CPU_SUITES[@]}"
}
run_suite() { "${SUITES_DIR}/tests/$1" --gtest_brief=1 "${SUITE_ARGS[@]}"; }

# The thread sanitizer sees only what was compiled with it. oneTBB's library and libgomp (GCC's
# OpenMP runtime) are not: the hand-overs they make between threads are invisible to it, so every
# task or parallel region they run reads as a race. The tests whose backends they schedule are left
# out here, each named with why; the release and ASan+UBSan suites run them. The thread pool, the
# balanced chunks and the read ceiling's pinned threads are covered by the tests that remain.
TSAN_EXCLUDED=(
    "*cpu_tbb_*=oneTBB schedules these backends' work"
    "*cpu_stl_par*=libstdc++'s parallel algorithms run on oneTBB"
    "*cpu_openmp_*=libgomp schedules these backends' work"
    "*cpu_baseline_read*=the read ceiling also times oneTBB-stolen ranges"
    "CeilingRead.EveryCandidate*=they run every ceiling candidate, oneTBB-stolen ranges among them"
    "UniformInput.*=each runs every CPU backend, oneTBB and OpenMP ones among them"
    "TinyAddendsAfterCancellingLanes.*=it runs every double or compensated backend, oneTBB and OpenMP ones among them"
    "Placement.*=each copies through every CPU backend, oneTBB and OpenMP ones among them"
    "Sweep.DeclaredReproducibilityIsObserved=it sweeps every CPU backend, oneTBB and OpenMP ones among them"
)
run_tsan_suites() {
    # Every test of cpu_accuracy_test runs every CPU backend, oneTBB and OpenMP ones among them: the
    # filter would leave none, and a suite that runs no test checks nothing.
    local CPU_SUITES=(harness_tests cpu_backends_test exact_backends_test)
    echo "[ci]   left out under the thread sanitizer: cpu_accuracy_test: each of its tests runs every CPU backend, oneTBB and OpenMP ones among them"
    local entry filter=""
    for entry in "${TSAN_EXCLUDED[@]}"; do
        echo "[ci]   left out under the thread sanitizer: ${entry%%=*}: ${entry#*=}"
        filter+="${filter:+:}${entry%%=*}"
    done
    TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" run_suites "$REPO_ROOT/build/tsan" --gtest_filter="-${filter}"
}

run_fuzz_target() {
    local target="$1" found="$REPO_ROOT/build/fuzz/findings/$1"
    local corpus="$REPO_ROOT/build/fuzz/corpus/$1"
    mkdir -p "$found" "$corpus" || return
    # New inputs go to the first directory, the build's: the committed seeds are read, never written.
    "$REPO_ROOT/build/fuzz/fuzz/fuzz_${target}" -max_total_time="$FUZZ_SECONDS" -timeout=30 -print_final_stats=1 \
        -artifact_prefix="$found/" "$corpus" "$REPO_ROOT/fuzz/corpus/${target}"
}

install_missing_packages
cd "$REPO_ROOT"
export UBSAN_OPTIONS="print_stacktrace=1"
# Leaks inside PoCL, which is not built with the sanitizer, are its own (scripts/lsan.supp says which).
export LSAN_OPTIONS="suppressions=$REPO_ROOT/scripts/lsan.supp"

step "asan+ubsan build" build_preset sanitize "${CPU_SUITES[@]}" accumulate_bench
step "asan+ubsan suites" run_suites "$REPO_ROOT/build/sanitize"
step "asan+ubsan cli checks" ctest --preset sanitize -R '^cli\.' --parallel "$(nproc)"

step "tsan build" build_preset tsan "${CPU_SUITES[@]}"
step "tsan suites" run_tsan_suites

step "fuzz build" build_preset fuzz "${FUZZ_TARGETS[@]/#/fuzz_}"
step "fuzz (${FUZZ_SECONDS} s each)" in_parallel "$REPO_ROOT/build/fuzz/logs" '^Done [0-9]+ runs' run_fuzz_target "${FUZZ_TARGETS[@]}"
