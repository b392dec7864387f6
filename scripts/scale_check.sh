#!/usr/bin/env bash
# What one call on a multi-GPU machine runs from a carried bundle (scripts/bundle.sh) for the
# scale-out backends: the GPUs and their links, the multi-GPU tests (scale_out_test: nccl/* at every
# GPU count, mpi/* on one rank) and the mpirun check (mpi_ranks_test.py: mpi/* incl. mpi/cuda under
# mpirun -np 1, 2, 3), then the sweep `nccl/*,cuda/cub,cuda/single-pass` over --gpus and sizes (both
# timings) and mpi/cuda under mpirun -np 1, 2, 4 .. one rank per GPU. Logs and CSVs go to $OUT (default
# ./scale-check); a short table of GB/s per GPU count and rank count is printed last.
#
#   scripts/scale_check.sh [BUNDLE_DIR]
#   env: GPUS (default 1,2), SIZES (default 2^20..2^32), REPS (default 5), RANKS (the most ranks;
#        default: the GPU count), STEPS (default "tests bench mpi": any subset)
#
# NCCL's environment is left as the machine sets it (NCCL_NVLS_ENABLE=0 there: no NVLink multicast).
# The machine's own OpenMPI is used (the bundle never carries MPI): its mpirun, and its libmpi found
# through mpicc --showme:libdirs when that is not on the loader's path.
set -uo pipefail

bundle=$(cd "${1:-bundle}" && pwd)
out=${OUT:-scale-check}
gpus=${GPUS:-1,2}
sizes=${SIZES:-2^20..2^32}
reps=${REPS:-5}
steps=${STEPS:-tests bench mpi}
mkdir -p "$out"
summary=()
note() { summary+=("$*"); }

nvidia-smi -L | tee "$out/gpu.txt"
nvidia-smi topo -m >> "$out/gpu.txt" 2>&1
env | grep -E '^NCCL_' >> "$out/gpu.txt"
visible=$(nvidia-smi -L | grep -c '^GPU')
ranks=${RANKS:-$visible}
note "$visible GPUs: $(head -1 "$out/gpu.txt"); $(env | grep -E '^NCCL_' | tr '\n' ' ')"

mpirun=(mpirun --oversubscribe)
[[ $(id -u) -eq 0 ]] && mpirun+=(--allow-run-as-root)
source "$(dirname "${BASH_SOURCE[0]}")/machine_libs.sh"
note "mpirun: $(command -v mpirun || echo none) $(mpirun --version 2>/dev/null | head -1)"

if [[ $steps == *tests* ]]; then
    timeout 580 "$bundle/scale_out_test" > "$out/scale_out_test.log" 2>&1
    note "scale_out_test: rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$out/scale_out_test.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$out/scale_out_test.log" | head -20
    # nccl/exact and mpi/exact against the CPU and CUDA exact backends, bit for bit (one GPU, one rank)
    timeout 580 "$bundle/exact_backends_test" --gtest_filter='*nccl*:*mpi*' > "$out/exact_scale_out.log" 2>&1
    note "exact_backends_test (nccl, mpi): rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$out/exact_scale_out.log" | tr '\n' ' ')"
    timeout 580 python3 "$bundle/mpi_ranks_test.py" "$bundle/accumulate_bench" > "$out/mpi_ranks_test.log" 2>&1
    note "mpi_ranks_test: rc=$? $(tail -1 "$out/mpi_ranks_test.log")"
fi

if [[ $steps == *bench* ]]; then
    "$bundle/accumulate_bench" --backend='nccl/*,cuda/cub,cuda/single-pass' --gpus="$gpus" --sizes="$sizes" \
        --benchmark_repetitions="$reps" --csv="$out/nccl.csv" >> "$out/bench.log" 2>&1
    note "bench: rc=$? $(grep -c . "$out/nccl.csv") csv lines; failures: $(grep -c FAILED "$out/bench.log")"
fi

if [[ $steps == *mpi* ]]; then
    # 1, 2, 4, ... ranks up to RANKS, and RANKS itself: the rank axis of the scaling picture.
    counts=()
    for ((r = 1; r < ranks; r *= 2)); do counts+=("$r"); done
    counts+=("$ranks")
    for r in "${counts[@]}"; do
        timeout 580 "${mpirun[@]}" -np "$r" "$bundle/accumulate_bench" --backend=mpi/cuda --sizes="$sizes" \
            --benchmark_repetitions="$reps" --csv="$out/mpi.csv" >> "$out/mpi.log" 2>&1
        note "mpirun -np $r mpi/cuda: rc=$? $(grep -c . "$out/mpi.csv") csv lines so far"
    done
fi

# Per backend, timing and size: GB/s at each GPU (or rank) count and the scaling against one.
python3 - "$out"/nccl.csv "$out"/mpi.csv > "$out/table.txt" 2>/dev/null <<'PY'
import csv, sys, os
rows = [r for p in sys.argv[1:] if os.path.exists(p) for r in csv.DictReader(open(p))]
series = {}
for r in rows:
    count = int(r["ranks"]) if r["backend"].startswith("mpi/") else int(r["gpus"])
    series.setdefault((r["backend"], r["timing"], int(r["n"])), {})[count] = float(r["gbps"])
print(f"{'backend':<18} {'timing':<8} {'n':>6} {'GB/s by count (x speed-up over 1)':<60}")
for (backend, timing, n), by_count in sorted(series.items()):
    one = by_count.get(1)
    cells = [f"{k}: {v:8.1f}" + (f" ({v / one:4.2f}x)" if one and k > 1 else "") for k, v in sorted(by_count.items())]
    size = f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)
    print(f"{backend:<18} {timing:<8} {size:>6} {'   '.join(cells)}")
PY

echo "==== summary"
printf '%s\n' "${summary[@]}"
grep -E '^backend| 2\^(20|24|28|31|32) ' "$out/table.txt"
exit 0
