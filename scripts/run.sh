#!/usr/bin/env bash
# The main job: build, run accumulate_bench --backend=all over the default sweep, appending to
# results/<machine>.csv (accumulate_bench --machine: host name and hardware fingerprint, so two VMs
# named alike never share a file), then redraw results/plots/. Extra arguments go to accumulate_bench.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/build_deps.sh"
build_release
csv="results/$(build/release/accumulate_bench --machine).csv"
echo "[run] build/release/accumulate_bench --backend=all --csv=$csv $*" >&2
status=0
build/release/accumulate_bench --backend=all --csv="$csv" "$@" || status=$?
# Redraw even when some case was skipped (exit 1): the rows that were measured are in the CSV.
"$REPO_ROOT/scripts/plot.sh"
exit "$status"
