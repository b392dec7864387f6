#!/usr/bin/env bash
# The main job: build, run accumulate_bench --backend=all over the default sweep, appending to
# results/<machine>.csv (accumulate_bench --machine: host name and hardware fingerprint, so two VMs
# named alike never share a file), then the framework rows (frameworks/: NumPy, and PyTorch, CuPy,
# JAX and CCCL Python where python3 has them and a GPU) on the same inputs into the same file, then
# redraw results/plots/ and print this machine against the reference machines of results/*.csv.
# Extra arguments go to both (the runner passes over those not its own).
#
#   scripts/run.sh          the default sweep: every backend at 2^10, 2^16, 2^20 and 2^24 elements
#                           (a size in each band of the comparison: call overhead and first caches,
#                           last-level caches, memory; sizes the reference machines measured); without
#                           a CUDA GPU, OpenCL and Vulkan run on PoCL and lavapipe, and their batched
#                           cases (1024 calls per timed region on the CPU) and their 2^24 cases (a
#                           large fraction of a second a call) are left out
#   scripts/run.sh --full   every size from 2^10 to 2^26 and every case
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/build_deps.sh"
full=0
args=()
for arg in "$@"; do
    if [[ $arg == --full ]]; then full=1; else args+=("$arg"); fi
done
build_release accumulate_bench  # only the program: the tests are scripts/test.sh's
bench=build/release/accumulate_bench
csv="results/$($bench --machine).csv"
sweep=()
if ((!full)); then
    sweep=(--sizes=2^10,2^16,2^20,2^24)  # the sizes results/*.csv's machines have, for the comparison
    if ! $bench --list 2>/dev/null | grep -Eq '^cuda/[^ ]+ +cuda +available'; then
        # Google Benchmark's names end /manual_time: n:16777216/ is 2^24, batched/ the timing.
        sweep+=("--benchmark_filter=-^(opencl|vulkan)/(.*/batched/|.*/n:$((1 << 24))/)")
    fi
fi
echo "[run] $bench --backend=all --csv=$csv ${sweep[*]} ${args[*]}" >&2
status=0
$bench --backend=all --csv="$csv" "${sweep[@]}" "${args[@]}" || status=$?
# The frameworks a user has are python3's; where it lacks NumPy, the plot venv's NumPy gives the
# numpy/* rows and the others are listed unavailable.
python=python3
if ! python3 -c 'import numpy' >/dev/null 2>&1; then
    source "$REPO_ROOT/scripts/venv.sh"
    venv_ensure
    python=$VENV_PYTHON
fi
framework_sweep=("${sweep[@]:0:1}")  # the sizes: the filter is the harness's own
echo "[run] $python frameworks/accumulate_frameworks.py --csv=$csv ${framework_sweep[*]} ${args[*]}" >&2
"$python" frameworks/accumulate_frameworks.py --bench=$bench --csv="$csv" "${framework_sweep[@]}" "${args[@]}" || status=$?
# Redraw even when some case was skipped (exit 1): the rows that were measured are in the CSV.
"$REPO_ROOT/scripts/plot.sh"
echo >&2
source "$REPO_ROOT/scripts/venv.sh"
"$VENV_PYTHON" plot/compare.py --references "$csv" || status=$?
exit "$status"
