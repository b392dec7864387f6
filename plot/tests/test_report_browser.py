"""report.html in a real browser: headless Chromium (the distribution's, /usr/bin/chromium, or
SHOOTOUT_CHROMIUM) driven by Playwright loads the file, logs no console error and fetches nothing
from the network, opens on one machine and device with each family's fastest reduction and the
ceiling as a line, draws every view, and keeps every filter in the URL.

Skipped, with the reason, where Playwright or Chromium is missing, unless SHOOTOUT_BROWSER_TEST=required
(CI: scripts/ci_report.sh), which makes that a failure."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs

import pytest

HERE = Path(__file__).resolve().parent
PLOT_DIR = HERE.parent
DATA = HERE / "data"
REQUIRED = os.environ.get("SHOOTOUT_BROWSER_TEST") == "required"
VIEWS = ["speed", "error", "accuracy", "machines", "table"]
RYZEN = "ws-ryzen-3f9a0c71"  # ws-ryzen.csv's machine value


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
        yield tab, events, (out / "report.html").as_uri()
        browser.close()


def traces(tab) -> list[dict]:
    return tab.evaluate("""() => document.getElementById('shootout-report').data.map(
        t => ({name: t.name, n: t.x.length, text: t.text || [], symbol: (t.marker || {}).symbol}))""")


def state(tab) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(tab.evaluate("location.hash").lstrip("#")).items()}


def open_at(tab, uri: str, fragment: str) -> None:
    tab.goto(uri + "#" + fragment)
    tab.reload()  # a fragment change alone does not reload the page: opening the link does
    tab.wait_for_function("document.getElementById('filters').children.length > 0")


def test_the_report_has_a_title_and_loads_with_no_console_error_and_no_network(page):
    tab, events, _ = page
    assert tab.title() == "Accumulate Shootout — report"
    assert events["errors"] == []
    assert [u for u in events["requests"] if not u.startswith(("file:", "data:", "blob:"))] == []


def test_it_opens_on_one_gpu_with_each_familys_fastest_reduction_and_the_roofline(page):
    tab, _, uri = page
    open_at(tab, uri, "")
    s = state(tab)
    # the machine whose CUDA reduction reached the most GB/s (the fixture's H200 node)
    assert (s["view"], s["machine"], s["device"], s["dtype"], s["timing"], s["backends"]) == \
        ("speed", "h200x4-5c6d7e8f", "cuda", "f32", "batched", "fastest of each family")
    open_at(tab, uri, "machine=h100-7a8b9c0d")
    names = [t["name"] for t in traces(tab)]
    ceilings = [n for n in names if n.startswith("ceiling")]
    assert ceilings == ["ceiling — roofline: bytes / max(launch floor, bytes / best read)"]
    backends = [n for n in names if not n.startswith(("ceiling", "theoretical peak"))]
    # one per family (accumulator) of the H100's float32 CUDA reductions: not every backend
    assert "cuda/single-pass" in backends and "cuda/exact" in backends
    assert not [n for n in backends if "baseline" in n]  # no launch floor or read drawn as a backend
    tab.select_option("#filter-backends", "all reductions")
    every = [t["name"] for t in traces(tab)]
    assert len(every) > len(names) and "cuda/cub" in every
    assert state(tab)["backends"] == "all reductions"


def test_every_view_draws_and_the_url_says_which(page):
    tab, events, uri = page
    open_at(tab, uri, "machine=h100-7a8b9c0d")
    for view in VIEWS:
        tab.click(f"#view-{view}")
        assert state(tab)["view"] == view
        if view == "table":
            assert tab.locator("#summary-table tbody tr").count() >= 5
            assert tab.locator("#shootout-report").is_hidden()
        else:
            drawn = tab.evaluate("document.querySelectorAll('#shootout-report .scatterlayer .trace').length")
            assert drawn > 0, view
            assert tab.locator("#shootout-report").is_visible()
    assert events["errors"] == []


def test_a_link_opens_the_view_it_names(page):
    tab, _, uri = page
    open_at(tab, uri, "view=error&machine=ws-ryzen-3f9a0c71&device=cpu&dtype=f32&input=ones&backends=all reductions")
    assert tab.locator("#view-error").get_attribute("class") == "active"
    assert tab.input_value("#filter-machine") == RYZEN
    assert tab.input_value("#filter-device") == "cpu"
    assert tab.input_value("#filter-input") == "ones"
    shown = traces(tab)
    assert shown and all("input ones" in text for t in shown for text in t["text"])
    assert any(t["name"] == "cpu/serial/kahan" for t in shown)
    # a value that is no option falls back to one that is, and the URL says which
    open_at(tab, uri, "view=speed&machine=no-such-machine&device=cuda")
    assert state(tab)["machine"] == "h200x4-5c6d7e8f"


def test_the_machine_view_draws_each_ratio_with_its_interval(page):
    tab, events, uri = page
    open_at(tab, uri, "view=machines&machine=h100-7a8b9c0d&vs=ws-ryzen-3f9a0c71&device=cuda&dtype=f32&timing=batched")
    assert state(tab)["vs"] == "ws-ryzen-3f9a0c71"
    shown = [t for t in traces(tab) if t["name"] != "equal"]
    assert shown
    texts = [x for t in shown for x in t["text"]]
    assert all(("95%:" in x) or ("noise unknown" in x) for x in texts)
    # each point's verdict (significance.py's), turned with the ratio when the machines swap sides
    assert all(any(v in x for v in ("faster", "slower", "same within noise", "noise unknown")) for x in texts)
    open_at(tab, uri, "view=machines&machine=ws-ryzen-3f9a0c71&vs=h100-7a8b9c0d&device=cuda&dtype=f32&timing=batched")
    swapped = [x for t in traces(tab) if t["name"] != "equal" for x in t["text"]]
    assert len(swapped) == len(texts) and any("faster" in x or "slower" in x for x in texts)
    assert sum("faster" in x for x in swapped) == sum("slower" in x for x in texts)
    assert sum("slower" in x for x in swapped) == sum("faster" in x for x in texts)
    assert events["errors"] == []
