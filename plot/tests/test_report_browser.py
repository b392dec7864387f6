"""report.html in a real browser: headless Chromium (the distribution's, /usr/bin/chromium, or
SHOOTOUT_CHROMIUM) driven by Playwright loads the file, logs no console error and fetches nothing
from the network, draws the fixture's traces, and its menus filter them.

Skipped, with the reason, where Playwright or Chromium is missing, unless SHOOTOUT_BROWSER_TEST=required
(CI: scripts/ci_report.sh), which makes that a failure."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PLOT_DIR = HERE.parent
DATA = HERE / "data"
REQUIRED = os.environ.get("SHOOTOUT_BROWSER_TEST") == "required"


def chromium() -> str | None:
    return os.environ.get("SHOOTOUT_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def unavailable(reason: str):
    if REQUIRED:
        pytest.fail(f"SHOOTOUT_BROWSER_TEST=required, but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("Playwright is not installed (plot/requirements.txt)")
    browser_path = chromium()
    if not browser_path:
        unavailable("no Chromium (apt-get install chromium)")
    out = tmp_path_factory.mktemp("report")
    result = subprocess.run([sys.executable, str(PLOT_DIR / "plot.py"), DATA / "ws-ryzen.csv", DATA / "h100.csv",
                             DATA / "h200x4.csv", "--out", out], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
        tab = browser.new_page()
        events = {"errors": [], "requests": []}
        tab.on("console", lambda m: events["errors"].append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda e: events["errors"].append(str(e)))
        tab.on("request", lambda r: events["requests"].append(r.url))
        tab.goto((out / "report.html").as_uri())
        tab.wait_for_selector("#shootout-report .scatterlayer .trace", timeout=60_000)
        yield tab, events
        browser.close()


def traces(tab) -> list[dict]:
    return tab.evaluate("""() => document.getElementById('shootout-report').data.map(
        t => ({name: t.name, meta: t.meta, visible: t.visible === undefined ? true : t.visible}))""")


def test_the_report_loads_with_no_console_error_and_no_network(page):
    tab, events = page
    assert events["errors"] == []
    assert [u for u in events["requests"] if not u.startswith(("file:", "data:", "blob:"))] == []


def test_the_report_draws_every_series_with_its_hover(page):
    tab, _ = page
    shown = traces(tab)
    names = [t["name"] for t in shown]
    assert any(n.startswith("cuda/single-pass (batched) — h100, uniform") for n in names)
    assert any(n.startswith("nccl/sum (batched, 4 GPUs) — h200x4") for n in names)
    assert any(n.startswith("cpu/serial/kahan (isolated) — ws-ryzen, ones") for n in names)
    assert {t["meta"]["machine"] for t in shown} == {"h100", "h200x4", "ws-ryzen"}
    drawn = tab.evaluate("document.querySelectorAll('#shootout-report .scatterlayer .trace').length")
    assert drawn == len(shown)
    template = tab.evaluate("document.getElementById('shootout-report').data[0].hovertemplate")
    for part in ("size", "GB/s", "relative error", "version"):
        assert part in template


def test_the_menus_filter_by_machine_device_element_type_and_input(page):
    tab, _ = page
    for key in ("machine", "device", "dtype", "input"):
        assert tab.locator(f"#filter-{key}").count() == 1
    tab.select_option("#filter-machine", "h100")
    visible = [t for t in traces(tab) if t["visible"] is True]
    assert visible and all(t["meta"]["machine"] == "h100" for t in visible)
    tab.select_option("#filter-device", "cpu")  # the H100 fixture has no CPU rows
    assert not [t for t in traces(tab) if t["visible"] is True]
    tab.select_option("#filter-machine", "ws-ryzen")
    tab.select_option("#filter-input", "ones")
    visible = [t for t in traces(tab) if t["visible"] is True]
    assert visible and all(t["meta"]["device"] == "cpu" and t["meta"]["input"] == "ones" for t in visible)
    tab.select_option("#filter-dtype", "f32")  # ws-ryzen.csv is float32 only: the same traces
    assert [t for t in traces(tab) if t["visible"] is True] == visible
    for key in ("machine", "device", "dtype", "input"):
        tab.select_option(f"#filter-{key}", "all")
    assert all(t["visible"] is True for t in traces(tab))
