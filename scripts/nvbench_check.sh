#!/usr/bin/env bash
# On a GPU machine: do accumulate_nvbench and the harness time the same thing? Runs nvbench's batch
# measurement and the harness's batched rows of the same backends at the same sizes, prints their
# difference per backend and size (nvbench's "Batch GPU", the mean over its batches, against the
# row's time_ns_median) and fails when a pair at 2^AGREE_FROM or more differs by more than the
# tolerance; below it, where launches rather than memory bound a call, the two batch differently
# (results/README.md, "nvbench and the harness") and the difference is stated, not failed.
# Logs, nvbench's JSON and the CSV go to $OUT.
#
#   scripts/nvbench_check.sh [DIR]    a build (default build/release, configured with nvbench:
#                                      scripts/nvbench_venv.sh, then cmake again) or a bundle of one
#   env: BACKENDS (default cuda/single-pass,cuda/cub), EXPONENTS (default 10:30, powers of two),
#        TOLERANCE (default 0.03), AGREE_FROM (default 24: the exponent from which the tolerance
#        holds), OUT (default nvbench-check)
set -euo pipefail

build=${1:-build/release}
backends=${BACKENDS:-cuda/single-pass,cuda/cub}
exponents=${EXPONENTS:-10:30}
tolerance=${TOLERANCE:-0.03}
agree_from=${AGREE_FROM:-24}
out=${OUT:-nvbench-check}
nvbench=$build/tools/accumulate_nvbench
[[ -x $nvbench ]] || nvbench=$build/accumulate_nvbench  # a bundle's
if [[ ! -x $nvbench ]]; then
    echo "nvbench_check: no accumulate_nvbench in $build: install nvbench (scripts/nvbench_venv.sh), configure again, build it" >&2
    exit 2
fi
mkdir -p "$out"
rm -f "$out/harness.csv"

failed() { echo "nvbench_check: $1 failed; the end of $2:" >&2; tail -20 "$2" >&2; exit 1; }
"$nvbench" --devices 0 -b accumulate -a "Backend=[$backends]" -a "Elements[pow2]=[$exponents]" -a dtype=f32 \
    --json "$out/nvbench.json" > "$out/nvbench.md" 2> "$out/nvbench.log" || failed accumulate_nvbench "$out/nvbench.log"
"$build/accumulate_bench" --backend="$backends" --sizes="2^${exponents%:*}..2^${exponents#*:}" --dtype=f32 \
    --csv="$out/harness.csv" > "$out/harness.log" 2>&1 || failed accumulate_bench "$out/harness.log"

python3 - "$out/nvbench.json" "$out/harness.csv" "$tolerance" "$agree_from" <<'PY'
import csv, json, sys

nvbench_json, harness_csv, tolerance = sys.argv[1], sys.argv[2], float(sys.argv[3])
agree_from = 2 ** int(sys.argv[4])
nvbench = {}
for bench in json.load(open(nvbench_json))["benchmarks"]:
    for state in bench["states"]:
        if state.get("is_skipped"):
            continue
        axes = {a["name"]: a["value"] for a in state["axis_values"]}
        batch = [s for s in state["summaries"] if s["tag"] == "nv/batch/time/gpu/mean"]
        if batch:
            nvbench[(axes["Backend"], int(axes["Elements"]))] = float(batch[0]["data"][0]["value"]) * 1e9
harness = {(r["backend"], int(r["n"])): float(r["time_ns_median"])
           for r in csv.DictReader(open(harness_csv)) if r["timing"] == "batched"}

failed = 0
print(f"{'backend':<20} {'n':>6} {'nvbench batch':>14} {'harness batched':>16} {'ratio':>7} {'difference':>10}")
for key in sorted(set(nvbench) | set(harness)):
    if key not in nvbench or key not in harness:
        print(f"{key[0]:<20} 2^{key[1].bit_length() - 1:<4}  only in {'nvbench' if key in nvbench else 'the harness'}: FAIL")
        failed += 1
        continue
    ratio = nvbench[key] / harness[key]
    outside = abs(ratio - 1) > tolerance
    bad = outside and key[1] >= agree_from
    failed += bad
    print(f"{key[0]:<20} 2^{key[1].bit_length() - 1:<4} {nvbench[key] / 1e3:>11.2f} us {harness[key] / 1e3:>13.2f} us"
          f" {ratio:>7.3f} {ratio - 1:>+10.1%}" + ("  FAIL" if bad else "  (below 2^%d: stated)" % (agree_from.bit_length() - 1) if outside else ""))
if not nvbench:
    print("no nvbench batch times: see nvbench.log")
    failed += 1
print(f"{failed} of {len(set(nvbench) | set(harness))} differ by more than {tolerance:.0%} from 2^{agree_from.bit_length() - 1}"
      if failed else f"all within {tolerance:.0%} from 2^{agree_from.bit_length() - 1}")
sys.exit(1 if failed else 0)
PY
