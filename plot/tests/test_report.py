"""plot/report.py's data, without a browser: the ratio intervals of the machine view on samples with
known answers, the families and the ceiling of the opening view, the noise columns in the points."""

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

FIXTURES = [HERE / "data" / name for name in ("ws-ryzen.csv", "h100.csv", "h200x4.csv")]


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    return sc.read_csvs([str(p) for p in FIXTURES])


def test_the_interval_of_identical_samples_is_their_ratio():
    rng = np.random.default_rng(1)
    ratio, lo, hi = report.ratio_interval(np.full(5, 100.0), np.full(5, 200.0), rng)
    assert (ratio, lo, hi) == (2.0, 2.0, 2.0)


def test_the_bootstrap_interval_holds_the_true_ratio_and_tells_a_real_difference():
    rng = np.random.default_rng(2)
    a = rng.normal(100, 1, 41)
    faster = rng.normal(110, 1, 41)
    ratio, lo, hi = report.ratio_interval(a, faster, rng)
    assert lo < 1.1 < hi and lo > 1.0 and ratio == pytest.approx(1.1, abs=0.01)
    same = rng.normal(100, 1, 41)
    _, lo, hi = report.ratio_interval(a, same, rng)
    assert lo < 1.0 < hi and hi - lo < 0.02


def test_one_sample_each_gives_an_interval_only_from_the_rows_spread():
    rng = np.random.default_rng(3)
    ratio, lo, hi = report.ratio_interval(np.array([100.0]), np.array([120.0]), rng)
    assert ratio == pytest.approx(1.2) and math.isnan(lo) and math.isnan(hi)
    # medians of 5 repetitions with a 5% spread each: se of the log ratio = 1.2533 * sqrt(2 * 0.05^2 / 5)
    ratio, lo, hi = report.ratio_interval(np.array([100.0]), np.array([120.0]), rng, (0.05, 5, 0.05, 5))
    se = 1.2533 * math.sqrt(2 * 0.05**2 / 5)
    assert (lo, hi) == pytest.approx((1.2 * math.exp(-1.959964 * se), 1.2 * math.exp(1.959964 * se)))
    _, lo, _ = report.ratio_interval(np.array([100.0]), np.array([120.0]), rng, (math.nan, 5, 0.05, 5))
    assert math.isnan(lo)  # a row without a spread (an older file): the noise is unknown


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
    plain = pd.DataFrame(report.report_data(rows)["compare"])
    assert plain["lo"].isna().all()  # the fixture's rows are one sample each, with no spread
    # rows of a file before the noise columns: an empty spread and count, as the reader gives them
    older = rows.assign(spread=math.nan, reps=pd.array([pd.NA] * len(rows), dtype="Int64"), noisy="")
    assert pd.DataFrame(report.report_data(older)["compare"])["lo"].isna().all()


def test_an_overflowed_sums_error_reaches_the_page_as_inf_and_nan_as_null(rows):
    assert [report.json_value(v) for v in (math.inf, -math.inf, math.nan, pd.NA, np.int64(3), True, 0.5)] == \
        ["inf", "-inf", None, None, 3, 1, 0.5]
    overflowed = rows.copy()
    overflowed.loc[overflowed["backend"] == "cuda/cub", "rel_error"] = math.inf
    errors = report.report_data(overflowed)["errors"]["rel_error"]
    assert "inf" in errors and all(e is None or e == "inf" or math.isfinite(e) for e in errors)
