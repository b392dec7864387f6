"""Tests of plot/significance.py and compare.py's verdicts: the statistics on synthetic samples
with known answers, then compare.py on files made to differ by a known factor, and on the committed
results (two runs of one machine, the H100 against the H200)."""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

HERE = Path(__file__).resolve().parent
PLOT_DIR = HERE.parent
REPO = PLOT_DIR.parent
sys.path.insert(0, str(PLOT_DIR))

import significance as sig  # noqa: E402

RYZEN = HERE / "data" / "ws-ryzen.csv"  # three inputs per point: three samples
XEON = HERE / "data" / "lab-xeon.csv"


def run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PLOT_DIR / "compare.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=300)


# ---------------------------------------------------------------------------------------------
# The statistics


def test_u_test_of_separated_samples_is_the_exact_two_sided_p():
    # B's four times all above A's: of the 70 ways to split 8 ranks 4/4, 2 are this extreme.
    result = sig.compare_samples([1.0, 2, 3, 4], [5.0, 6, 7, 8])
    assert result.p == pytest.approx(2 / 70)
    assert result.p == pytest.approx(stats.mannwhitneyu([1, 2, 3, 4], [5, 6, 7, 8], method="exact").pvalue)
    assert result.ratio == pytest.approx(2.5 / 6.5)  # A's median time over B's: B's speed over A's
    assert result.verdict == sig.SLOWER and result.method == sig.METHOD_SAMPLES
    assert result.low <= result.ratio <= result.high < 1


def test_u_test_against_scipy_on_ties_and_unequal_sizes():
    rng = np.random.default_rng(7)
    a = np.round(rng.normal(100, 3, 9))  # rounded: ties, so the normal approximation with ties
    b = np.round(rng.normal(104, 3, 13))
    assert sig.compare_samples(a, b).p == pytest.approx(stats.mannwhitneyu(a, b).pvalue)


def test_samples_of_one_distribution_are_the_same_within_noise():
    rng = np.random.default_rng(1)
    a, b = rng.normal(100, 2, 30), rng.normal(100, 2, 30)
    result = sig.compare_samples(a, b)
    assert result.verdict == sig.SAME
    assert result.low < 1 < result.high


def test_bootstrap_interval_holds_a_known_ratio():
    # B 10% faster (times / 1.1), 1% noise, 200 samples each: the interval is narrow and around 1.1.
    rng = np.random.default_rng(2)
    a = 1000 * rng.lognormal(0, 0.01, 200)
    b = 1000 / 1.1 * rng.lognormal(0, 0.01, 200)
    result = sig.compare_samples(a, b)
    assert result.verdict == sig.FASTER
    assert result.low < 1.1 < result.high and result.high - result.low < 0.01


def test_a_significant_difference_inside_the_margin_is_the_same_within_noise():
    rng = np.random.default_rng(3)
    a = 1000 * rng.lognormal(0, 0.001, 50)
    b = 1000 / 1.01 * rng.lognormal(0, 0.001, 50)  # 1% faster, beyond doubt
    assert sig.compare_samples(a, b, margin=0.0).verdict == sig.FASTER
    assert sig.compare_samples(a, b).verdict == sig.SAME  # the default 2% margin


def test_row_noise_interval_is_the_normal_interval_of_the_log_ratio():
    result = sig.compare_noise(105.0, 0.01, 100.0, 0.01)
    half = 1.959964 * math.hypot(0.01, 0.01)
    assert result.ratio == pytest.approx(1.05)
    assert (result.low, result.high) == pytest.approx((1.05 * math.exp(-half), 1.05 * math.exp(half)))
    assert result.verdict == sig.FASTER and result.method == sig.METHOD_NOISE
    assert sig.compare_noise(105.0, 0.03, 100.0, 0.03).verdict == sig.SAME  # 4.2%: within 1.96 x 4.2%
    assert sig.compare_noise(95.0, 0.01, 100.0, 0.01).verdict == sig.SLOWER


def test_no_noise_is_noise_unknown():
    result = sig.compare_noise(105.0, math.nan, 100.0, 0.01)
    assert result.verdict == sig.UNKNOWN and math.isnan(result.low) and result.method == ""


def test_the_gap_between_median_and_minimum_of_5_estimates_the_spread():
    # 100000 rows of 5 repetitions with a 1% relative standard deviation.
    rng = np.random.default_rng(4)
    reps = 1000 * (1 + 0.01 * rng.standard_normal((100_000, 5)))
    estimate = sig.spread_from_gap(np.median(reps, axis=1), reps.min(axis=1))
    assert np.mean(estimate) == pytest.approx(0.01, rel=0.01)


def test_median_standard_error():
    # Medians of 101 samples of sigma 1: their spread is sqrt(pi / 2) / sqrt(101) for large counts.
    rng = np.random.default_rng(5)
    medians = np.median(rng.standard_normal((20_000, 101)), axis=1)
    assert np.std(medians) == pytest.approx(sig.median_relative_se(1.0, 101), rel=0.03)


def test_a_rows_noise_is_its_spread_and_reps_else_its_median_minimum_gap():
    rows = pd.DataFrame({"time_ns_median": [100.0, 100.0, 100.0], "time_ns_min": [90.0, 90.0, math.nan],
                         "spread": [0.05, math.nan, math.nan], "reps": pd.array([20, pd.NA, pd.NA], dtype="Int64")})
    se = sig.row_se(rows)
    assert se[0] == pytest.approx(sig.MEDIAN_SE * 0.05 / math.sqrt(20))
    assert se[1] == pytest.approx(sig.MEDIAN_SE * 0.1 / sig.MIN_GAP_SIGMAS / math.sqrt(sig.DEFAULT_REPS))
    assert math.isnan(se[2])  # neither: the noise is unknown
    assert sig.row_se(rows.drop(columns=["spread", "reps"]))[0] == pytest.approx(se[1])  # an older file


def test_judge_takes_the_u_test_from_4_samples_a_side_and_row_noise_below():
    four = sig.judge([1.0, 2, 3, 4], 0.01, [5.0, 6, 7, 8], 0.01)
    assert four == sig.compare_samples([1.0, 2, 3, 4], [5.0, 6, 7, 8])
    three = sig.judge([1.0, 2, 3, 4], 0.01, [5.0, 6, 7], 0.01)
    assert three == sig.compare_noise(2.5, 0.01, 6.0, 0.01) and three.method == sig.METHOD_NOISE


# ---------------------------------------------------------------------------------------------
# compare.py


def scaled_copy(src: Path, dst: Path, factor_of: dict[str, float], jitter: float = 0.0, seed: int = 0) -> Path:
    """src with each backend's times divided by factor_of[backend] (1 for the others) and GB/s times
    it, each row's times also moved by a random relative `jitter`."""
    rng = np.random.default_rng(seed)
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        k = factor_of.get(r["backend"], 1.0) * (1 + jitter * rng.standard_normal())
        for col in ("time_ns_median", "time_ns_min"):
            r[col] = repr(float(r[col]) / k)
        r["gbps"] = repr(float(r["gbps"]) * k)
    with open(dst, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return dst


def verdicts(stdout: str, backend: str) -> list[str]:
    return [line.split("  ")[-1].strip() for line in stdout.splitlines() if line.startswith(backend + " ")]


def test_one_backend_made_faster_is_called_faster_and_the_others_the_same(tmp_path):
    b = scaled_copy(RYZEN, tmp_path / "b.csv", {"cpu/serial/kahan": 1.5})
    result = run(RYZEN, b, "--device", "cpu")
    assert result.returncode == 0, result.stderr
    faster = verdicts(result.stdout, "cpu/serial/kahan")
    same = verdicts(result.stdout, "cpu/tbb/reduce")
    assert faster and set(faster) == {sig.FASTER}
    assert same and set(same) == {sig.SAME}
    assert "U test" in result.stdout and "1.50x" in result.stdout


def test_folders_of_runs_are_samples_for_the_u_test(tmp_path):
    # 5 runs a side, 2% noise per row; B's cpu/serial/kahan 20% faster.
    for side, factor in (("a", 1.0), ("b", 1.2)):
        (tmp_path / side).mkdir()
        for k in range(5):
            scaled_copy(RYZEN, tmp_path / side / f"run-{k}.csv", {"cpu/serial/kahan": factor}, 0.02, seed=10 * (side == "b") + k)
    result = run(tmp_path / "a", tmp_path / "b", "--device", "cpu", "--backend", "cpu/serial/kahan",
                 "--backend", "cpu/tbb/reduce")
    assert result.returncode == 0, result.stderr
    kahan = [line for line in result.stdout.splitlines() if line.startswith("cpu/serial/kahan ")]
    samples = [line.split()[-2].split("/") for line in kahan]  # "15/15": 5 runs x 3 inputs (or more)
    assert kahan and all(int(a) >= 15 and int(b) >= 15 for a, b in samples)
    assert set(verdicts(result.stdout, "cpu/serial/kahan")) == {sig.FASTER}
    assert set(verdicts(result.stdout, "cpu/tbb/reduce")) == {sig.SAME}
    assert "/a (5 files): machine ws-ryzen-3f9a0c71" in result.stdout


def json_document(csv_path: Path, out: Path, spread: float, factor_of: dict[str, float], seed: int) -> Path:
    """An accumulate_bench --json document of csv_path's rows, each with 5 repetitions around its
    median (relative noise `spread`), a backend's divided by factor_of[backend]."""
    rng = np.random.default_rng(seed)
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    measurements = []
    for r in rows:
        m = {k: (int(v) if k in ("threads", "gpus", "ranks", "n", "seed") and v else v) for k, v in r.items()}
        t = float(r["time_ns_median"]) / factor_of.get(r["backend"], 1.0)
        m["repetitions_ns"] = list(t * (1 + spread * rng.standard_normal(5)))
        measurements.append(m)
    out.write_text(json.dumps({"columns_documented_in": "results/README.md", "measurements": measurements}))
    return out


def test_repetitions_from_the_json_documents_are_the_samples(tmp_path):
    # The same rows on both sides; B's JSON says cpu/serial/kahan's repetitions were 10% faster.
    ja = json_document(RYZEN, tmp_path / "a.json", 0.01, {}, 1)
    jb = json_document(RYZEN, tmp_path / "b.json", 0.01, {"cpu/serial/kahan": 1.1}, 2)
    result = run(RYZEN, RYZEN, "--json-a", ja, "--json-b", jb, "--device", "cpu",
                 "--backend", "cpu/serial/kahan", "--backend", "cpu/tbb/reduce")
    assert result.returncode == 0, result.stderr
    kahan = [line for line in result.stdout.splitlines() if line.startswith("cpu/serial/kahan ")]
    samples = [line.split()[-2].split("/") for line in kahan]  # 3 inputs (or more) x 5 repetitions
    assert kahan and all(int(a) >= 15 and int(b) >= 15 for a, b in samples)
    assert set(verdicts(result.stdout, "cpu/serial/kahan")) == {sig.FASTER}
    assert set(verdicts(result.stdout, "cpu/tbb/reduce")) == {sig.SAME}
    # Without the documents, the same files are one median each: identical, the same within noise.
    result = run(RYZEN, RYZEN, "--device", "cpu", "--backend", "cpu/serial/kahan")
    assert set(verdicts(result.stdout, "cpu/serial/kahan")) == {sig.SAME}


def test_plot_draws_a_panel_per_device(tmp_path):
    result = run(RYZEN, XEON, "--plot", tmp_path)
    assert result.returncode == 0, result.stderr
    svg = (tmp_path / "compare.svg").read_text()
    assert "GPU (CUDA, device memory)" in svg and "B/A speed (log)" in svg
    assert (tmp_path / "compare.png").stat().st_size > 0


def test_references_prints_the_ratio_per_size_band():
    result = run("--references", XEON, RYZEN)
    assert result.returncode == 0, result.stderr
    assert "this machine against the reference machines" in result.stdout
    assert "A = machine ws-ryzen-3f9a0c71 (host ws-ryzen)" in result.stdout
    for band in ("up to 256 KiB", "256 KiB to 16 MiB", "above 16 MiB"):
        assert band in result.stdout


def test_a_machine_is_found_in_the_results():
    result = run("vm-2b0f5da4", "vm-56842293", "--backend", "cuda/cub")
    assert result.returncode == 0, result.stderr
    assert "A = results/*.csv: machine vm-2b0f5da4 (host vm)" in result.stdout and "NVIDIA H100" in result.stdout


# ---------------------------------------------------------------------------------------------
# The committed results


def test_two_runs_of_one_machine_are_mostly_the_same_within_noise():
    runs = REPO / "results" / "ceiling-runs" / "dev-vm-b668e32"
    result = run(runs / "run-01.csv", runs / "run-02.csv")
    assert result.returncode == 0, result.stderr
    counts = result.stdout.splitlines()[-1]  # "63 backend/size pairs in both: 8 faster, ..."
    pairs = int(counts.split()[0])
    same = int(counts.split(": ")[1].split(" same within noise")[0].split(", ")[-1])
    assert same > pairs / 2


def test_the_h200_reads_memory_faster_than_the_h100():
    result = run(REPO / "results" / "h100-gpu.csv", REPO / "results" / "h200-gpu.csv", "--backend", "cuda/cub")
    assert result.returncode == 0, result.stderr
    line = next(l for l in result.stdout.splitlines() if l.startswith("cuda/cub ") and " 2^28 " in l)
    assert line.endswith(sig.FASTER) and " 1.47x " in line  # HBM3e 4.8 TB/s against HBM3's 3.35
