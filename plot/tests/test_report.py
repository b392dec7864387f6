"""plot/report.py's data, without a browser: the machine view's comparisons (significance.py's, on
each machine's times per call), the families and the ceiling of the opening view, the noise columns in the points."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import report  # noqa: E402
import shootout_csv as sc  # noqa: E402
import significance as sig  # noqa: E402

FIXTURES = [HERE / "data" / name for name in ("ws-ryzen.csv", "h100.csv", "h200x4.csv")]


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    return sc.read_csvs([str(p) for p in FIXTURES])


def machine_rows(machine: str, times: list[float], gap: float, spread: float | None = None) -> pd.DataFrame:
    """One point's rows of a machine (cpu/serial, f64, 2^20): a row per time per call (each its own
    input seed) with the given median-minimum gap, and a spread from 5 repetitions where given."""
    n = len(times)
    return pd.DataFrame({"machine": machine, "label": machine, "series": "cpu/serial", "backend": "cpu/serial",
                         "device": "cpu", "dtype": "f64", "timing": "isolated", "n": 2**20, "role": "reduction",
                         "time_ns_median": times, "time_ns_min": [t * (1 - gap) for t in times],
                         "spread": [spread if spread is not None else math.nan] * n,
                         "reps": pd.array([5 if spread is not None else pd.NA] * n, dtype="Int64")})


def one_comparison(a: pd.DataFrame, b: pd.DataFrame) -> dict:
    (c,) = report.comparisons(pd.concat([a, b], ignore_index=True)).to_dict("records")
    return c


def test_the_machine_comparison_is_significances_on_the_times_per_call():
    # 5 rows a side: the U test and bootstrap of the times per call (b is 10% faster)
    rng = np.random.default_rng(2)
    ta, tb = rng.normal(1100, 5, 5), rng.normal(1000, 5, 5)
    c = one_comparison(machine_rows("a", list(ta), 0.01), machine_rows("b", list(tb), 0.01))
    expected = sig.compare_samples(ta, tb)
    assert (c["ratio"], c["lo"], c["hi"], c["verdict"]) == (expected.ratio, expected.low, expected.high, sig.FASTER)
    assert c["ratio"] == pytest.approx(1.1, abs=0.02) and (c["samples_a"], c["samples_b"]) == (5, 5)
    # one row each with a 5% spread of 5 repetitions: the normal interval of the log ratio
    c = one_comparison(machine_rows("a", [1200.0], 0.1, 0.05), machine_rows("b", [1000.0], 0.1, 0.05))
    half = sig.Z * math.hypot(*[sig.median_relative_se(0.05, 5)] * 2)
    assert (c["ratio"], c["lo"], c["hi"]) == pytest.approx((1.2, 1.2 * math.exp(-half), 1.2 * math.exp(half)))
    assert c["verdict"] == sig.FASTER


def test_rows_without_a_spread_take_their_noise_from_the_median_minimum_gap():
    c = one_comparison(machine_rows("a", [1000.0], 0.05), machine_rows("b", [1010.0], 0.05))
    se = sig.median_relative_se(sig.spread_from_gap(1000.0, 950.0), sig.DEFAULT_REPS)
    assert c["lo"] == pytest.approx(c["ratio"] * math.exp(-sig.Z * math.hypot(se, se)))
    assert c["verdict"] == sig.SAME  # 1%: inside the interval and the margin
    c = one_comparison(machine_rows("a", [1000.0], math.nan), machine_rows("b", [1010.0], 0.05))
    assert c["verdict"] == sig.UNKNOWN and math.isnan(c["lo"])  # no minimum and no spread


def test_the_opening_view_draws_each_familys_fastest_and_no_floor_or_ceiling_as_a_backend(rows):
    data = report.report_data(rows, ladder="cuda/ladder/*")
    points = pd.DataFrame(data["points"])
    assert set(points["series"]) & {"cuda/baseline/launch", "cuda/baseline/read", "cuda/baseline/copy"} == set()
    assert data["default"] == {"machine": "h200x4-5c6d7e8f", "device": "cuda", "dtype": "f32", "timing": "batched"}
    h100 = points[(points["machine"] == "h100-7a8b9c0d") & (points["device"] == "cuda") & (points["timing"] == "batched")]
    best = h100[h100["best"] == 1].drop_duplicates("series")
    assert best["accumulator"].is_unique  # one series per family (f32 here: one per accumulator)
    assert set(best["accumulator"]) == set(h100["accumulator"])
    # the roofline of the H100's batched rows rides on each point: max(floor, bytes / best read)
    assert (h100["ceiling_kind"] == "roofline").all() and h100["ceiling"].notna().all()
    ryzen = points[(points["machine"] == "ws-ryzen-3f9a0c71") & (points["device"] == "cuda")]
    assert not ryzen.loc[ryzen["best"] == 1, "series"].str.startswith("cuda/ladder/").any()


def test_the_noise_columns_reach_the_points_and_the_machine_comparison(rows):
    noisy = rows.assign(spread=0.02, reps=5, noisy="no")
    noisy.loc[noisy["backend"] == "cuda/cub", "noisy"] = "yes"
    data = report.report_data(noisy)
    points = pd.DataFrame(data["points"])
    assert (points["spread"] == 0.02).all() and (points["reps"] == 5).all()
    assert set(points.loc[points["series"] == "cuda/cub", "noisy"]) == {1}
    compare = pd.DataFrame(data["compare"])
    one_each = compare[(compare["samples_a"] == 1) & (compare["samples_b"] == 1)]
    assert not one_each.empty and one_each["lo"].notna().all()
    assert (one_each["lo"] < one_each["ratio"]).all() and (one_each["ratio"] < one_each["hi"]).all()
    assert set(compare["verdict"]) <= {sig.FASTER, sig.SLOWER, sig.SAME}
    # rows of a file before the noise columns (an empty spread and count, as the reader gives them):
    # the noise of the median-minimum gap, the same as a file without those columns
    older = rows.assign(spread=math.nan, reps=pd.array([pd.NA] * len(rows), dtype="Int64"), noisy="")
    older_compare = pd.DataFrame(report.report_data(older)["compare"])
    plain = pd.DataFrame(report.report_data(rows)["compare"])
    assert plain["lo"].notna().all() and plain.equals(older_compare)


def test_an_overflowed_sums_error_reaches_the_page_as_inf_and_nan_as_null(rows):
    assert [report.json_value(v) for v in (math.inf, -math.inf, math.nan, pd.NA, np.int64(3), True, 0.5)] == \
        ["inf", "-inf", None, None, 3, 1, 0.5]
    overflowed = rows.copy()
    overflowed.loc[overflowed["backend"] == "cuda/cub", "rel_error"] = math.inf
    errors = report.report_data(overflowed)["errors"]["rel_error"]
    assert "inf" in errors and all(e is None or e == "inf" or math.isfinite(e) for e in errors)
