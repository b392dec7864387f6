#!/usr/bin/env bash
# The main job: build, run accumulate_bench --backend=all over the default sweep, appending to
# results/<machine>.csv (accumulate_bench --machine: host name and hardware fingerprint, so two VMs
# named alike never share a file), then the framework rows (frameworks/: NumPy, and PyTorch, CuPy,
# JAX and CCCL Python where python3 has them and a GPU) on the same inputs into the same file, then
# redraw results/plots/. Extra arguments go to both (the runner passes over those not its own).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/build_deps.sh"
build_release
csv="results/$(build/release/accumulate_bench --machine).csv"
echo "[run] build/release/accumulate_bench --backend=all --csv=$csv $*" >&2
status=0
build/release/accumulate_bench --backend=all --csv="$csv" "$@" || status=$?
# The frameworks a user has are python3's; where it lacks NumPy, the plot venv's NumPy gives the
# numpy/* rows and the others are listed unavailable.
python=python3
if ! python3 -c 'import numpy' >/dev/null 2>&1; then
    source "$REPO_ROOT/scripts/venv.sh"
    venv_ensure
    python=$VENV_PYTHON
fi
echo "[run] $python frameworks/accumulate_frameworks.py --csv=$csv $*" >&2
"$python" frameworks/accumulate_frameworks.py --bench=build/release/accumulate_bench --csv="$csv" "$@" || status=$?
# Redraw even when some case was skipped (exit 1): the rows that were measured are in the CSV.
"$REPO_ROOT/scripts/plot.sh"
exit "$status"
