#!/usr/bin/env bash
# The CPU sweeps of cpu/PERFORMANCE.md, on this machine: builds, then appends
#   results/<machine>.csv          --backend=cpu, 2^10..2^30 elements, threads 1, 2, 4, ... and
#                                  all hardware threads (the ceiling and the scaling curves);
#   results/latency/<machine>.csv  --backend=cpu, 16 floats per thread at the same thread counts
#                                  (the dispatch_latency plot; apart, so that its tiny sizes stay
#                                  out of the other plots);
# and redraws results/plots/. Run it on a quiet machine: other processes on its cores slow the
# static-chunk backends' slowest thread, and the runs then measure them. 9 repetitions instead of the
# rules' 5: the ceiling's 2% is judged from these rows, and on shared VMs one interleaved
# repetition moves by several per cent. Extra arguments go to accumulate_bench and win.
#   scripts/cpu_sweeps.sh
#   THREADS=1,2 scripts/cpu_sweeps.sh      # other thread counts
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/build_deps.sh"
build_release
machine="$(build/release/accumulate_bench --machine)"
if [[ -z "${THREADS:-}" ]]; then
    cpus="$(nproc)"
    THREADS=1
    for ((t = 2; t < cpus; t *= 2)); do THREADS+=",$t"; done
    ((cpus > 1)) && THREADS+=",$cpus"
fi
mkdir -p results/latency
run() {
    echo "[cpu sweeps] build/release/accumulate_bench $*" >&2
    build/release/accumulate_bench "$@"
}
status=0
run --backend=cpu --sizes=2^10..2^30 --threads="$THREADS" --csv="results/$machine.csv" --benchmark_repetitions=9 "$@" || status=$?
run --backend=cpu --sizes=per-thread:16 --threads="$THREADS" --csv="results/latency/$machine.csv" --benchmark_repetitions=9 "$@" || status=$?
"$REPO_ROOT/scripts/plot.sh"
exit "$status"
