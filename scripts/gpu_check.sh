#!/usr/bin/env bash
# What one call on the GPU machine runs from a carried bundle (scripts/bundle.sh): the GPU's name,
# the GPU test suites (and single_pass_sweep --check), compute-sanitizer's memcheck, racecheck and
# synccheck on the hand-written kernels in every element type, then a benchmark sweep of the CUDA
# backends; on request the
# single-pass policy sweep. Logs and the CSV go to $OUT (default ./gpu-check); a short summary is
# printed last.
#
#   scripts/gpu_check.sh [BUNDLE_DIR]
#   env: SIZES (default 2^13..2^30), BACKENDS (default cuda), REPS (default 5), CSV (default
#        $OUT/cuda.csv), BENCH_ARGS (more accumulate_bench arguments, e.g. "--input=ill:1e16"),
#        STEPS (default "tests sanitize bench": any subset, in any order, and "policies" for the
#        single-pass policy sweep; POLICY_ARGS passes it options, e.g. "--acc=f32,f64,kahan")
set -uo pipefail

bundle=${1:-bundle}
out=${OUT:-gpu-check}
sizes=${SIZES:-2^13..2^30}
backends=${BACKENDS:-cuda}
reps=${REPS:-5}
csv=${CSV:-$out/cuda.csv}
steps=${STEPS:-tests sanitize bench}
mkdir -p "$out"
source "$(dirname "${BASH_SOURCE[0]}")/machine_libs.sh"
summary=()
note() { summary+=("$*"); }

nvidia-smi -L | tee "$out/gpu.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,memory.total --format=csv >> "$out/gpu.txt"
note "$(head -1 "$out/gpu.txt")"

if [[ $steps == *tests* ]]; then
    for suite in "$bundle"/device_backends_test "$bundle"/gpu_*_test "$bundle"/exact_backends_test; do
        [[ -x $suite ]] || continue
        name=$(basename "$suite")
        # Of every device API's suite, the CUDA backends' cases and the checks of the APIs' records.
        filter=()
        [[ $name == device_backends_test ]] && filter=(--gtest_filter='*/cuda_*:*/cuda:Device*')
        timeout 900 "$suite" "${filter[@]}" > "$out/$name.log" 2>&1  # every element type a backend takes, 2^31 elements of each
        note "$name: rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$out/$name.log" | tr '\n' ' ')"
        grep -E '^\[  FAILED  \]' "$out/$name.log" | head -20
    done
    if [[ -x $bundle/single_pass_sweep ]]; then
        timeout 300 "$bundle/single_pass_sweep" --check > "$out/single_pass_check.log" 2>&1
        note "single_pass_sweep --check: rc=$? $(tail -1 "$out/single_pass_check.log")"
    fi
    "$bundle/harness_tests" --gtest_filter='Registry.*' > "$out/registry_tests.log" 2>&1
    note "registry tests: rc=$? $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ tests?[,.]' "$out/registry_tests.log" | tr '\n' ' ')"
fi

if [[ $steps == *sanitize* ]]; then
    # Every CUDA backend at one small and one odd size (1024: one-block paths; 1000003: grids).
    for tool in memcheck racecheck synccheck; do
        timeout 500 compute-sanitizer --tool "$tool" --error-exitcode 99 \
            "$bundle/accumulate_bench" --backend=cuda --sizes=1024,1000003 --dtype=f32,f64,f16,bf16 \
            --benchmark_repetitions=1 --benchmark_min_time=0.001 --benchmark_min_warmup_time=0 \
            --benchmark_filter='threads:1/manual_time' > "$out/$tool.log" 2>&1  # isolated calls: a batch is the same kernel
        note "$tool: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool.log" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
    done
fi

if [[ $steps == *bench* ]]; then
    "$bundle/accumulate_bench" --backend="$backends" --sizes="$sizes" --benchmark_repetitions="$reps" \
        --csv="$csv" ${BENCH_ARGS:-} >> "$out/bench.log" 2>&1
    note "bench: rc=$? $(grep -c . "$csv") csv lines; failures: $(grep -c FAILED "$out/bench.log")"
    # backend, n, GB/s, median microseconds per call
    python3 - "$csv" > "$out/table.txt" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(f"{r['backend']:<36} {r['device']:<8} {r.get('timing', ''):<8} {r['n']:>11} {float(r['gbps']):9.1f} GB/s {float(r['time_ns_median']) / 1e3:10.2f} us")
PY
fi

if [[ $steps == *policies* && -x $bundle/single_pass_sweep ]]; then
    # shellcheck disable=SC2086
    timeout 580 "$bundle/single_pass_sweep" ${POLICY_ARGS:-} > "$out/single_pass_sweep.txt" 2>&1
    note "single_pass_sweep: rc=$? $(grep -c -v '^#' "$out/single_pass_sweep.txt") rows in single_pass_sweep.txt"
fi

echo "==== summary"
printf '%s\n' "${summary[@]}"
[[ -f $out/table.txt ]] && grep -E ' (8192|1048576|4194304|16777216|268435456|1073741824) ' "$out/table.txt"
exit 0
