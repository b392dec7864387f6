"""Tests of plot/plot.py, plot/compare.py and plot/shootout_csv.py on the fixture in data/.

The fixture (written by make_fixture.py) has two machines with GPUs, in vm.csv two CPU-only
machines sharing the host name "vm", and in h200x4.csv a four-GPU host with nccl/* and mpi/* rows
at several GPU and rank counts; its traps are described there."""

from __future__ import annotations

import contextlib
import csv
import importlib
import io
import math
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PLOT_DIR = HERE.parent
sys.path.insert(0, str(PLOT_DIR))

import shootout_csv as sc  # noqa: E402

RYZEN = HERE / "data" / "ws-ryzen.csv"
XEON = HERE / "data" / "lab-xeon.csv"
VM = HERE / "data" / "vm.csv"  # two machines, both host "vm"
LATENCY = HERE / "data" / "latency.csv"  # a --sizes=per-thread:16 run on ws-ryzen
VM_INTEL, VM_AMD = "vm-0a1b2c3d", "vm-9e8d7c6b"
PLOTS = ["gbps", "cost_model", "accuracy_speed", "dtypes", "error", "hardware", "portable", "scaling", "energy",
         "ladder", "gpu_timing", "dispatch_latency"]
H200X4 = HERE / "data" / "h200x4.csv"  # nccl/* at 1, 2, 4 GPUs; mpi/* at 1, 2 (4) ranks
F64 = HERE / "data" / "ws-ryzen-f64.csv"  # the dtype column: float64 series on ws-ryzen
H100 = HERE / "data" / "h100.csv"  # every column up to version; a launch floor; the cost model exactly
RYZEN_CPU = "ws-ryzen: AMD Ryzen 9 7950X 16-Core Processor — cpu"


def run(script: str, *args) -> subprocess.CompletedProcess:
    """plot/SCRIPT's main with these arguments, in this process as its command line runs it (sc.run_cli:
    bad input is one line and exit status 2): the libraries are imported once, not per run.
    test_output_files.py runs the scripts as processes (signals, locks, exit statuses)."""
    main = importlib.import_module(Path(script).stem).main
    argv = [str(arg) for arg in args]
    out, err = io.StringIO(), io.StringIO()
    status = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            sc.run_cli(lambda: main(argv))
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else 1
    return subprocess.CompletedProcess([script, *argv], status, out.getvalue(), err.getvalue())


def figures(*names: str) -> list[str]:
    """plot.py's arguments to draw only these figures: a test that checks one draws only it."""
    return [arg for name in names for arg in ("--figure", name)]


@pytest.fixture(scope="module")
def plotted(tmp_path_factory):
    out = tmp_path_factory.mktemp("plots")
    result = run("plot.py", RYZEN, XEON, F64, H100, "--latency-csv", LATENCY, "--out", out)
    assert result.returncode == 0, result.stderr
    return out, result


def rewrite(src: Path, dst: Path, change=None, extra: dict[str, str] | None = None,
            columns: list[str] | None = None) -> Path:
    """Writes dst: src's rows, each passed through change(row) (a dict; None drops it), with the
    `extra` columns appended, or only `columns`."""
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    fields = columns or (sc.COLUMNS + list(extra or {}))
    with open(dst, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        for row in rows:
            row = change(row) if change else row
            if row is not None:
                w.writerow({**row, **(extra or {})})
    return dst


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
        [f"{n}.{e}" for n in PLOTS for e in ("png", "svg")] + ["summary.md", "report.html"])


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG's header chunk."""
    head = path.read_bytes()[:24]
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def test_every_figure_has_the_readme_width_and_the_height_of_its_panels(plotted):
    """990 pixels wide (the README's column); as high as the fixture's panels make it: rows of panels
    of the module's height, and room for a legend under them where it has one."""
    from figures import accuracy_speed, cost_model, dispatch_latency, energy, error, gbps, gpu_timing, hardware, \
        ladder, portable, scaling
    import style
    out, _ = plotted
    expected = {
        gbps: (5, gbps.ROW_HEIGHT, 0),  # h100, lab-xeon cpu and cuda, ws-ryzen cpu and cuda
        cost_model: (5, cost_model.ROW_HEIGHT, 0),  # the three GPUs, and the H100 through OpenCL and Vulkan
        accuracy_speed: (2, accuracy_speed.ROW_HEIGHT, 0),  # three machines at uniform, two columns
        error: (2, error.ROW_HEIGHT, style.legend_height(14 + 2, 2)),  # four inputs; 14 families and 2 keys
        hardware: (3, hardware.ROW_HEIGHT, style.legend_height(3, 1)),  # six series, three machines
        portable: (1, portable.ROW_HEIGHT, style.legend_height(4, 4)),  # the H100, through CUDA, OpenCL, Vulkan
        scaling: (1, scaling.ROW_HEIGHT, 0),  # ws-ryzen's sweep
        energy: (1, energy.row_height(7), 0),  # the H100's seven series
        ladder: (2, ladder.row_height(12), 0),  # two machines
        gpu_timing: (3, gpu_timing.ROW_HEIGHT, 0),
        dispatch_latency: (1, dispatch_latency.ROW_HEIGHT, 0),
    }
    for module, (rows, row_height, extra) in expected.items():
        png = out / f"{module.NAME}.png"
        assert png.stat().st_size > 20_000, module.NAME
        assert png_size(png) == style.figure_pixels(rows, row_height, extra), module.NAME
        assert png_size(png)[0] == 990


def test_plots_carry_their_reference_lines_and_labels(plotted):
    out, _ = plotted
    gbps = (out / "gbps.svg").read_text()
    assert "ceiling: cpu/baseline/read" in gbps
    assert "ceiling: cuda/baseline/read" in gbps  # no launch floor measured there: the read
    assert "ceiling: max(launch floor 2 µs, bytes / 2995 GB/s)" in gbps  # the H100's roofline
    assert "theoretical peak 1008.1 GB/s" in gbps and "theoretical peak 1555.2 GB/s" in gbps
    assert "(+h2d)" not in gbps and "baseline/copy" not in gbps  # the report has them
    # the legend shows each backend's traits; a line per family (element type, accumulator): its
    # fastest series over the sizes, on ws-ryzen cpu/openmp/reduction for float32 on the CPU
    # (cpu/avx2/f32 is faster only below 2^16) and cuda/shuffle on the GPU (cuda/cub, cuda/thrust)
    assert "cpu/openmp/reduction · f32, thread_chunks" in gbps and "cpu/avx2/f32" not in gbps
    assert "cpu/serial/kahan · compensated_f32, sequential" in gbps
    assert "cuda/shuffle · f32, tree" in gbps and "cuda/thrust" not in gbps
    assert "cuda/ladder" not in gbps  # the ladder has its own plot
    assert "throughput [GB/s]" in gbps and "4 GiB" in gbps and "4 KiB" in gbps
    assert "bytes of float32 (bottom)" in gbps  # lab-xeon's panels: float32 only
    error = (out / "error.svg").read_text()
    assert "0 (exact)" in error  # exact zeros have a row of their own
    assert ">nan<" in error  # so do NaN errors
    assert "input: file:nan-inf" in error and "input: normal" in error
    hardware = (out / "hardware.svg").read_text()
    assert "ws-ryzen (AMD Ryzen 9 7950X" in hardware and "lab-xeon (Intel(R) Xeon(R)" in hardware
    assert "cuda/cub (batched)" in hardware
    ladder = (out / "ladder.svg").read_text()
    steps = [m.group(1) for m in re.finditer(r">(\d\d)-[a-z-]+<", ladder)]
    assert steps[:12] == [f"{i:02d}" for i in range(1, 13)]  # ordered by number
    # ws-ryzen at 2^30: step 02 (179 GB/s) over step 01 (113 GB/s)
    assert "×1.58" in ladder


def test_one_machine_skips_the_hardware_comparison_and_removes_a_stale_one(tmp_path):
    (tmp_path / "hardware.png").write_bytes(b"old")
    result = run("plot.py", RYZEN, "--out", tmp_path, *figures("hardware", "gbps", "ladder"))
    assert result.returncode == 0, result.stderr
    assert "hardware comparison skipped" in result.stderr
    assert not (tmp_path / "hardware.png").exists()
    assert (tmp_path / "gbps.png").exists() and (tmp_path / "ladder.png").exists()


def test_figure_draws_only_the_named_ones_and_leaves_the_others_files(tmp_path):
    (tmp_path / "error.png").write_bytes(b"old")  # not asked for: kept as it is
    result = run("plot.py", RYZEN, "--out", tmp_path, *figures("gbps", "ladder"))
    assert result.returncode == 0, result.stderr
    drawn = sorted(p.name for p in tmp_path.iterdir())
    assert drawn == ["error.png", "gbps.png", "gbps.svg", "ladder.png", "ladder.svg", "report.html", "summary.md"]
    assert (tmp_path / "error.png").read_bytes() == b"old"
    result = run("plot.py", RYZEN, "--out", tmp_path, "--figure", "gpbs")
    assert result.returncode == 2 and "invalid choice: 'gpbs'" in result.stderr


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
    assert row[6] == "isolated"
    assert row[7] == "`cpu/serial/accumulate-f64`"
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
    assert row[4].startswith("—")  # no cuda+h2d ceiling in the fixture
    assert "## lab-xeon: NVIDIA A100-SXM4-40GB — cuda+h2d" not in text


def test_summary_most_accurate_reports_exact_ties_and_errors(plotted):
    out, _ = plotted
    text = (out / "summary.md").read_text()
    row = summary_row(text, "ws-ryzen: AMD Ryzen 9 7950X 16-Core Processor — cpu", "2^16")
    # kahan and accumulate-f64 are both exact on every input at 2^16: a tie, named
    assert row[7] == "`cpu/serial/kahan`, `cpu/serial/accumulate-f64` (tied)" or \
        row[7] == "`cpu/serial/accumulate-f64`, `cpu/serial/kahan` (tied)"
    assert row[8] == "0 (exact)"
    row = summary_row(text, "ws-ryzen: NVIDIA GeForce RTX 4090 — cuda", "2^20")
    assert row[7] == "`cuda/cub`"
    assert math.isclose(float(row[8]), 30 * 5e-9 * 20, rel_tol=1e-2)  # worst: normal input


# ---------------------------------------------------------------------------------------------
# The rules in shootout_csv


def test_newest_row_wins_over_an_older_repeat():
    df = sc.read_csvs([str(RYZEN)])
    speed = sc.speed_table(df)
    tbb = speed[(speed["backend"] == "cpu/tbb/reduce") & (speed["n"] == 2**24)]
    assert len(tbb) == 1
    assert tbb["gbps"].iloc[0] < 60  # not the 70 GB/s of the older run


def test_two_machines_with_one_host_name_in_one_file_stay_apart(tmp_path):
    # Two cloud VMs both called "vm" appending to one file: the machine column tells them apart.
    df = sc.read_csvs([str(VM)])
    assert set(df["host"]) == {"vm"}
    assert set(df["machine"]) == {VM_INTEL, VM_AMD}
    assert set(df["label"]) == {VM_INTEL, VM_AMD}  # the host name alone would not tell them apart
    speed = sc.speed_table(df)
    omp = speed[(speed["backend"] == "cpu/openmp/reduction") & (speed["n"] == 2**24)]
    assert sorted(zip(omp["machine"], omp["threads"])) == [(VM_INTEL, 2), (VM_AMD, 4)]
    result = run("plot.py", VM, "--out", tmp_path, *figures("hardware"))
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "summary.md").read_text()
    assert summary_row(text, f"{VM_INTEL}: Intel(R) Xeon(R) Processor — cpu", "2^24")[5] == "2"
    assert summary_row(text, f"{VM_AMD}: AMD EPYC 9454 48-Core Processor — cpu", "2^24")[5] == "4"
    hardware = (tmp_path / "hardware.svg").read_text()  # two machines: drawn
    assert f"{VM_INTEL} (Intel(R) Xeon(R) Processor)" in hardware
    assert f"{VM_AMD} (AMD EPYC 9454 48-Core Processor)" in hardware


def test_labels_show_the_machine_value_only_where_host_names_collide():
    df = sc.read_csvs([str(RYZEN), str(VM)])
    labels = dict(zip(df["machine"], df["label"]))
    assert labels == {"ws-ryzen-3f9a0c71": "ws-ryzen", VM_INTEL: VM_INTEL, VM_AMD: VM_AMD}


def test_one_machine_in_two_files_is_one_machine(tmp_path):
    # The old rule called a host name in two files two machines; the machine column says one.
    lines = RYZEN.read_text().splitlines(True)
    half = len(lines) // 2
    (tmp_path / "a.csv").write_text("".join(lines[:half]))
    (tmp_path / "b.csv").write_text(lines[0] + "".join(lines[half:]))
    df = sc.read_csvs([str(tmp_path / "a.csv"), str(tmp_path / "b.csv")])
    assert set(df["label"]) == {"ws-ryzen"}
    result = run("plot.py", tmp_path / "a.csv", tmp_path / "b.csv", "--out", tmp_path / "out",
                 "--backend", "cpu/serial/*", *figures("hardware"))
    assert result.returncode == 0, result.stderr
    assert "hardware comparison skipped: the CSVs hold only one machine" in result.stderr


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
    # role ceiling and reference_copy rows are not judged on their sums
    assert not set(err["backend"]) & {"cpu/baseline/read", "cuda/baseline/read",
                                      "cuda/baseline/copy"}
    assert not (err["device"] == "cuda+h2d").any()


def test_backends_sort_by_device_role_and_traits_then_name():
    rows = [("cuda/ladder/10-grid-stride", "cuda", "reduction", "f32", "tree"),
            ("cuda/ladder/02-interleaved-shared", "cuda", "reduction", "f32", "tree"),
            ("cuda/ladder/01-interleaved-global", "cuda", "reduction", "f32", "tree"),
            ("cuda/aaa-ceiling", "cuda", "ceiling", "f32", "unordered"),
            ("cuda/f64-thing", "cuda", "reduction", "f64", "tree"),
            ("zzz/cpu-backend", "cpu", "reduction", "f64", "sequential")]
    import pandas as pd
    traits = sc.backend_traits(pd.DataFrame(rows, columns=["series", "device", "role",
                                                           "accumulator", "order"]))
    assert sc.sort_backends([r[0] for r in rows], traits) == [
        "zzz/cpu-backend", "cuda/ladder/01-interleaved-global",
        "cuda/ladder/02-interleaved-shared", "cuda/ladder/10-grid-stride", "cuda/f64-thing",
        "cuda/aaa-ceiling"]


# ---------------------------------------------------------------------------------------------
# Roles and traits, not names


def test_ceiling_is_the_role_not_the_name(tmp_path):
    # A ceiling with an odd name is the ceiling; a reduction named .../baseline/read is not.
    def odd_names(row):
        names = {"cuda/baseline/read": "cuda/streams/max", "cuda/shuffle": "cuda/shuffle/baseline/read"}
        row["backend"] = names.get(row["backend"], row["backend"])
        return row
    odd = rewrite(XEON, tmp_path / "odd.csv", odd_names)
    result = run("plot.py", odd, "--out", tmp_path / "out", *figures("gbps"))
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "out" / "summary.md").read_text()
    row = summary_row(text, "lab-xeon: NVIDIA A100-SXM4-40GB — cuda", "2^30")
    assert row[2] == "`cuda/shuffle/baseline/read`"  # a contender: its role is reduction
    assert row[4] == "98%"  # against cuda/streams/max, the role=ceiling backend
    gbps = (tmp_path / "out" / "gbps.svg").read_text()
    assert "ceiling: cuda/streams/max" in gbps
    assert "ceiling: cuda/shuffle/baseline/read" not in gbps
    err = sc.error_table(sc.read_csvs([str(odd)]))
    assert "cuda/shuffle/baseline/read" in set(err["backend"])
    assert "cuda/streams/max" not in set(err["backend"])
    # --backend keeps the role=ceiling rows, whatever their name
    result = run("plot.py", odd, "--out", tmp_path / "cub", "--backend", "cuda/cub", *figures("gbps"))
    assert result.returncode == 0, result.stderr
    assert "ceiling: cuda/streams/max" in (tmp_path / "cub" / "gbps.svg").read_text()


def test_no_backend_name_is_parsed_for_a_property():
    # Backend names appear in the plot code (outside docstrings) only as the ladder plot's
    # default selection; nothing is matched against "/baseline", "cpu/", "cuda/" or the like.
    allowed = {'"cuda/ladder/*"'}
    scripts = sorted(PLOT_DIR.glob("*.py")) + sorted(PLOT_DIR.glob("figures/*.py"))
    assert PLOT_DIR / "figures" / "gbps.py" in scripts
    for script in scripts:
        source = script.read_text()
        strings = [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)
                   if t.type == tokenize.STRING and not t.string.startswith('"""')]  # not docs
        suspects = [s for s in strings if s not in allowed and (
            re.match(r'^[rbuf]*["\']+(cpu|cuda)/', s) or "/baseline" in s or "ladder/" in s)]
        assert not suspects, (script, suspects)
        for name in ["is_ceiling", "is_baseline", "is_ladder", "ladder_step", "family(",
                     "KNOWN_ORDER"]:
            assert name not in source, (script, name)


# ---------------------------------------------------------------------------------------------
# GPU timing: batched by default, isolated on request


def test_gpu_rows_are_batched_by_default_and_say_so(plotted):
    out, result = plotted
    text = (out / "summary.md").read_text()
    row = summary_row(text, "ws-ryzen: NVIDIA GeForce RTX 4090 — cuda", "2^16")
    assert row[2] == "`cuda/shuffle`" and row[3] == "203"  # isolated: 64.1
    assert row[4] == "100%"  # against the batched ceiling, not the isolated one
    assert row[6] == "batched (K = 1024)"
    assert "batched (K calls back to back per timed region, time / K; K = 2–1024)" in text
    gbps = (out / "gbps.svg").read_text()
    assert "batched (K calls back to back per timed region," in gbps
    # cuda+h2d rows were measured isolated only: that timing, said in the panel and a note
    row = summary_row(text, "ws-ryzen: NVIDIA GeForce RTX 4090 — cuda+h2d", "2^16")
    assert row[6] == "isolated"
    assert "no batched rows, drawn isolated: ws-ryzen cuda/cub (+h2d)" in result.stderr
    row = summary_row(text, "ws-ryzen: AMD Ryzen 9 7950X 16-Core Processor — cpu", "2^16")
    assert row[6] == "isolated" and row[3] == "76.1"


def test_timing_isolated_option(tmp_path):
    result = run("plot.py", RYZEN, "--out", tmp_path, "--timing", "isolated", *figures("gbps"))
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "summary.md").read_text()
    row = summary_row(text, "ws-ryzen: NVIDIA GeForce RTX 4090 — cuda", "2^16")
    assert row[2] == "`cuda/shuffle`" and row[3] == "64.1"
    assert row[4] == "100%"  # against the isolated ceiling
    assert row[6] == "isolated"
    assert "batched (K calls" not in (tmp_path / "gbps.svg").read_text()
    row = summary_row(text, "ws-ryzen: AMD Ryzen 9 7950X 16-Core Processor — cpu", "2^16")
    assert row[3] == "76.1"  # CPU rows do not change


def test_select_timing_and_the_ceiling_of_the_same_timing():
    df = sc.read_csvs([str(RYZEN)])
    chosen = sc.select_timing(df, "batched")
    assert set(chosen.loc[chosen["device"] == "cuda", "timing"]) == {"batched"}
    assert set(chosen.loc[chosen["device"] == "cpu", "timing"]) == {"isolated"}
    assert set(chosen.loc[chosen["device"] == "cuda+h2d", "timing"]) == {"isolated"}
    speed_all = sc.speed_table(df)
    for timing in sc.TIMINGS:
        sp = sc.with_ceiling(sc.select_timing(speed_all, timing), reference=speed_all)
        read = sp[(sp["backend"] == "cuda/baseline/read") & (sp["n"] == 2**10)]
        assert len(read) == 1 and read["timing"].iloc[0] == timing
        assert read["pct_ceiling"].iloc[0] == pytest.approx(100.0)


def test_gpu_timing_plot(plotted, tmp_path):
    out, _ = plotted
    svg = (out / "gpu_timing.svg").read_text()
    assert "µs per call" in svg
    assert "batched: K calls back to back" in svg and "per timed region, time / K" in svg
    assert "isolated: one call per timed region" in svg
    assert "ceiling: cuda/baseline/read" in svg and "cuda/cub" in svg
    assert "cuda/ladder" not in svg
    (tmp_path / "gpu_timing.png").write_bytes(b"old")
    result = run("plot.py", VM, "--out", tmp_path, *figures("gpu_timing"))  # no CUDA rows
    assert result.returncode == 0, result.stderr
    assert "gpu_timing plot skipped" in result.stderr
    assert not (tmp_path / "gpu_timing.png").exists()


# ---------------------------------------------------------------------------------------------
# The ceiling, where it is one


def test_a_ceiling_beaten_by_more_than_two_percent_is_marked():
    beaten = sc.beaten_ceilings(sc.speed_table(sc.read_csvs([str(RYZEN)]), all_threads=True))
    cpu = beaten[(beaten["device"] == "cpu") & (beaten["threads"] == 32)].set_index("n")
    # 2^10: one thread of cpu/avx2/f32 (45 GB/s) reads faster than 32 threads of the pool.
    assert cpu.loc[2**10, "beaten"] and cpu.loc[2**10, "rival"] == "cpu/avx2/f32"
    assert cpu.loc[2**10, "rival_threads"] == 1
    # 2^24: cpu/openmp/reduction at 16 threads (63.0) is 1.9% above the ceiling (61.8): no mark.
    assert cpu.loc[2**24, "rival"] == "cpu/openmp/reduction" and cpu.loc[2**24, "rival_threads"] == 16
    assert not cpu.loc[2**24, "beaten"]
    # A reduction with more threads than the ceiling's is no rival: 16 threads of the ceiling
    # were not measured at 2^10, so nothing at 32 threads is compared with them.
    assert not ((beaten["threads"] < beaten["rival_threads"])).any()


def test_the_gbps_plot_draws_beaten_ceiling_points_hollow(plotted):
    out, _ = plotted
    gbps = (out / "gbps.svg").read_text()
    assert "hollow: a reduction with as many threads" in gbps and "or fewer is &gt; 2% faster: no ceiling" in gbps


# ---------------------------------------------------------------------------------------------
# Dispatch latency


def test_dispatch_latency_takes_parallel_reductions_at_16_floats_a_thread():
    from figures.dispatch_latency import latency_rows
    rows = latency_rows(sc.read_csvs([str(LATENCY)]), 16)
    assert set(rows["backend"]) == {"cpu/openmp/reduction", "cpu/tbb/reduce"}  # not the ceiling,
    assert (rows["n"] == 16 * rows["threads"]).all()  # not the serial one, not 64 floats a thread
    assert sorted(rows["threads"].unique()) == [1, 2, 4, 8, 16, 32]
    tbb = rows[rows["backend"] == "cpu/tbb/reduce"].set_index("threads")["time_ns"]
    assert tbb[8] == pytest.approx(300 + 1100 * 3, rel=1e-2)  # the fixture rounds GB/s


def test_dispatch_latency_plot(plotted, tmp_path):
    out, _ = plotted
    svg = (out / "dispatch_latency.svg").read_text()
    assert "ns per call" in svg and "16 floats (64 B) per thread" in svg
    assert "cpu/openmp/reduction · f32, thread_chunks" in svg and "cpu/tbb/reduce" in svg
    assert "cpu/serial/kahan" not in svg and "cpu/baseline/read" not in svg
    (tmp_path / "dispatch_latency.png").write_bytes(b"old")
    result = run("plot.py", RYZEN, "--out", tmp_path, *figures("dispatch_latency"))  # named CSVs and no --latency-csv
    assert result.returncode == 0, result.stderr
    assert "dispatch_latency plot skipped" in result.stderr
    assert not (tmp_path / "dispatch_latency.png").exists()


# ---------------------------------------------------------------------------------------------
# The schema: harness v2 columns required, later columns ignored


def test_csv_before_harness_v2_is_rejected(tmp_path):
    old = rewrite(RYZEN, tmp_path / "old.csv", columns=sc.LAYOUTS["harness v1"])
    message = ("old.csv: missing column(s) machine, timing, batch, cache, accumulator, order, "
               "reproducibility, role, reproducible, gpus, ranks: written by an older "
               "accumulate_bench (before harness v2); re-run it")
    for script, args in [("plot.py", [old, "--out", tmp_path / "out"]), ("compare.py", [old, XEON])]:
        result = run(script, *args)
        assert result.returncode == 2, result.stdout
        assert result.stderr.startswith("error: ") and message in result.stderr
        assert "Traceback" not in result.stderr
    # an old row appended to a new file: fields only up to peak_gbps
    lines = RYZEN.read_text().splitlines()
    v1_row = ",".join(lines[5].split(",")[:len(sc.LAYOUTS["harness v1"])])
    (tmp_path / "appended.csv").write_text("\n".join(lines[:5] + [v1_row]) + "\n")
    result = run("plot.py", tmp_path / "appended.csv", "--out", tmp_path / "out")
    assert result.returncode == 2
    assert "appended.csv line 6: no values in the columns machine, timing" in result.stderr
    assert "older accumulate_bench" in result.stderr


def test_csv_before_the_gpus_and_ranks_columns_is_rejected(tmp_path):
    old = rewrite(RYZEN, tmp_path / "v2.csv", columns=sc.LAYOUTS["harness v1"] + sc.LAYOUTS["harness v2"] + ["reproducible"])
    result = run("plot.py", old, "--out", tmp_path / "out")
    assert result.returncode == 2
    assert ("v2.csv: missing column(s) gpus, ranks: written by an older accumulate_bench (before "
            "the gpus and ranks columns); re-run it") in result.stderr
    # a v2 row appended to a file with the new header: no values from `reproducible` on
    lines = RYZEN.read_text().splitlines()
    v2_row = ",".join(lines[5].split(",")[:len(sc.LAYOUTS["harness v1"] + sc.LAYOUTS["harness v2"])])
    (tmp_path / "appended.csv").write_text("\n".join(lines[:5] + [v2_row]) + "\n")
    result = run("plot.py", tmp_path / "appended.csv", "--out", tmp_path / "out")
    assert result.returncode == 2
    assert "appended.csv line 6: no values in the columns reproducible, gpus, ranks" in result.stderr


def test_pages_column_is_read_and_files_without_it_have_it_empty():
    # latency.csv has the pages column (CPU rows since the backends place their input); the GPU
    # machines' files were measured before it and still plot, with it empty
    with_pages = sc.read_csvs([str(LATENCY)])
    assert set(with_pages["pages"]) == {"huge"}
    without = sc.read_csvs([str(H200X4)])
    assert set(without["pages"]) == {""}
    both = sc.read_csvs([str(LATENCY), str(H200X4)])
    assert len(both) == len(with_pages) + len(without)


def test_configuration_column_is_read_and_files_without_it_have_it_empty(tmp_path):
    picked = "schedule=pinned parts=2 loop=avx512/f32+prefetch (2 of 3); schedule=tbb threads=2 loop=avx512/f32 (1 of 3)"
    with_it = rewrite(RYZEN, tmp_path / "configured.csv", extra={"pages": "huge", "configuration": picked})
    df = sc.read_csvs([str(with_it)])
    assert set(df["configuration"]) == {picked}
    assert set(sc.read_csvs([str(RYZEN)])["configuration"]) == {""}


def test_extra_trailing_columns_are_ignored(tmp_path):
    extra = {"pages": "4k", "later": "x"}
    later = rewrite(RYZEN, tmp_path / "later.csv", extra=extra)
    assert later.read_text().splitlines()[0].endswith(",role,reproducible,gpus,ranks,pages,later")
    df = sc.read_csvs([str(later)])
    base = sc.read_csvs([str(RYZEN)])
    assert list(df.columns) == list(base.columns)
    assert sc.speed_table(df)["gbps"].tolist() == sc.speed_table(base)["gbps"].tolist()
    # files of two versions together
    result = run("plot.py", later, XEON, "--out", tmp_path / "out", "--backend", "cpu/serial/kahan", *figures("gbps"))
    assert result.returncode == 0, result.stderr
    result = run("compare.py", later, XEON, "--backend", "cuda/cub")
    assert result.returncode == 0, result.stderr


# ---------------------------------------------------------------------------------------------
# Element types: the dtype column


def test_dtype_column_is_read_and_files_without_it_are_float32():
    assert set(sc.read_csvs([str(RYZEN)])["dtype"]) == {"f32"}
    df = sc.read_csvs([str(RYZEN), str(F64)])
    assert set(df["dtype"]) == {"f32", "f64"}
    f64 = df[df["dtype"] == "f64"]
    assert (f64["bytes"] == 8 * f64["n"]).all()
    assert set(f64["series"]) == {"cpu/serial/kahan (f64)", "cpu/openmp/reduction (f64)",
                                  "cuda/cub (f64)"}
    assert (df.loc[df["dtype"] == "f32", "series"] == df.loc[df["dtype"] == "f32", "backend"]).all()


def test_float64_rows_are_a_series_of_their_own():
    speed = sc.speed_table(sc.read_csvs([str(RYZEN), str(F64)]))
    at = speed[(speed["backend"] == "cpu/serial/kahan") & (speed["n"] == 2**20)].set_index("series")
    # float32: ones, uniform, normal at 1.40 and two more seeds (median 1.40); float64: 2.8 on each
    # input. Merged, the median of the eight rows would be 1.45.
    assert at.loc["cpu/serial/kahan", "gbps"] == pytest.approx(1.40)
    assert at.loc["cpu/serial/kahan", "samples"] == 5
    assert at.loc["cpu/serial/kahan (f64)", "gbps"] == pytest.approx(2.8)
    assert at.loc["cpu/serial/kahan (f64)", "samples"] == 3
    # float32 rows of the file with the dtype column join the float32 series of the file without
    pairwise = speed[(speed["series"] == "cpu/serial/pairwise") & (speed["n"] == 2**20)]
    assert pairwise["samples"].tolist() == [4]
    traits = sc.backend_traits(speed)
    assert traits.loc["cpu/serial/kahan", "accumulator"] == "compensated_f32"
    assert traits.loc["cpu/serial/kahan (f64)", "accumulator"] == "compensated_f64"
    err = sc.error_table(sc.read_csvs([str(RYZEN), str(F64)]))
    kahan = err[(err["backend"] == "cpu/serial/kahan") & (err["n"] == 2**20) & (err["input"] == "uniform")]
    assert sorted(kahan["rel_error"]) == [pytest.approx(1.1e-16), pytest.approx(2.9e-8)]


def test_the_ceiling_is_met_at_the_same_bytes_not_the_same_n():
    speed = sc.with_ceiling(sc.speed_table(sc.read_csvs([str(RYZEN), str(F64)])))
    omp = speed[speed["series"] == "cpu/openmp/reduction (f64)"].set_index("n")
    ceiling = speed[(speed["series"] == "cpu/baseline/read") & (speed["n"] == 2**24)]["gbps"].iloc[0]
    # 2^23 doubles are 64 MiB, as many bytes as the float32 ceiling's 2^24 floats
    assert omp.loc[2**23, "bytes"] == 64 * 2**20
    assert omp.loc[2**23, "ceiling"] == pytest.approx(ceiling)
    assert omp.loc[2**23, "pct_ceiling"] == pytest.approx(100 * omp.loc[2**23, "gbps"] / ceiling)
    assert math.isnan(omp.loc[2**24, "ceiling"])  # 128 MiB: no ceiling read that much
    cub = speed[(speed["series"] == "cuda/cub (f64)") & (speed["timing"] == "batched")].set_index("n")
    read = speed[(speed["series"] == "cuda/baseline/read") & (speed["timing"] == "batched")
                 & (speed["n"] == 2**30)]["gbps"].iloc[0]
    assert cub.loc[2**29, "ceiling"] == pytest.approx(read)


def test_summary_has_a_section_per_element_type(plotted):
    out, _ = plotted
    text = (out / "summary.md").read_text()
    row = summary_row(text, RYZEN_CPU + " (f64)", "2^23")
    assert row[1] == "64 MiB"  # the bytes column: 8 n, not 4 n
    assert row[2] == "`cpu/openmp/reduction (f64)`" and row[3] == "60.6"
    assert row[4] == "98%"  # 60.6 / 61.8, the float32 ceiling of 64 MiB
    assert row[7] == "`cpu/serial/kahan (f64)`"
    row = summary_row(text, RYZEN_CPU + " (f64)", "2^24")
    assert row[1] == "128 MiB" and row[4].startswith("—")
    row = summary_row(text, "ws-ryzen: NVIDIA GeForce RTX 4090 — cuda (f64)", "2^29")
    assert row[1] == "4 GiB" and row[2] == "`cuda/cub (f64)`" and row[4] == "97%"
    # the float32 section is as without the float64 rows: kahan f64's 1e-16 is not compared there
    row = summary_row(text, RYZEN_CPU, "2^24")
    assert row[1] == "64 MiB" and row[2] == "`cpu/openmp/reduction`"
    assert row[7] == "`cpu/serial/accumulate-f64`"


def test_plots_draw_float64_series_apart(plotted):
    out, _ = plotted
    gbps = (out / "gbps.svg").read_text()
    assert "cpu/serial/kahan (f64) · compensated_f64, sequential" in gbps
    assert "cpu/serial/kahan · compensated_f32, sequential" in gbps
    assert "cuda/cub (f64) · f64, tree" in gbps
    # ws-ryzen's CPU panel holds 4- and 8-byte elements: no single bytes line under 2^k
    assert "bytes differ by element type" in gbps
    error = (out / "error.svg").read_text()
    assert "cpu/serial/kahan (f64)" in error
    assert "cpu/serial/kahan (f64)" in (out / "accuracy_speed.svg").read_text()
    dtypes = (out / "dtypes.svg").read_text()
    assert "float32, input uniform" in dtypes and "float64, input uniform" in dtypes
    assert "compensated_f64" in dtypes


def test_dtypes_puts_each_element_type_in_its_own_panel(tmp_path):
    # ws-ryzen's float64 rows once more as float16 rows: half the bytes, a 16-bit accumulator
    def as_float16(row):
        row = {**row, "bytes": str(2 * int(row["n"]))}
        if row["accumulator"] in ("f64", "compensated_f64"):
            row["accumulator"] = "f16"
        return row
    f16 = rewrite(F64, tmp_path / "f16.csv", as_float16, extra={"dtype": "f16"})
    out = tmp_path / "out"
    result = run("plot.py", F64, f16, "--out", out, *figures("dtypes"))
    assert result.returncode == 0, result.stderr
    dtypes = (out / "dtypes.svg").read_text()
    assert "float16, input uniform" in dtypes and "float64, input uniform" in dtypes
    assert "accumulator (green band: exact)" in dtypes
    # One element type: no figure, and the run says why.
    out_f64 = tmp_path / "f64"
    result = run("plot.py", F64, "--out", out_f64, "--backend", "cpu/serial/kahan", *figures("dtypes"))
    assert result.returncode == 0, result.stderr
    assert not (out_f64 / "dtypes.svg").exists()
    assert "dtypes: no machine and input at n=16777216 hold more than one element type" in result.stderr


def test_compare_takes_bytes_from_the_bytes_column():
    result = run("compare.py", F64, XEON, "--backend", "cpu/openmp/reduction")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    f64 = next(l for l in lines if l.startswith("cpu/openmp/reduction (f64)") and " 2^23 " in l)
    assert f64.split()[3:5] == ["64", "MiB"]  # as many bytes as 2^24 floats
    f32 = next(l for l in lines if l.startswith("cpu/openmp/reduction ") and " 2^24 " in l)
    assert f32.split()[2:4] == ["64", "MiB"]


# ---------------------------------------------------------------------------------------------
# compare.py


def test_compare_prints_both_speeds_and_the_ratio():
    result = run("compare.py", RYZEN, XEON, "--backend", "cuda/cub")
    assert result.returncode == 0, result.stderr
    line = next(l for l in result.stdout.splitlines() if l.startswith("cuda/cub ") and "2^30" in l)
    # cuda/cub at 2^30, batched: 911 GB/s on the 4090, 1357 on the A100
    assert " batched ×2 911 1357 1.49x " in cells(line)
    assert "A = ws-ryzen.csv: machine ws-ryzen-3f9a0c71 (host ws-ryzen)" in result.stdout
    assert "timing: batched ×K = K calls back to back per timed region, time / K" in result.stdout
    h2d = next(l for l in result.stdout.splitlines() if l.startswith("cuda/cub (+h2d)") and "2^30" in l)
    assert " isolated 24.3 — — — 1/0" in cells(h2d)  # measured in A only, isolated only


def test_compare_timing_isolated():
    small = [l for l in run("compare.py", RYZEN, XEON, "--backend", "cuda/cub").stdout.splitlines()
             if l.startswith("cuda/cub ") and "2^10" in l]
    assert " batched ×1024 2.27 1.82 0.80x " in cells(small[0])
    result = run("compare.py", RYZEN, XEON, "--backend", "cuda/cub", "--timing", "isolated")
    assert result.returncode == 0, result.stderr
    line = next(l for l in result.stdout.splitlines() if l.startswith("cuda/cub ") and "2^10" in l)
    assert " isolated 0.68 0.55 0.80x " in cells(line)
    assert "batched" not in result.stdout


def test_compare_markdown():
    result = run("compare.py", RYZEN, XEON, "--backend", "cpu/serial/kahan", "--markdown")
    assert result.returncode == 0, result.stderr
    assert "| cpu/serial/kahan | 2^24 | 64 MiB | 1 | isolated | 1.40 | 0.87 | 0.62x |" in result.stdout


def cells(line: str) -> str:
    """A table line with its cells one space apart."""
    return " ".join(line.split())


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
        "bad_seed": "\n".join(good[:2] + [with_field(good[2], HEADER.split(",").index("seed"),
                                                     "abc")]) + "\n",
        "bad_n": "\n".join(good[:3] + [with_field(good[3], HEADER.split(",").index("n"), "1.5x")])
        + "\n",
        "bad_timing": "\n".join(good[:3] + [with_field(good[3], HEADER.split(",").index("timing"),
                                                       "fast")]) + "\n",
        "bad_role": "\n".join(good[:2] + [with_field(good[2], HEADER.split(",").index("role"),
                                                     "baseline")]) + "\n",
        "row_too_long": "\n".join(good[:3] + [good[3] + ",extra"]) + "\n",
    }
    paths = {}
    for name, text in files.items():
        paths[name] = tmp / f"{name}.csv"
        paths[name].write_text(text)
    return paths


@pytest.mark.parametrize("script", ["plot.py", "compare.py", "ceiling_verdict.py"])
@pytest.mark.parametrize("case, message", [
    ("empty", "empty.csv: empty file"),
    ("header_only", "header_only.csv: empty file: a header but no data rows"),
    ("missing_columns", "missing_columns.csv: missing column(s): gbps, rel_error"),
    ("not_a_number", "not_a_number.csv line 4: column gbps is not a number: 'fast'"),
    ("bad_seed", "bad_seed.csv line 3: column seed is not a whole number: 'abc'"),
    ("bad_n", "bad_n.csv line 4: column n is not a whole number: '1.5x'"),
    ("bad_timestamp", "bad_timestamp.csv line 3: column timestamp is not an ISO-8601 time"),
    ("bad_timing", "bad_timing.csv line 4: column timing is 'fast' (expected one of: isolated, "
                   "batched)"),
    ("bad_role", "bad_role.csv line 3: column role is 'baseline' (expected one of: reduction, "
                 "ceiling, reference_copy, launch_floor)"),
    ("row_too_long", "row_too_long.csv: not a valid CSV file"),
    ("no_such_file", "no_such_file.csv: no such file"),
])
def test_bad_file_gives_its_message(tmp_path, script, case, message):
    paths = bad_files(tmp_path)
    path = paths.get(case, tmp_path / f"{case}.csv")
    args = {"plot.py": [path, "--out", tmp_path / "out"], "compare.py": [RYZEN, path],
            "ceiling_verdict.py": [path]}[script]
    result = run(script, *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stderr.startswith("error: ")
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out" / "gbps.png").exists()


def with_value(tmp: Path, column: str, value: str, line: int = 3, src: Path = F64) -> Path:
    """src with `column` of `line` (1-based, the header is line 1) set to value."""
    lines = src.read_text().splitlines()
    index = lines[0].split(",").index(column)
    lines[line - 1] = with_field(lines[line - 1], index, value)
    path = tmp / f"bad-{column}.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


# (column, value, what the message says the value is not): one bad value of each numeric column
NOT_IN_SCHEMA = [
    ("threads", "two", "a whole number"),
    ("threads", "0", "a whole number >= 1"),
    ("seed", "abc", "a whole number"),
    ("seed", "-1", "a whole number"),
    ("n", "1.5x", "a whole number"),
    ("n", "1.5", "a whole number"),
    ("bytes", "8 MiB", "a whole number"),
    ("iterations", "many", "a whole number"),
    ("batch", "0", "a whole number >= 1"),
    ("gpus", "one", "a whole number"),
    ("ranks", "0", "a whole number >= 1"),
    ("gbps", "fast", "a number"),
    ("gbps", "nan", "a finite number > 0"),
    ("gbps", "-2.5", "a finite number > 0"),
    ("time_ns_median", "1.2.3", "a number"),
    ("time_ns_min", "inf", "a finite number > 0"),
    ("result", "12..5", "a number"),
    ("exact", "0x10", "a number"),
    ("rel_error", "tiny", "a number"),
    ("peak_gbps", "fast", "a number"),
    ("peak_gbps", "0", "a finite number > 0"),
]


@pytest.mark.parametrize("column, value, message", [
    *[(c, v, f"column {c} is not {what}: {v!r}") for c, v, what in NOT_IN_SCHEMA],
    ("seed", "", "column seed is empty (only file: inputs have no seed)"),
    ("n", "", "column n is empty"),
    ("gbps", "", "column gbps is empty"),
    ("rel_error", "", "column rel_error is empty"),
    ("dtype", "f128", "column dtype is 'f128' (expected one of: f32, f64, f16, bf16)"),
    ("dtype", "", "column dtype is '' (expected one of: f32, f64, f16, bf16)"),
    ("bytes", "4194304", "column bytes is 4194304, not n × 8 = 8388608 (bytes of f64)"),
])
def test_a_value_outside_the_schema_is_refused_naming_file_line_column_and_text(tmp_path, column, value,
                                                                                message):
    path = with_value(tmp_path, column, value)
    with pytest.raises(sc.InputError) as e:
        sc.read_csvs([str(path)])
    assert str(e.value) == f"{path} line 3: {message}"


def test_values_the_schema_allows_are_read(tmp_path):
    lines = F64.read_text().splitlines()
    header = lines[0].split(",")
    fields = {c: header.index(c) for c in ["input", "seed", "rel_error", "result", "peak_gbps", "gbps"]}
    row = lines[2].split(",")
    for col, value in [("input", "file:odd.f32"), ("seed", ""), ("rel_error", "-nan"),
                       ("result", "inf"), ("peak_gbps", ""), ("gbps", "1e2")]:
        row[fields[col]] = value
    lines[2] = ",".join(row)
    path = tmp_path / "allowed.csv"
    path.write_text("\n".join(lines) + "\n")
    df = sc.read_csvs([str(path)])
    r = df.iloc[1]
    assert r["seed"] == 0 and math.isnan(r["rel_error"]) and r["result"] == math.inf
    assert math.isnan(r["peak_gbps"]) and r["gbps"] == 100.0


@pytest.mark.parametrize("args, message", [
    (["--backend", "cpu/avx512/*"], "no rows match the filter --backend cpu/avx512/*"),
    (["--input", "gaussian"], "no rows match the filter --input gaussian (inputs present: "
                              "file:nan-inf, normal, ones, uniform)"),
    (["--host", "nosuchhost"], "no rows match the filter --host nosuchhost (hosts present: "
                               "ws-ryzen)"),
    (["--machine", "ws-ryzen"], "no rows match the filter --machine ws-ryzen (machines present: "
                                "ws-ryzen-3f9a0c71)"),
    (["--device", "cuda", "--backend", "cpu/*"], "no rows match the filter --backend cpu/* "
                                                 "--device cuda"),
])
def test_filter_matching_nothing_gives_its_message(tmp_path, args, message):
    for script, base in [("plot.py", [RYZEN, "--out", tmp_path]), ("compare.py", [RYZEN, XEON])]:
        if script == "compare.py" and args[0] == "--machine":
            continue  # compare.py's --machine-a takes a host name too: covered below
        if script == "compare.py" and args[0] == "--host":
            args, message = ["--machine-a", args[1]], (
                f"ws-ryzen.csv: no rows match --machine-a {args[1]} (machines present: "
                "ws-ryzen-3f9a0c71 (host ws-ryzen))")
        result = run(script, *base, *args)
        assert result.returncode == 2, (script, result.stdout)
        assert message in result.stderr, (script, result.stderr)
        assert "Traceback" not in result.stderr


def test_compare_needs_a_machine_when_a_file_holds_several(tmp_path):
    both = tmp_path / "both.csv"
    both.write_text(RYZEN.read_text() + "".join(XEON.read_text().splitlines(True)[1:]))
    result = run("compare.py", both, XEON)
    assert result.returncode == 2
    assert ("both.csv: rows from several machines (lab-xeon-b7d2e418 (host lab-xeon), "
            "ws-ryzen-3f9a0c71 (host ws-ryzen)); pick one with --machine-a") in result.stderr
    result = run("compare.py", both, XEON, "--machine-a", "ws-ryzen")  # a host name of one machine
    assert result.returncode == 0, result.stderr
    # two machines named "vm": the host name does not pick one, and says so; the machine value does
    result = run("compare.py", VM, XEON, "--machine-a", "vm")
    assert result.returncode == 2
    assert (f"vm.csv: --machine-a vm is ambiguous: it is the host name of 2 machines ({VM_INTEL} (host vm), "
            f"{VM_AMD} (host vm)); give one's machine value") in result.stderr
    result = run("compare.py", VM, XEON, "--machine-a", VM_AMD, "--backend", "cpu/serial/kahan")
    assert result.returncode == 0, result.stderr
    assert f"A = vm.csv: machine {VM_AMD} (host vm), AMD EPYC" in result.stdout


@pytest.mark.parametrize("changes, message", [
    ({"rel_error": "-0.5"}, "line 3: column rel_error is -0.5: a relative error is never negative"),
    ({"exact": "inf", "rel_error": "0"}, "line 3: column rel_error is 0: 0 beside exact = inf: an infinite sum is "
                                         "never exact"),
    ({"exact": "-inf", "rel_error": "0", "result": "-inf"}, "line 3: column rel_error is 0: 0 beside exact = -inf"),
])
def test_a_relative_error_that_contradicts_itself_is_refused(tmp_path, changes, message):
    """A -0.5 error would win 'most accurate'; 0 beside an infinite exact sum calls an overflow exact."""
    path = F64
    for column, value in changes.items():
        path = with_value(tmp_path, column, value, src=path)
    result = run("plot.py", path, "--out", tmp_path / "out")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert f"{path} {message}" in result.stderr
    # An infinite error beside an infinite sum is what the harness writes: read.
    assert not sc.read_csvs([str(with_value(tmp_path, "rel_error", "inf", src=with_value(tmp_path, "exact", "inf")))]).empty


@pytest.mark.parametrize("cut", ["fields", "quote"])
def test_a_truncated_last_row_is_named_truncated(tmp_path, cut):
    """A run stopped while appending: the last row lacks its newline and fields, which an older
    harness's rows lack too; the message says which it is."""
    lines = H100.read_text().splitlines()
    last = lines[-1]
    if cut == "fields":
        last = last[:last.index(",", len(last) // 2)]
    else:
        last = last.rsplit(",", 2)[0] + ',"half a quoted'
    path = tmp_path / "cut.csv"
    path.write_text("\n".join(lines[:-1] + [last]))
    result = run("plot.py", path, "--out", tmp_path / "out")
    assert result.returncode == 2, result.stderr
    assert f"cut.csv line {len(lines)}: truncated: the file ends " in result.stderr
    assert "older accumulate_bench" not in result.stderr and "Traceback" not in result.stderr
    path.write_text("\n".join(lines))  # whole, without its final newline: read
    assert len(sc.read_csvs([str(path)])) == len(lines) - 1


# Fields that would be markup: a heading, table cells, code spans, HTML.
HOSTILE = {"host": "ws\n# Injected heading | cell", "machine": "m`a|c\nhi<b>ne</b>",
           "cpu": "<script>alert(1)</script>", "backend_suffix": "|`odd` *x*_[y](z)"}


def hostile_csv(tmp: Path) -> Path:
    def change(row):
        return {**row, "host": HOSTILE["host"], "machine": HOSTILE["machine"], "cpu": HOSTILE["cpu"],
                "backend": row["backend"] + HOSTILE["backend_suffix"]}
    return rewrite(RYZEN, tmp / "hostile.csv", change=change, columns=RYZEN.read_text().splitlines()[0].split(","))


def check_markdown(text: str) -> None:
    """No field became markup: no heading of its own, no HTML outside code spans (which show it as
    text), and every table row has its header's cells (a | inside a field is escaped)."""
    outside_code = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", text)
    assert "<script>" not in outside_code and "<b>" not in outside_code
    assert "# Injected" not in [line.lstrip("#").strip()[:10] for line in text.splitlines()]
    assert not any(line.startswith("# Injected") for line in text.splitlines())
    cells = None
    for line in text.splitlines():
        if not line.startswith("|"):
            cells = None
            continue
        count = len(re.split(r"(?<!\\)\|", line)) - 2
        cells = cells or count
        assert count == cells, line


def test_summary_escapes_every_field_it_prints(tmp_path):
    result = run("plot.py", hostile_csv(tmp_path), "--out", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "out" / "summary.md").read_text()
    check_markdown(text)
    assert "&lt;script&gt;" in text and "\\x0a\\# Injected heading \\| cell" in text
    assert "``m`a\\|c\\x0ahi<b>ne</b>``" in text  # a code span: HTML in it is shown, not run


def test_compare_markdown_escapes_every_field_it_prints(tmp_path):
    result = run("compare.py", hostile_csv(tmp_path), XEON, "--markdown")
    assert result.returncode == 0, result.stderr
    check_markdown(result.stdout)
    assert "cpu/serial/kahan\\|\\`odd\\` \\*x\\*\\_\\[y\\](z)" in result.stdout


def test_no_csv_under_results_gives_its_message(tmp_path, monkeypatch):
    monkeypatch.setattr(sc, "REPO_ROOT", tmp_path)
    with pytest.raises(sc.InputError, match="no CSV files match .*results/\\*.csv"):
        sc.expand_paths([])
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "a.csv").write_text("x")
    assert sc.expand_paths([]) == [tmp_path / "results" / "a.csv"]


def test_scripts_parse():
    root = PLOT_DIR.parent
    for script in ["plot.sh", "test_plot.sh", "venv.sh", "cpu_sweeps.sh"]:
        result = subprocess.run(["bash", "-n", str(root / "scripts" / script)],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stderr


# ---------------------------------------------------------------------------------------------
# Scaling over GPUs and MPI ranks


@pytest.fixture(scope="module")
def scaled(tmp_path_factory):
    out = tmp_path_factory.mktemp("scale_out")
    result = run("plot.py", H200X4, "--out", out, *figures("scale_out", "gbps"))
    assert result.returncode == 0, result.stderr
    return out, result


def test_scale_out_plot_has_both_axes_its_sizes_and_the_ideal(scaled):
    out, _ = scaled
    assert (out / "scale_out.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    svg = (out / "scale_out.svg").read_text()
    for text in ["GPUs (one process, NCCL)", "MPI ranks (mpirun -np)", "nccl/sum (batched)",
                 "nccl/exact (isolated)", "mpi/cuda (isolated)", "mpi/pool-simd (isolated)",
                 "ideal: the 1-GPU (1-rank) GB/s × count"]:
        assert text in svg, text
    for exponent in ("24", "28", "31"):  # the panels' sizes; 2^20 is measured but not a panel
        assert f"2^{{{exponent}}}" in svg or f"n = $2^{{{exponent}}}$" in svg or f"2{exponent}" in svg


def test_scale_out_series_ideal_and_efficiency():
    df = sc.read_csvs([str(H200X4)])
    series = sc.scale_out(sc.speed_table(df, all_threads=True))
    nccl = series[(series["backend"] == "nccl/sum") & (series["timing"] == "batched")
                  & (series["n"] == 2**31) & (series["axis"] == "gpus")].set_index("count")
    assert list(nccl.index) == [1, 2, 4]
    assert nccl.loc[4, "ideal"] == pytest.approx(4 * nccl.loc[1, "gbps"])
    assert nccl.loc[4, "efficiency"] == pytest.approx(0.94, abs=0.01)
    assert nccl.loc[1, "efficiency"] == pytest.approx(1.0)
    small = series[(series["backend"] == "nccl/sum") & (series["timing"] == "batched")
                   & (series["n"] == 2**20)].set_index("count")
    assert small.loc[4, "gbps"] < 2 * small.loc[1, "gbps"]  # the all-reduce's floor
    ranks = series[(series["backend"] == "mpi/cuda") & (series["n"] == 2**31)]
    assert set(ranks["axis"]) == {"ranks"} and sorted(ranks["count"]) == [1, 2, 4]
    # one-GPU, one-process backends are no series
    assert not (series["backend"] == "cuda/cub").any()


def test_scale_out_is_in_the_summary(scaled):
    out, _ = scaled
    text = (out / "summary.md").read_text()
    assert "## Scaling out: GB/s per GPU count and per rank count" in text
    line = next(l for l in text.splitlines() if "`nccl/sum` | batched | gpus | 2^31" in l)
    assert re.search(r"4: [0-9]+ \(94%\)", line), line


def test_multi_gpu_and_multi_rank_rows_are_only_in_the_scale_out_figure(scaled):
    out, _ = scaled
    speed = sc.speed_table(sc.read_csvs([str(H200X4)]))
    nccl = speed[(speed["backend"] == "nccl/sum") & (speed["n"] == 2**31)]
    assert set(nccl["gpus"]) == {4}  # the speed table takes the most GPUs
    one = sc.speed_table(sc.one_device(sc.read_csvs([str(H200X4)])))
    assert set(one["gpus"]) <= {0, 1} and set(one["ranks"]) == {1}  # the figures' rows do not
    gbps = (out / "gbps.svg").read_text()
    assert "GPUs)" not in gbps and "ranks)" not in gbps
    assert "4 GPUs" not in (out / "summary.md").read_text().split("## Scaling out")[0]
    assert "nccl/sum (batched)" in (out / "scale_out.svg").read_text()


def test_scale_out_is_skipped_without_several_counts(plotted, tmp_path):
    out, result = plotted
    assert "scale_out plot skipped" in result.stderr
    assert not (out / "scale_out.png").exists()
    # a stale scale_out plot from an earlier run with such rows is removed
    (tmp_path / "scale_out.png").write_bytes(b"old")
    result = run("plot.py", RYZEN, "--out", tmp_path, *figures("scale_out"))
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "scale_out.png").exists()


def test_pareto_front_keeps_only_the_undominated_points():
    import pandas as pd
    from figures.accuracy_speed import pareto
    group = pd.DataFrame({"gbps": [10.0, 100.0, 50.0, 100.0, 1.0],
                          "rel_error": [0.0, 1e-3, 1e-3, 1e-8, float("nan")]})
    # 10 GB/s exact, and 100 GB/s at 1e-8, are on the front; 100 GB/s at 1e-3 is beaten by the
    # same speed at 1e-8, 50 at 1e-3 by both, and a NaN error is beaten by everything.
    assert list(pareto(group)) == [True, False, False, True, False]


# ---------------------------------------------------------------------------------------------
# The version and energy columns, the roofline, the cost model, the report


def test_version_and_energy_columns_are_read_and_older_files_have_them_empty():
    df = sc.read_csvs([str(H100), str(RYZEN)])
    h100 = df[df["machine"] == "h100-7a8b9c0d"]
    assert set(h100["version"]) == {"v0.2-3-gabc1234"}
    batched = h100[(h100["timing"] == "batched") & (h100["device"] == "cuda")]
    assert batched["energy_j"].notna().all() and h100.loc[h100["timing"] == "isolated", "energy_j"].isna().all()
    # bytes per joule: the fixture's GPU draws 390 W while cuda/single-pass streams
    r = batched[(batched["backend"] == "cuda/single-pass") & (batched["n"] == 2**30)].iloc[0]
    assert r["gb_per_j"] == pytest.approx(r["bytes"] * 1e-9 / r["energy_j"], rel=1e-5)
    assert r["gb_per_j"] == pytest.approx(r["gbps"] / 390, rel=1e-3)
    ryzen = df[df["machine"] == "ws-ryzen-3f9a0c71"]  # written before these columns
    assert set(ryzen["version"]) == {""} and ryzen["energy_j"].isna().all() and ryzen["gb_per_j"].isna().all()


def test_a_negative_energy_is_refused(tmp_path):
    bad = rewrite(H100, tmp_path / "bad.csv", extra={"pages": "", "configuration": "", "dtype": "f32", "os": "linux",
                                                      "energy_j": "-1", "gb_per_j": "", "version": "x"})
    result = run("plot.py", bad, "--out", tmp_path / "out")
    assert result.returncode == 2
    assert "bad.csv line 2: column energy_j is not a finite number > 0: '-1'" in result.stderr


def test_the_gpu_ceiling_is_the_roofline_of_the_launch_floor_and_the_best_read():
    speed = sc.select_timing(sc.speed_table(sc.read_csvs([str(H100)])), "batched")
    sp = sc.with_ceiling(speed).set_index(["series", "n"])
    best = 2**30 * 4 / (2500 + 2**30 * 4 / 3000)  # the read ceiling's fastest GB/s, at 2^30
    # 2^10: the launch floor (2 us) bounds the call, not the read of 4 KiB at the best rate
    assert sp.loc[("cuda/single-pass", 2**10), "ceiling"] == pytest.approx(4096 / 2000, rel=2e-3)
    assert sp.loc[("cuda/single-pass", 2**10), "ceiling_kind"] == "roofline"
    # 2^30: the best read rate bounds it
    assert sp.loc[("cuda/single-pass", 2**30), "ceiling"] == pytest.approx(best, rel=2e-3)
    # single-pass outruns the read ceiling's own 2^10 row (2.5 us) but not the roofline: no flag
    read_small = sp.loc[("cuda/baseline/read", 2**10), "gbps"]
    assert sp.loc[("cuda/single-pass", 2**10), "gbps"] > 1.1 * read_small
    assert not sp.loc[("cuda/single-pass", 2**10), "above_ceiling"]
    # cuda/shuffle's 1.2 us at 2^12 is under the launch floor: above the ceiling, flagged
    assert sp.loc[("cuda/shuffle", 2**12), "above_ceiling"]
    assert sp.loc[("cuda/shuffle", 2**12), "pct_ceiling"] == pytest.approx(100 * 2000 / 1200, rel=2e-3)
    assert sp["above_ceiling"].sum() == 1
    # where no launch floor was measured, the read of as many bytes stays the ceiling
    ryzen = sc.with_ceiling(sc.select_timing(sc.speed_table(sc.read_csvs([str(RYZEN)])), "batched"))
    assert set(ryzen.loc[ryzen["device"] == "cuda", "ceiling_kind"]) <= {"read", ""}  # "": no ceiling of those bytes


def test_opencl_and_vulkan_are_judged_against_their_own_rooflines():
    speed = sc.select_timing(sc.speed_table(sc.read_csvs([str(H100)])), "batched")
    sp = sc.with_ceiling(speed).set_index(["series", "n"])
    for api, floor_ns in [("opencl", 6000), ("vulkan", 3500)]:
        kinds = sp.loc[sp["device"] == api, "ceiling_kind"]
        assert set(kinds) == {"roofline"}, api
        # 2^10: that API's launch floor bounds the call, not CUDA's
        assert sp.loc[(f"{api}/single-pass", 2**10), "ceiling"] == pytest.approx(4096 / floor_ns, rel=2e-3), api
        assert not sp.loc[(f"{api}/single-pass", 2**10), "above_ceiling"], api
    # the Vulkan read pays a fill a call: the single-pass outruns the read of as many bytes, not the roofline
    assert sp.loc[("vulkan/single-pass", 2**10), "gbps"] > 1.5 * sp.loc[("vulkan/baseline/read", 2**10), "gbps"]


def test_the_summary_flags_every_reduction_above_the_ceiling(plotted):
    out, _ = plotted
    text = (out / "summary.md").read_text()
    above = text.split("## Above the ceiling\n", 1)[1].split("\n## ", 1)[0]
    flagged = [line for line in above.splitlines() if line.startswith("| h100")]
    assert len(flagged) == 1 and "`cuda/shuffle` | 2^12 | batched" in flagged[0] and "167% ⚠" in flagged[0]
    row = summary_row(text, "h100: NVIDIA H100 80GB HBM3 — cuda", "2^12")
    assert row[2] == "`cuda/shuffle`" and row[4] == "167% ⚠"
    row = summary_row(text, "h100: NVIDIA H100 80GB HBM3 — cuda", "2^10")
    assert row[2] == "`cuda/single-pass`" and row[4] == "91%"  # against the roofline, not the 2^10 read


def test_the_roofline_reads_at_the_machine_best_read_in_any_api_and_timing():
    """The floor is each API's and timing's own; the read rate is the memory's: one best per machine."""
    speed = sc.speed_table(sc.read_csvs([str(H100)]))
    roofs = sc.rooflines(speed)
    on = roofs[roofs["machine"] == "h100-7a8b9c0d"]
    assert set(on["device"]) == {"cuda", "opencl", "vulkan"} and set(on["timing"]) == {"batched", "isolated"}
    reads = speed[(speed["machine"] == "h100-7a8b9c0d") & (speed["role"] == "ceiling")
                  & speed["device"].isin(["cuda", "opencl", "vulkan"])]
    assert set(on["best_gbps"]) == {reads["gbps"].max()}
    assert on["floor_ns"].nunique() > 1  # each API and timing keeps its own floor


def committed_results(folder: str = "results") -> list[Path]:
    """FOLDER/*.csv as committed: the files git tracks there, so that a run's own
    results/<machine>.csv (scripts/run.sh writes one) is not taken for the committed set; every
    such file outside a git checkout."""
    try:
        listed = subprocess.run(["git", "-C", str(sc.REPO_ROOT), "ls-files", "-z", "--", f":(glob){folder}/*.csv"],
                                capture_output=True, text=True, check=True).stdout.split("\0")
    except (OSError, subprocess.CalledProcessError):
        return sorted((sc.REPO_ROOT / folder).glob("*.csv"))
    return sorted(sc.REPO_ROOT / p for p in listed if p)


def test_every_committed_row_carries_one_version():
    """results/*.csv and results/latency/*.csv are one build's: the README's results are one version."""
    paths = [*committed_results(), *committed_results("results/latency")]
    versions = set(sc.read_csvs([str(p) for p in paths])["version"])
    assert len(versions) == 1 and "" not in versions and not next(iter(versions)).endswith("-dirty"), versions


def test_the_committed_gpu_rows_stay_under_their_roofline():
    """The GPU ceiling must be one on real data: no committed reduction on one GPU, in either
    timing, more than the margin above max(launch floor, bytes / best read) of its machine and API."""
    rows = sc.read_csvs([str(p) for p in committed_results()])
    speed = sc.speed_table(sc.one_device(sc.speed_rows(rows, explicit_input=False)))
    gpu = sc.with_ceiling(speed[speed["device"].isin(["cuda", "opencl", "vulkan"])])
    assert (gpu.loc[gpu["role"] == "reduction", "ceiling_kind"] == "roofline").all()
    above = gpu[gpu["above_ceiling"]]
    assert above.empty, above[["machine", "device", "series", "n", "timing", "gbps", "ceiling"]].to_string()


def test_the_cost_model_gives_back_the_numbers_the_rows_were_made_from():
    speed = sc.select_timing(sc.speed_table(sc.read_csvs([str(H100)])), "batched")
    fits = sc.cost_model(speed).set_index("series")
    for series, t0, r_inf in [("cuda/single-pass", 2200, 2950), ("cuda/cub", 6500, 2980),
                              ("cuda/baseline/read", 2500, 3000), ("cuda/exact", 9000, 1500)]:
        assert fits.loc[series, "t0_ns"] == pytest.approx(t0, rel=0.01), series
        assert fits.loc[series, "r_inf"] == pytest.approx(r_inf, rel=0.01), series
        assert fits.loc[series, "n_half_bytes"] == pytest.approx(t0 * r_inf, rel=0.02), series
        assert fits.loc[series, "worst_error"] < 0.01, series
    assert "cuda/baseline/launch" not in fits.index  # it reads nothing: no rate to fit
    # the trap at 2^12 is a point the model cannot fit
    assert fits.loc["cuda/shuffle", "worst_error"] > 0.5


def test_the_summary_lists_the_cost_model(plotted):
    out, _ = plotted
    text = (out / "summary.md").read_text()
    section = text.split("## h100: NVIDIA H100 80GB HBM3 — cuda\n", 1)[1].split("\n## ", 1)[0]
    assert "| backend | t0 | r∞ GB/s | n½ |" in section
    assert "| `cuda/single-pass` | 2.2 µs | 2950 | 6.2 MiB (1.62e+06 elements) |" in section
    assert "| `cuda/baseline/read` (ceiling) | 2.5 µs | 3000 |" in section
    assert "version `v0.2-3-gabc1234` (176 rows)" in section


def test_the_report_is_one_file_with_plotly_inlined_and_every_filter(plotted):
    out, _ = plotted
    html = (out / "report.html").read_text()
    assert not re.search(r"<script[^>]*\ssrc=", html)  # plotly.js inlined: nothing fetched when viewed
    assert "Plotly.react" in html and "plotly.js" in html
    for key in ('"points":{"machine":', '"errors":{"machine":', '"compare":{"a":', '"default":{"machine":'):
        assert key in html  # the data the views are drawn from (report.py), inlined
    assert "<title>Accumulate Shootout — report</title>" in html
    assert "v0.2-3-gabc1234" in html
