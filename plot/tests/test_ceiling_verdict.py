"""Tests of plot/ceiling_verdict.py: runs written from one fixture row, with known ratios."""

from __future__ import annotations

import csv
import math
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PLOT_DIR = HERE.parent
sys.path.insert(0, str(PLOT_DIR))

import ceiling_verdict as cv  # noqa: E402
import shootout_csv as sc  # noqa: E402

RYZEN = HERE / "data" / "ws-ryzen.csv"
CEILING = "cpu/baseline/read"


def template() -> dict[str, str]:
    with open(RYZEN, newline="") as f:
        return next(r for r in csv.DictReader(f) if r["device"] == "cpu")


def write_run(path: Path, rows: list[tuple[str, int, int, float]], minute: int = 0) -> Path:
    """One run's file: rows of (backend, n, threads, gbps); the ceiling's role is `ceiling`."""
    base = template()
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=sc.COLUMNS, lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        for i, (backend, n, threads, gbps) in enumerate(rows):
            w.writerow({**base, "backend": backend, "n": n, "bytes": 4 * n, "threads": threads,
                        "gbps": gbps, "time_ns_median": 4 * n / gbps,
                        "role": "ceiling" if backend == CEILING else "reduction",
                        "timestamp": f"2026-11-22T10:{minute:02d}:{i % 60:02d}Z"})
    return path


def runs(tmp: Path, rival_ratios: dict[str, list[float]], n: int = 2**24, threads: int = 2,
         drift: list[float] | None = None) -> list[Path]:
    """len(ratios) runs: in run k the ceiling reads drift[k] (default 50) GB/s and each rival
    its ratio[k] times that, at the ceiling's thread count."""
    count = len(next(iter(rival_ratios.values())))
    drift = drift or [50.0] * count
    return [write_run(tmp / f"run-{k}.csv",
                      [(CEILING, n, threads, drift[k])] +
                      [(rival, n, threads, drift[k] * ratios[k]) for rival, ratios in rival_ratios.items()],
                      minute=k)
            for k in range(count)]


def verdict_of(paths: list[Path], *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PLOT_DIR / "ceiling_verdict.py"), *map(str, paths),
                           *map(str, args)], capture_output=True, text=True, timeout=120)


def table_row(out: str, rival: str) -> list[str]:
    return next(line.split() for line in out.splitlines() if f" {rival} " in line)


@pytest.mark.parametrize("k, expected", [
    (5, None),        # P(all five on one side) = 1/16 > 2.5%: no 95% interval
    (6, (0, 5)),      # 1/64 <= 2.5%: the extremes
    (10, (1, 8)),     # P(B <= 1) = 11/1024 <= 2.5% < P(B <= 2) = 56/1024
    (15, (3, 11)),    # P(B <= 3) = 576/32768 <= 2.5% < P(B <= 4)
])
def test_median_interval_is_the_sign_tests_order_statistics(k, expected):
    values = [float(v) for v in range(k, 0, -1)]  # unsorted on purpose
    low, high = cv.median_interval(values, 0.95)
    if expected is None:
        assert math.isnan(low) and math.isnan(high)
    else:
        assert (low, high) == (float(expected[0] + 1), float(expected[1] + 1))


def test_a_rival_faster_by_more_than_the_margin_in_every_run_beats_the_ceiling(tmp_path):
    paths = runs(tmp_path, {"cpu/pool/simd": [1.05, 1.04, 1.06, 1.05, 1.045, 1.055, 1.05, 1.04]})
    result = verdict_of(paths)
    assert result.returncode == 1, result.stderr
    row = table_row(result.stdout, "cpu/pool/simd")
    assert row[-1] == "beaten" and row[4] == "8" and row[5] == "1.050"
    assert "1 beaten" in result.stdout


def test_a_rival_within_the_margin_holds_even_when_the_machine_drifts(tmp_path):
    # The machine's speed halves and doubles from run to run; the rival keeps 1% ahead of the
    # ceiling measured beside it: paired ratios, not medians of each, decide.
    drift = [50, 100, 25, 80, 40, 90, 30, 60, 70, 45]
    paths = runs(tmp_path, {"cpu/pool/simd": [1.01, 1.0, 1.015, 0.99, 1.01, 1.005, 1.0, 1.01, 0.995, 1.012]},
                 drift=[float(d) for d in drift])
    result = verdict_of(paths, "--all")
    assert result.returncode == 0, result.stderr
    assert table_row(result.stdout, "cpu/pool/simd")[-1] == "holds"
    # Without --all only the pairs that do not hold are listed.
    quiet = verdict_of(paths)
    assert "cpu/pool/simd" not in quiet.stdout and "1 hold, 0 undecided, 0 beaten" in quiet.stdout


def test_a_rival_that_wins_some_runs_and_loses_others_is_undecided(tmp_path):
    ratios = [0.97, 1.07, 0.98, 1.06, 0.97, 1.08, 0.99, 1.07]
    result = verdict_of(runs(tmp_path, {"cpu/tbb/reduce": ratios}))
    assert result.returncode == 0, result.stderr
    assert table_row(result.stdout, "cpu/tbb/reduce")[-1] == "undecided"


def test_too_few_runs_decide_nothing(tmp_path):
    result = verdict_of(runs(tmp_path, {"cpu/pool/simd": [1.1] * 5}))
    assert result.returncode == 0, result.stderr
    assert table_row(result.stdout, "cpu/pool/simd")[-2] == "-..-"
    assert "a 95% interval needs 6 or more, so every pair is undecided" in result.stderr


def test_only_rivals_with_as_many_threads_or_fewer_and_sizes_from_min_n_are_judged(tmp_path):
    paths = [write_run(tmp_path / f"run-{k}.csv", [
        (CEILING, 2**24, 2, 50.0), ("cpu/pool/simd", 2**24, 4, 80.0),  # more threads: no rival
        ("cpu/avx2/f32", 2**24, 1, 60.0),  # fewer threads, faster: a rival
        (CEILING, 2**12, 2, 50.0), ("cpu/avx2/f32", 2**12, 1, 90.0),  # below --min-n
    ], minute=k) for k in range(6)]
    result = verdict_of(paths)
    assert result.returncode == 1
    assert table_row(result.stdout, "cpu/avx2/f32")[:4] == ["2^24", "2", "cpu/avx2/f32", "1"]
    assert "cpu/pool/simd" not in result.stdout and "2^12" not in result.stdout
    assert "1 (ceiling, reduction) pairs" in result.stdout


@pytest.mark.parametrize("case, message", [
    ("twice", "a file is named twice: each file is one run"),
    ("no_ceiling", "no file has a ceiling and a reduction measured side by side at 65536 elements"),
    ("confidence", "--confidence 1.5: must be between 0 and 1"),
    ("missing", "nope.csv: no such file"),
])
def test_bad_input_gives_its_message_and_status_2(tmp_path, case, message):
    one = runs(tmp_path, {"cpu/pool/simd": [1.0] * 6})[0]
    args = {"twice": [one, one],
            "no_ceiling": [write_run(tmp_path / "lone.csv", [("cpu/pool/simd", 2**24, 2, 50.0)])],
            "confidence": [one, "--confidence", "1.5"],
            "missing": [tmp_path / "nope.csv"]}[case]
    result = verdict_of(args)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
