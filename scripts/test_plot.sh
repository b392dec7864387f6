#!/usr/bin/env bash
# Runs the tests of the plot and compare scripts (plot/tests) in build/venv, a test file to each
# core (pytest-xdist: a file's module fixtures are drawn once). Extra arguments go to pytest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
venv_ensure
cd "$REPO_ROOT"
echo "[plot tests] python -m pytest plot/tests -q -n auto --dist loadfile $*" >&2
exec "$VENV_PYTHON" -m pytest plot/tests -q -n auto --dist loadfile "$@"
