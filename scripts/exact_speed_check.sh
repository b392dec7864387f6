#!/usr/bin/env bash
# cuda/exact against cuda/single-pass, and nccl/exact on one GPU against cuda/exact, on the GPU
# machine from a release build: the GPU test cases of both exact backends (and the single-pass
# suite, whose launch they share), compute-sanitizer's memcheck, racecheck and synccheck on a few of
# them, then batched times per size and the speed ratios against the targets (cuda/PERFORMANCE.md,
# "cuda/exact"). Logs, the CSV and ratios.txt go to $OUT (default ./exact-speed). Exit status:
# non-zero when a test or a sanitizer fails; a missed speed target is printed, not an error.
#
#   scripts/exact_speed_check.sh [BUILD_DIR]    (default build/release; a scripts/bundle.sh bundle works too)
#   env: SIZES (default every second power 2^16..2^30), DTYPES (default f32; f32,f64,f16,bf16 for
#        every element type, each judged against cuda/single-pass in the same type), REPS (default 5),
#        BACKENDS (default cuda/single-pass,cuda/exact,nccl/exact; every exact backend named is
#        judged against cuda/single-pass), LARGE=0 to skip the 2^31-element cases (run last; a minute
#        or two of host-side input), HARD (hard inputs, e.g. ill:1e16,cancel,wide, each timed at
#        HARD_SIZES, default 2^24,2^28, and judged against its target: 0.8, wide 0.5), TESTS=0 to
#        time only (no tests, no sanitizers), MIN_TIME (Google Benchmark's --benchmark_min_time per
#        repetition, e.g. 0.1, for a shorter run)
#   The element types at the sizes of their target, in about five minutes:
#     DTYPES=f32,f64,f16,bf16 SIZES=2^24,2^26,2^28,2^30 BACKENDS=cuda/single-pass,cuda/exact REPS=3 LARGE=0 \
#       scripts/exact_speed_check.sh
#   Every type from 2^16 and on the hard inputs, times only:
#     TESTS=0 LARGE=0 REPS=3 MIN_TIME=0.1 DTYPES=f32,f64,f16,bf16 SIZES=2^16,2^17,2^18,2^20,2^21,2^22,2^23,2^24,2^26,2^28,2^30 \
#       HARD=ill:1e16,cancel,wide BACKENDS=cuda/single-pass,cuda/exact scripts/exact_speed_check.sh
set -uo pipefail

build=${1:-build/release}
out=${OUT:-exact-speed}
sizes=${SIZES:-2^16,2^18,2^20,2^22,2^24,2^26,2^28,2^30}
dtypes=${DTYPES:-f32}
reps=${REPS:-5}
backends=${BACKENDS:-cuda/single-pass,cuda/exact,nccl/exact}
large=${LARGE:-1}
hard=${HARD:-}
hard_sizes=${HARD_SIZES:-2^24,2^28}
tests=${TESTS:-1}
min_time=${MIN_TIME:-}
mkdir -p "$out"
status=0
# A program of the build (under tests/ or tools/) or of a bundle (all in one folder).
bin() {
    local path
    for path in "$build/$1" "$build/tests/$1" "$build/tools/$1"; do
        [[ -x $path ]] && { echo "$path"; return; }
    done
    echo "$build/$1"
}
summary=()

# run NAME TIMEOUT COMMAND...: the command's output to $OUT/NAME.log; a non-zero exit fails the check.
run() {
    local name=$1 limit=$2
    shift 2
    timeout "$limit" "$@" > "$out/$name.log" 2>&1
    local rc=$?
    summary+=("$name: rc=$rc $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?|ERROR SUMMARY|RACECHECK SUMMARY' "$out/$name.log" | tr '\n' ' ')")
    grep -E '^\[  FAILED  \]' "$out/$name.log" | head -20
    ((rc == 0)) || status=1
}

nvidia-smi -L | tee "$out/gpu.txt"
large_cases='*AboveTwoTo31*:*Above2To31*'

if ((tests)); then
# The tests: every case of the two exact backends (CPU bits against GPU bits included).
run exact_backends 300 "$(bin exact_backends_test)" \
    --gtest_filter="*/cuda_exact:*/nccl_exact:ExactBackends.*:ExactWords.*-$large_cases"
run device_backends 300 "$(bin device_backends_test)" --gtest_filter="*/cuda_exact:DeviceElementTypes.*-$large_cases"
run scale_out 120 "$(bin scale_out_test)" --gtest_filter='*/nccl_exact'
# On the GPU machine no case of the two may be skipped (a skip here means no usable device).
if grep -E '^\[  SKIPPED \] .*/(cuda|nccl)_exact' "$out"/exact_backends.log "$out"/device_backends.log "$out"/scale_out.log | sort -u | head -5 | grep .; then
    summary+=("skipped GPU cases: see above")
    status=1
fi
run gpu_single_pass 300 "$(bin gpu_single_pass_test)"
if [[ -x $(bin single_pass_sweep) ]]; then run single_pass_check 300 "$(bin single_pass_sweep)" --check; fi

# The sanitizers on a few cases: odd sizes and unaligned starts (one block to a full grid), NaN and
# Inf, doubles (whose warps' digits take shared-memory atomics), the 16-bit types, nccl/exact.
sanitized='Registry/EveryExactBackend.OddSizesAndUnalignedStarts/cuda_exact:Registry/EveryExactBackend.TiesRoundToEven/cuda_exact:Registry/EveryExactBackend.DoublesOddSizesAndUnalignedStarts/cuda_exact'
run memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 99 "$(bin exact_backends_test)" \
    --gtest_filter="$sanitized:Registry/EveryExactBackend.NanAndInfinityAsIeeeAdditionGivesThem/cuda_exact:Registry/EveryExactBackend.SixteenBitInputs/cuda_exact:Registry/EveryExactBackend.OddSizesAndUnalignedStarts/nccl_exact"
run racecheck 300 compute-sanitizer --tool racecheck --error-exitcode 99 "$(bin exact_backends_test)" --gtest_filter="$sanitized"
run synccheck 300 compute-sanitizer --tool synccheck --error-exitcode 99 "$(bin exact_backends_test)" --gtest_filter="$sanitized"
fi

# Batched times, the backends side by side in one run.
csv=$out/exact_speed.csv
rm -f "$csv"
bench_rc=0
# bench INPUT SIZES: one run of the backends on that input, its rows appended to $csv.
bench() {
    rm -f "$out/part.csv"
    timeout 900 "$(bin accumulate_bench)" --backend="$backends" --gpus=1 --sizes="$2" --input="$1" \
        --dtype="$dtypes" --benchmark_filter=/batched --benchmark_repetitions="$reps" ${min_time:+--benchmark_min_time="$min_time"} \
        --csv="$out/part.csv" >> "$out/bench.log" 2>&1 || bench_rc=$?
    if [[ -s $csv ]]; then tail -n +2 "$out/part.csv" >> "$csv"; else cp "$out/part.csv" "$csv"; fi
}
bench uniform "$sizes"
IFS=, read -ra hard_inputs <<< "$hard"
for input in "${hard_inputs[@]}"; do bench "$input" "$hard_sizes"; done
summary+=("bench: rc=$bench_rc $(grep -c . "$csv" 2>/dev/null) csv lines")
python3 - "$csv" > "$out/ratios.txt" <<'PY'
import csv, collections, sys
rows = collections.defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1])):
    if r["timing"] == "batched":
        rows[(r["input"], r.get("dtype", "f32"), int(r["n"]))][r["backend"]] = float(r["time_ns_median"]) / 1e3
exact = sorted({b for t in rows.values() for b in t if b != "cuda/single-pass" and b != "nccl/exact"})
print(f"{'input':<9} {'dtype':<5} {'n':>6} {'single-pass us':>15} " + " ".join(f"{b + ' us':>14} {'/sp':>6} target" for b in exact)
      + f" {'nccl us':>9} {'nccl/exact':>10} target")
for (input, dtype, n), t in sorted(rows.items()):
    sp, ex, nc = t.get("cuda/single-pass"), t.get("cuda/exact"), t.get("nccl/exact")
    log2 = n.bit_length() - 1
    goal = {"uniform": 0.9 if log2 >= 20 else 0.7, "wide": 0.5}.get(input, 0.8)
    line = f"{input:<9} {dtype:<5} 2^{log2:<4} {sp or float('nan'):15.2f} "
    for b in exact:
        speed = sp / t[b] if sp and t.get(b) else float("nan")
        line += f"{t.get(b, float('nan')):14.2f} {speed:5.2f}x {'ok  ' if speed >= goal else 'MISS'}({goal}) "
    nccl = ex / nc if ex and nc else float("nan")
    # Below 2^26 an NCCL call's own few microseconds (nccl/sum's 1-GPU rows) decide nccl/exact's time.
    nccl_verdict = ("ok  " if nccl >= 0.95 else "MISS") + "(0.95)" if log2 >= 26 and nc else "-"
    print(line + f"{nc or float('nan'):9.2f} {nccl:9.2f}x {nccl_verdict}")
PY

# Above 2^31 elements (32-bit indices would wrap), last: most of it is the host making the input.
if ((large && tests)); then
    run exact_backends_large 600 "$(bin exact_backends_test)" --gtest_filter=ExactBackends.AboveTwoTo31ElementsOnTheGpu
    run device_backends_large 600 "$(bin device_backends_test)" --gtest_filter=Registry/EveryDeviceBackend.ExactAbove2To31Elements/cuda_exact
fi

echo "==== summary"
printf '%s\n' "${summary[@]}"
cat "$out/ratios.txt"
exit $status
