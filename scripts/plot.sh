#!/usr/bin/env bash
# Draws the plots and summary from the benchmark CSVs.
#   scripts/plot.sh                         # results/*.csv -> results/plots/
#   scripts/plot.sh a.csv b.csv --out DIR   # any plot/plot.py arguments (see --help)
# Sets up build/venv with the pinned packages of plot/requirements.txt first.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
venv_ensure
cd "$REPO_ROOT"
echo "[plot] python plot/plot.py $*" >&2
exec "$VENV_PYTHON" plot/plot.py "$@"
