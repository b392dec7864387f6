#!/usr/bin/env bash
# The CPU kernels against the plain loops a reader would write (tools/cpu_yardstick.cpp), and the
# exact sum's thread sweep, on this machine's CPU, in about three minutes:
#   1. one thread: every SIMD kernel (cpu/avx512/*, cpu/avx2/*) beside the yardstick's plain loops of
#      its instruction set and accumulator (yardstick/ISA/ACC-4 and -8), SIZES;
#   2. cpu/exact/parallel and cpu/pool/simd at SWEEP_N floats, every thread count 1 .. min(16, nproc);
#   3. cpu/threads/simd beside plain std::thread loops (yardstick/threads/*) at all threads, from DRAM;
#   4. (dtypes) cpu/exact/parallel and cpu/pool/simd at all threads and SWEEP_N values of each of
#      DTYPES.
# Each step is one cpu_yardstick run (accumulate_bench's harness and rules: warm, interleaved
# repetitions, medians) writing a CSV and a log to $OUT (default ./cpu-speed-check); the ratios are
# printed last and written to $OUT/ratios.txt. With RUNS > 1 steps 3 and 4 run that many times, and
# each ratio is the median of the runs' (lowest-highest in brackets): one run's ratio moves by 5-10%
# on a shared host. Exit status: non-zero only when a step fails to run, never for a ratio below a
# target.
#
#   scripts/cpu_speed_check.sh [BUILD_DIR]      (default build/release; builds cpu_yardstick there;
#                                               a bundle folder's cpu_yardstick runs as it is)
#   env: SIZES (default 2^12,2^16,2^20,2^24,2^26,2^28), SWEEP_N (default 2^28),
#        DRAM_SIZES (default 2^24,2^26,2^28,2^30), DTYPES (default f32,f16,bf16), REPS (default 5),
#        RUNS (default 1), STEPS (default "single sweep threads")
#   The CPU targets of the exact sum and the threads (exact/parallel >= 0.97x pool/simd in every type,
#   threads/simd >= the plain threaded float loop from 2^24), three runs, in about five minutes on
#   the Xeon hosts:
#     STEPS="dtypes threads" RUNS=3 scripts/cpu_speed_check.sh
set -euo pipefail

build=${1:-build/release}
out=${OUT:-cpu-speed-check}
sizes=${SIZES:-2^12,2^16,2^20,2^24,2^26,2^28}
sweep_n=${SWEEP_N:-2^28}
dram_sizes=${DRAM_SIZES:-2^24,2^26,2^28,2^30}
dtypes=${DTYPES:-f32,f16,bf16}
reps=${REPS:-5}
runs=${RUNS:-1}
steps=${STEPS:-single sweep threads}
mkdir -p "$out"

# A bundle (scripts/bundle.sh) carries cpu_yardstick built; a build folder builds it.
bench=$build/cpu_yardstick
if [[ ! -x $bench ]]; then
    cmake --build "$build" --target cpu_yardstick -j "$(nproc)" > "$out/build.log" 2>&1 || {
        tail -20 "$out/build.log"
        exit 1
    }
    bench=$build/tools/cpu_yardstick
fi
cpus=$(nproc)
most=$((cpus < 16 ? cpus : 16))
{
    echo "machine: $("$bench" --machine)  version: $("$bench" --version 2>/dev/null || true)"
    lscpu | grep -E '^(Model name|CPU\(s\)|Thread|L2|L3)' || true
} | tee "$out/machine.txt"

run() {  # run NAME ARGS...: one harness run, its CSV and log under $out
    local name=$1
    shift
    local start=$SECONDS
    rm -f "$out/$name.csv"
    if ! "$bench" "$@" --benchmark_repetitions="$reps" --csv="$out/$name.csv" > "$out/$name.log" 2>&1; then
        tail -20 "$out/$name.log"
        echo "cpu_speed_check: step '$name' failed (log: $out/$name.log)" >&2
        exit 1
    fi
    echo "$name: $((SECONDS - start)) s, $(($(wc -l < "$out/$name.csv") - 1)) rows"
}

if [[ $steps == *single* ]]; then
    run single --backend='yardstick/avx512/*,yardstick/avx2/*,cpu/avx512/*,cpu/avx2/*' --threads=1 --sizes="$sizes"
fi
if [[ $steps == *sweep* ]]; then
    run sweep --backend=cpu/exact/parallel,cpu/pool/simd --threads="$(seq -s, 1 "$most")" --sizes="$sweep_n"
fi
for ((r = 1; r <= runs; ++r)); do
    if [[ $steps == *threads* ]]; then
        run "threads-$r" --backend='cpu/threads/simd,yardstick/threads/*,cpu/pool/simd' --threads="$most" --sizes="$dram_sizes"
    fi
    if [[ $steps == *dtypes* ]]; then
        run "dtypes-$r" --backend=cpu/exact/parallel,cpu/pool/simd --dtype="$dtypes" --threads="$most" --sizes="$sweep_n"
    fi
done

python3 - "$out" <<'EOF' | tee "$out/ratios.txt"
import collections, csv, glob, os, statistics, sys

out = sys.argv[1]

def rows(name):
    path = os.path.join(out, name + ".csv")
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []

def runs(step):  # one list of rows per run of a repeated step
    return [list(csv.DictReader(open(p))) for p in sorted(glob.glob(os.path.join(out, step + "-*.csv")))]

def spread(values, f="%.2f"):  # "median (lowest-highest)" of the runs' values, or the one value
    if not values:
        return "-"
    if len(values) == 1:
        return f % values[0]
    return (f + " (" + f + "-" + f + ")") % (statistics.median(values), min(values), max(values))

def size(n):
    n = int(n)
    return "2^%d" % (n.bit_length() - 1) if n & (n - 1) == 0 else str(n)

def ratio(gbps, a, b):
    return "%.2f" % (gbps[a] / gbps[b]) if a in gbps and b in gbps else "-"

def table(title, columns, lines):
    print("\n" + title)
    width = max(6, *(len(c) for c in columns), *(len(x) for _, cells in lines for x in cells)) + 2
    label = max(len(l) for l, _ in lines) + 2
    print("".ljust(label) + "".join(c.rjust(width) for c in columns))
    for l, cells in lines:
        print(l.ljust(label) + "".join(cell.rjust(width) for cell in cells))

# 1. ours / the best plain loop of the same instruction set and accumulator, per size.
gbps = collections.defaultdict(dict)
for r in rows("single"):
    gbps[int(r["n"])][r["backend"]] = float(r["gbps"])
if gbps:
    sizes = sorted(gbps)
    lines = []
    for ours in ["cpu/avx512/f32", "cpu/avx512/f64", "cpu/avx512/kahan", "cpu/avx2/f32", "cpu/avx2/f64", "cpu/avx2/kahan"]:
        plain = "yardstick/" + ours[len("cpu/"):] + "-"
        cells = []
        for n in sizes:
            best = max((v for b, v in gbps[n].items() if b.startswith(plain)), default=None)
            cells.append("%.2f" % (gbps[n][ours] / best) if best and ours in gbps[n] else "-")
        lines.append((ours, cells))
    table("one thread: kernel / best plain loop of its ISA and accumulator (target >= 1.00)", [size(n) for n in sizes], lines)
    lines = [(b, ["%.1f" % gbps[n].get(b, float("nan")) for n in sizes]) for b in sorted({b for d in gbps.values() for b in d})]
    table("one thread: GB/s", [size(n) for n in sizes], lines)

# 2. the exact sum over the pool's f64 kernel, per thread count.
sweep = collections.defaultdict(dict)
for r in rows("sweep"):
    sweep[int(r["threads"])][r["backend"]] = float(r["gbps"])
if sweep:
    threads = sorted(sweep)
    lines = [(b, ["%.1f" % sweep[t].get(b, float("nan")) for t in threads]) for b in ["cpu/exact/parallel", "cpu/pool/simd"]]
    lines.append(("exact / pool", [ratio(sweep[t], "cpu/exact/parallel", "cpu/pool/simd") for t in threads]))
    n = size(rows("sweep")[0]["n"])
    table("n=%s, GB/s by threads; exact/parallel over pool/simd (target >= 0.97)" % n, [str(t) for t in threads], lines)

# 3. threads/simd over the plain std::thread loops (same accumulator: f64-8; the float one, the
# target, for scale), per run.
threaded = [collections.defaultdict(dict) for _ in runs("threads")]
for run, table_rows in zip(threaded, runs("threads")):
    for r in table_rows:
        run[int(r["n"])][r["backend"]] = float(r["gbps"])
if threaded:
    sizes = sorted(threaded[0])
    t = runs("threads")[0][0]["threads"]
    names = sorted({b for d in threaded[0].values() for b in d})
    lines = [(b, [spread([run[n][b] for run in threaded if b in run[n]], "%.1f") for n in sizes]) for b in names]
    for plain in ["yardstick/threads/avx512/f64-8", "yardstick/threads/avx512/f32-4"]:
        lines.append(("threads/simd / " + plain.split("/")[-1],
                      [spread([run[n]["cpu/threads/simd"] / run[n][plain] for run in threaded
                               if "cpu/threads/simd" in run[n] and plain in run[n]]) for n in sizes]))
    table("%s threads, GB/s; cpu/threads/simd over the plain std::thread loops (target: / f32-4 >= 1.00 from 2^24)" % t,
          [size(n) for n in sizes], lines)

# 4. exact/parallel over pool/simd in each element type, at all threads, per run.
typed = [collections.defaultdict(dict) for _ in runs("dtypes")]
for run, table_rows in zip(typed, runs("dtypes")):
    for r in table_rows:
        run[r["dtype"]][r["backend"]] = float(r["gbps"])
if typed:
    first = runs("dtypes")[0][0]
    types = [d for d in ["f32", "f64", "f16", "bf16"] if d in typed[0]]
    lines = [(b, [spread([run[d][b] for run in typed if b in run[d]], "%.1f") for d in types]) for b in ["cpu/exact/parallel", "cpu/pool/simd"]]
    lines.append(("exact / pool", [spread([run[d]["cpu/exact/parallel"] / run[d]["cpu/pool/simd"] for run in typed
                                           if "cpu/exact/parallel" in run[d] and "cpu/pool/simd" in run[d]]) for d in types]))
    table("n=%s, %s threads, GB/s by element type; exact/parallel over pool/simd (target >= 0.97)" % (size(first["n"]), first["threads"]),
          types, lines)
EOF
