"""Tests of plot/plot.py, plot/compare.py and plot/shootout_csv.py on the fixture in data/.

The fixture (written by make_fixture.py) has two hosts; its traps are described there."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PLOT_DIR = HERE.parent
sys.path.insert(0, str(PLOT_DIR))

import shootout_csv as sc  # noqa: E402

RYZEN = HERE / "data" / "ws-ryzen.csv"
XEON = HERE / "data" / "lab-xeon.csv"
PLOTS = ["gbps", "error", "hardware", "ladder", "scaling"]


def run(script: str, *args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PLOT_DIR / script), *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def plotted(tmp_path_factory):
    out = tmp_path_factory.mktemp("plots")
    result = run("plot.py", RYZEN, XEON, "--out", out)
    assert result.returncode == 0, result.stderr
    return out, result


def summary_row(text: str, heading: str, n: str) -> list[str]:
    """The cells of the row for size n under the '## ...heading' section of summary.md."""
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == n:
            return cells
    raise AssertionError(f"no row {n} under {heading!r}")


# ---------------------------------------------------------------------------------------------
# Every output file


def test_every_plot_is_written_as_png_and_svg(plotted):
    out, _ = plotted
    for name in PLOTS:
        png = (out / f"{name}.png").read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n"), name
        assert len(png) > 20_000, f"{name}.png is suspiciously small"
        svg = (out / f"{name}.svg").read_text()
        assert "<svg" in svg and svg.rstrip().endswith("</svg>"), name
    assert (out / "summary.md").read_text().startswith("# Accumulate shootout")
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"{n}.{e}" for n in PLOTS for e in ("png", "svg")] + ["summary.md"])


def test_plots_carry_their_reference_lines_and_labels(plotted):
    out, _ = plotted
    gbps = (out / "gbps.svg").read_text()
    assert "ceiling: cpu/baseline/read" in gbps
    assert "ceiling: cuda/baseline/read" in gbps
    assert "theoretical peak 1008.1 GB/s" in gbps and "theoretical peak 1555.2 GB/s" in gbps
    assert "cuda/cub (+h2d)" in gbps
    assert "cuda/ladder" not in gbps  # the ladder has its own plot
    assert "throughput [GB/s]" in gbps and "4 GiB" in gbps and "4 KiB" in gbps
    error = (out / "error.svg").read_text()
    assert "0 (exact)" in error  # exact zeros have a row of their own
    assert ">nan<" in error  # so do NaN errors
    assert "input: file:nan-inf" in error and "input: normal" in error
    hardware = (out / "hardware.svg").read_text()
    assert "ws-ryzen.csv — ws-ryzen" in hardware and "lab-xeon.csv — lab-xeon" in hardware
    ladder = (out / "ladder.svg").read_text()
    steps = [m.group(1) for m in re.finditer(r">(\d\d)-[a-z-]+<", ladder)]
    assert steps[:12] == [f"{i:02d}" for i in range(1, 13)]  # ordered by number
    # ws-ryzen at 2^30: step 02 (179 GB/s) over step 01 (113 GB/s)
    assert "×1.58" in ladder


def test_one_machine_skips_the_hardware_comparison_and_removes_a_stale_one(tmp_path):
    (tmp_path / "hardware.png").write_bytes(b"old")
    result = run("plot.py", RYZEN, "--out", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "hardware comparison skipped" in result.stderr
    assert not (tmp_path / "hardware.png").exists()
    assert (tmp_path / "gbps.png").exists() and (tmp_path / "ladder.png").exists()


# ---------------------------------------------------------------------------------------------
# The summary


def test_summary_names_the_fastest_cpu_backend_by_the_newest_rows_at_most_threads(plotted):
    out, _ = plotted
    text = (out / "summary.md").read_text()
    row = summary_row(text, "ws-ryzen: AMD Ryzen 9 7950X 16-Core Processor — cpu", "2^24")
    # Not cpu/baseline/read (the ceiling), not cpu/tbb/reduce (its stale 70 GB/s rows are older),
    # and openmp at 32 threads (60.6 GB/s), not at its faster 16 threads (63 GB/s).
    assert row[2] == "`cpu/openmp/reduction`"
    assert row[3] == "60.6"
    assert row[4] == "98%"  # 60.595 / 61.832 (cpu/baseline/read at 32 threads)
    assert row[5] == "32"
    assert row[6] == "`cpu/serial/accumulate-f64`"
    row = summary_row(text, "lab-xeon: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz — cpu", "2^24")
    assert row[2] == "`cpu/openmp/reduction`" and row[5] == "64"


def test_summary_names_the_fastest_gpu_backend_and_keeps_h2d_apart(plotted):
    out, _ = plotted
    text = (out / "summary.md").read_text()
    row = summary_row(text, "ws-ryzen: NVIDIA GeForce RTX 4090 — cuda", "2^30")
    assert row[2] == "`cuda/shuffle`" and row[3] == "916"
    assert row[4] == "98%"
    row = summary_row(text, "ws-ryzen: NVIDIA GeForce RTX 4090 — cuda+h2d", "2^30")
    assert row[2] == "`cuda/shuffle`" and float(row[3]) < 30  # PCIe-bound, not the 916 above
    assert row[4].startswith("—")  # no cuda+h2d baseline/read in the fixture
    assert "## lab-xeon: NVIDIA A100-SXM4-40GB — cuda+h2d" not in text


def test_summary_most_accurate_reports_exact_ties_and_errors(plotted):
    out, _ = plotted
    text = (out / "summary.md").read_text()
    row = summary_row(text, "ws-ryzen: AMD Ryzen 9 7950X 16-Core Processor — cpu", "2^16")
    # kahan and accumulate-f64 are both exact on every input at 2^16: a tie, named
    assert row[6] == "`cpu/serial/kahan`, `cpu/serial/accumulate-f64` (tied)" or \
        row[6] == "`cpu/serial/accumulate-f64`, `cpu/serial/kahan` (tied)"
    assert row[7] == "0 (exact)"
    row = summary_row(text, "ws-ryzen: NVIDIA GeForce RTX 4090 — cuda", "2^20")
    assert row[6] == "`cuda/cub`"
    assert math.isclose(float(row[7]), 30 * 5e-9 * 20, rel_tol=1e-2)  # worst: normal input


# ---------------------------------------------------------------------------------------------
# The rules in shootout_csv


def test_newest_row_wins_over_an_older_repeat():
    df = sc.read_csvs([str(RYZEN)])
    speed = sc.speed_table(df)
    tbb = speed[(speed["backend"] == "cpu/tbb/reduce") & (speed["n"] == 2**24)]
    assert len(tbb) == 1
    assert tbb["gbps"].iloc[0] < 60  # not the 70 GB/s of the older run


def test_one_host_name_in_two_files_is_two_machines(tmp_path):
    # Cloud VMs are often all "vm": the same host name in two files must not merge two machines.
    for name in ["a.csv", "b.csv"]:
        text = RYZEN.read_text().replace("ws-ryzen", "vm")
        (tmp_path / name).write_text(text)
    df = sc.read_csvs([str(tmp_path / "a.csv"), str(tmp_path / "b.csv")])
    assert set(df["host"]) == {"vm (a)", "vm (b)"}
    assert set(sc.read_csvs([str(tmp_path / "a.csv")])["host"]) == {"vm"}


def test_speed_is_the_median_over_seeds_and_inputs():
    df = sc.read_csvs([str(RYZEN)])
    speed = sc.speed_table(df)
    kahan = speed[(speed["backend"] == "cpu/serial/kahan") & (speed["n"] == 2**20)]
    # ones, uniform, normal at 1.40 GB/s and uniform seeds 1 and 2 at 1.50 and 1.20: the median
    # is 1.40 (max 1.50, min 1.20, mean 1.38)
    assert kahan["gbps"].iloc[0] == pytest.approx(1.40)
    assert kahan["samples"].iloc[0] == 5


def test_threads_filter_takes_the_largest_count_not_above_it():
    df = sc.read_csvs([str(RYZEN)])
    speed = sc.speed_table(df, threads=16)
    omp = speed[(speed["backend"] == "cpu/openmp/reduction") & (speed["n"] == 2**24)]
    assert omp["threads"].tolist() == [16] and omp["gbps"].iloc[0] == pytest.approx(63.0)
    serial = speed[(speed["backend"] == "cpu/serial/kahan") & (speed["n"] == 2**24)]
    assert serial["threads"].tolist() == [1]


def test_error_table_keeps_zero_and_nan():
    err = sc.error_table(sc.read_csvs([str(RYZEN)]))
    kahan_ones = err[(err["backend"] == "cpu/serial/kahan") & (err["input"] == "ones")]
    assert (kahan_ones["rel_error"] == 0).all() and len(kahan_ones) == 5
    nan_rows = err[err["input"] == "file:nan-inf"]
    assert len(nan_rows) == 3 and nan_rows["rel_error"].isna().all()
    assert not err["backend"].str.contains("baseline").any()
    assert not (err["device"] == "cuda+h2d").any()


def test_ladder_steps_sort_by_number():
    names = ["cuda/ladder/10-grid-stride", "cuda/ladder/02-interleaved-shared",
             "cuda/ladder/01-interleaved-global", "cuda/cub"]
    assert sc.sort_backends(names) == ["cuda/cub", "cuda/ladder/01-interleaved-global",
                                       "cuda/ladder/02-interleaved-shared",
                                       "cuda/ladder/10-grid-stride"]


# ---------------------------------------------------------------------------------------------
# compare.py


def test_compare_prints_both_speeds_and_the_ratio():
    result = run("compare.py", RYZEN, XEON, "--backend", "cuda/cub")
    assert result.returncode == 0, result.stderr
    line = next(l for l in result.stdout.splitlines() if l.startswith("cuda/cub ") and "2^30" in l)
    cells = line.split()
    # cuda/cub at 2^30: 911 GB/s on the 4090, 1355 on the A100
    assert cells[-3:] == ["911", "1355", "1.49x"]
    assert "A = ws-ryzen.csv: host ws-ryzen" in result.stdout
    h2d = next(l for l in result.stdout.splitlines() if l.startswith("cuda/cub (+h2d)") and "2^30" in l)
    assert h2d.split()[-2:] == ["—", "—"]  # measured in A only


def test_compare_markdown():
    result = run("compare.py", RYZEN, XEON, "--backend", "cpu/serial/kahan", "--markdown")
    assert result.returncode == 0, result.stderr
    assert "| cpu/serial/kahan | 2^24 | 64 MiB | 1 | 1.40 | 0.87 | 0.62x |" in result.stdout


# ---------------------------------------------------------------------------------------------
# Bad input: a clear message, exit status 2, no traceback

HEADER = ",".join(sc.COLUMNS)


def with_field(line: str, index: int, value: str) -> str:
    fields = line.split(",")
    fields[index] = value
    return ",".join(fields)


def bad_files(tmp: Path) -> dict[str, Path]:
    good = RYZEN.read_text().splitlines()
    files = {
        "empty": "",
        "header_only": HEADER + "\n",
        "missing_columns": "\n".join(",".join(c for i, c in enumerate(line.split(","))
                                              if i not in (13, 19)) for line in good[:5]) + "\n",
        "not_a_number": "\n".join(good[:3] + [with_field(good[3], 13, "fast")]) + "\n",
        "bad_timestamp": "\n".join(good[:2] + ["yesterday" + good[2][20:]]) + "\n",
    }
    paths = {}
    for name, text in files.items():
        paths[name] = tmp / f"{name}.csv"
        paths[name].write_text(text)
    return paths


@pytest.mark.parametrize("script", ["plot.py", "compare.py"])
@pytest.mark.parametrize("case, message", [
    ("empty", "empty.csv: empty file"),
    ("header_only", "header_only.csv: empty file: a header but no data rows"),
    ("missing_columns", "missing_columns.csv: missing column(s): gbps, rel_error"),
    ("not_a_number", "not_a_number.csv line 4: column gbps is not a number: 'fast'"),
    ("bad_timestamp", "bad_timestamp.csv line 3: column timestamp is not an ISO-8601 time"),
    ("no_such_file", "no_such_file.csv: no such file"),
])
def test_bad_file_gives_its_message(tmp_path, script, case, message):
    paths = bad_files(tmp_path)
    path = paths.get(case, tmp_path / f"{case}.csv")
    args = [path, "--out", tmp_path / "out"] if script == "plot.py" else [RYZEN, path]
    result = run(script, *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stderr.startswith("error: ")
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out" / "gbps.png").exists()


@pytest.mark.parametrize("args, message", [
    (["--backend", "cpu/avx512/*"], "no rows match the filter --backend cpu/avx512/*"),
    (["--input", "gaussian"], "no rows match the filter --input gaussian (inputs present: "
                              "file:nan-inf, normal, ones, uniform)"),
    (["--host", "nosuchhost"], "no rows match the filter --host nosuchhost (hosts present: "
                               "ws-ryzen)"),
    (["--device", "cuda", "--backend", "cpu/*"], "no rows match the filter --backend cpu/* "
                                                 "--device cuda"),
])
def test_filter_matching_nothing_gives_its_message(tmp_path, args, message):
    for script, base in [("plot.py", [RYZEN, "--out", tmp_path]), ("compare.py", [RYZEN, XEON])]:
        if script == "compare.py" and args[0] == "--host":
            args = ["--host-a", args[1]]
        result = run(script, *base, *args)
        assert result.returncode == 2, (script, result.stdout)
        assert message in result.stderr, (script, result.stderr)
        assert "Traceback" not in result.stderr


def test_compare_needs_a_host_when_a_file_holds_several(tmp_path):
    both = tmp_path / "both.csv"
    both.write_text(RYZEN.read_text() + "".join(XEON.read_text().splitlines(True)[1:]))
    result = run("compare.py", both, XEON)
    assert result.returncode == 2
    assert "both.csv: rows from several hosts (lab-xeon, ws-ryzen); pick one with --host-a" \
        in result.stderr
    result = run("compare.py", both, XEON, "--host-a", "ws-ryzen")
    assert result.returncode == 0, result.stderr


def test_no_csv_under_results_gives_its_message(tmp_path, monkeypatch):
    monkeypatch.setattr(sc, "REPO_ROOT", tmp_path)
    with pytest.raises(sc.InputError, match="no CSV files match .*results/\\*.csv"):
        sc.expand_paths([])
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "a.csv").write_text("x")
    assert sc.expand_paths([]) == [tmp_path / "results" / "a.csv"]


def test_scripts_parse():
    root = PLOT_DIR.parent
    for script in ["plot.sh", "test_plot.sh", "venv.sh"]:
        result = subprocess.run(["bash", "-n", str(root / "scripts" / script)],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
