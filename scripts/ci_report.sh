#!/usr/bin/env bash
# CI: results/report.html's test in a real browser (plot/tests/test_report_browser.py): headless
# Chromium from the distribution, driven by Playwright from the plot venv, loads the report drawn
# from the fixture, finds no console error and no network request, the opening view, each view
# drawn and the URL's fragment opening the view it names. Required here: a missing browser fails
# the step instead of skipping the test.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/build_deps.sh"
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
BUILD_PACKAGES=([chromium]="command -v chromium")
install_missing_packages
venv_ensure
cd "$REPO_ROOT"
echo "[ci] report: python -m pytest plot/tests/test_report_browser.py" >&2
SHOOTOUT_BROWSER_TEST=required "$VENV_PYTHON" -m pytest plot/tests/test_report_browser.py -q
