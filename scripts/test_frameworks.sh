#!/usr/bin/env bash
# Runs the framework runner's tests (frameworks/tests) in build/venv against build/release's
# accumulate_bench (scripts/test.sh builds it first). The GPU frameworks' tests run where this
# Python has the framework and a GPU, and are skipped, with the reason, elsewhere.
# Extra arguments go to pytest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
venv_ensure
cd "$REPO_ROOT"
export SHOOTOUT_BENCH="${SHOOTOUT_BENCH:-$REPO_ROOT/build/release/accumulate_bench}"
echo "[framework tests] python -m pytest frameworks/tests -q -rs $*" >&2
exec "$VENV_PYTHON" -m pytest frameworks/tests -q -rs "$@"
