#!/usr/bin/env bash
# What one call on the GPU machine runs from a carried bundle (scripts/bundle.sh): the GPU's name,
# the GPU test suites, compute-sanitizer's memcheck, racecheck and synccheck on the hand-written
# kernels, then a benchmark sweep of the CUDA backends. Logs and the CSV go to $OUT (default
# ./gpu-check); a short summary is printed last.
#
#   scripts/gpu_check.sh [BUNDLE_DIR]
#   env: SIZES (default 2^13..2^30), BACKENDS (default cuda), REPS (default 5),
#        STEPS (default "tests sanitize bench": any subset, in any order)
set -uo pipefail

bundle=${1:-bundle}
out=${OUT:-gpu-check}
sizes=${SIZES:-2^13..2^30}
backends=${BACKENDS:-cuda}
reps=${REPS:-5}
steps=${STEPS:-tests sanitize bench}
mkdir -p "$out"
summary=()
note() { summary+=("$*"); }

nvidia-smi -L | tee "$out/gpu.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,memory.total --format=csv >> "$out/gpu.txt"
note "$(head -1 "$out/gpu.txt")"

if [[ $steps == *tests* ]]; then
    timeout 300 "$bundle/gpu_backends_test" > "$out/gpu_tests.log" 2>&1
    note "gpu_backends_test: rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$out/gpu_tests.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$out/gpu_tests.log" | head -20
    timeout 600 "$bundle/exact_backends_test" > "$out/exact_tests.log" 2>&1
    note "exact_backends_test: rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$out/exact_tests.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$out/exact_tests.log" | head -20
    "$bundle/harness_tests" --gtest_filter='Registry.*' > "$out/registry_tests.log" 2>&1
    note "registry tests: rc=$? $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ tests?[,.]' "$out/registry_tests.log" | tr '\n' ' ')"
fi

if [[ $steps == *sanitize* ]]; then
    # The hand-written kernels at one small and one odd size; library code (CUB, Thrust) excluded.
    hand_written='cuda/shuffle*,cuda/ladder/*,cuda/atomic/grid,cuda/baseline/read,cuda/exact'
    for tool in memcheck racecheck synccheck; do
        timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 99 \
            "$bundle/accumulate_bench" --backend="$hand_written" --sizes=1024,1000003 \
            --benchmark_repetitions=1 --benchmark_min_time=0.001 > "$out/$tool.log" 2>&1
        note "$tool: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool.log" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
    done
fi

if [[ $steps == *bench* ]]; then
    "$bundle/accumulate_bench" --backend="$backends" --sizes="$sizes" --benchmark_repetitions="$reps" \
        --csv="$out/cuda.csv" > "$out/bench.log" 2>&1
    note "bench: rc=$? $(grep -c . "$out/cuda.csv") csv lines; failures: $(grep -c FAILED "$out/bench.log")"
    # backend, n, GB/s, median microseconds per call
    python3 - "$out/cuda.csv" > "$out/table.txt" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(f"{r['backend']:<36} {r['device']:<8} {r['n']:>11} {float(r['gbps']):9.1f} GB/s {float(r['time_ns_median']) / 1e3:10.2f} us")
PY
fi

echo "==== summary"
printf '%s\n' "${summary[@]}"
[[ -f $out/table.txt ]] && grep -E ' (8192|1048576|4194304|16777216|268435456|1073741824) ' "$out/table.txt"
exit 0
