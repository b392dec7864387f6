"""Is B faster than A, or the same within noise? The ratio of two machines' times per call with a
95% interval and a verdict (plot/README.md, "compare.py": the method, stated once there).

Two ways, by what the rows give:
- samples: 4 or more times per side (repetitions, or rows of several inputs, seeds or runs): SciPy's
  two-sided Mann-Whitney U test says whether the two differ, a percentile bootstrap of the ratio of
  their medians gives the interval;
- row noise: one median each, with how much its repetitions spread (the `spread` and `reps` columns,
  or for rows without them the gap between the median and the minimum of 5 repetitions): the
  standard error of each median, and a normal interval of the log of their ratio.
A side with neither is "noise unknown". judge() picks the way; compare.py and report.py both call it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from scipy import stats

ALPHA = 0.05  # 95% intervals, 5% tests
# Differences below 2% are not called: one run's rows do not resolve them on a shared machine (the
# plots' ceiling rule uses the same 2%; the dev VM's runs move by more between runs).
MARGIN = 0.02
Z = NormalDist().inv_cdf(1 - ALPHA / 2)
# The fewest samples a side needs for the U test: with 3 against 3 its two-sided p is never below
# 0.1, with 4 against 4 it reaches 2/70 = 0.029.
MIN_SAMPLES = 4
BOOTSTRAP_RESAMPLES = 4000
BOOTSTRAP_SEED = 41  # the same files give the same intervals
# Standard error of the median of k normal samples, in sigmas times sqrt(k): sqrt(pi / 2).
MEDIAN_SE = math.sqrt(math.pi / 2)
# Rows without a spread: the harness's default of 5 repetitions, whose median lies, on average,
# 1.163 sigmas above their minimum (the expected smallest of 5 standard normals is -1.16296).
DEFAULT_REPS = 5
MIN_GAP_SIGMAS = 1.16296

FASTER, SLOWER, SAME, UNKNOWN = "faster", "slower", "same within noise", "noise unknown"
METHOD_SAMPLES, METHOD_NOISE = "U test + bootstrap", "row noise"


@dataclass(frozen=True)
class Comparison:
    ratio: float          # B's speed over A's: median time of A / median time of B
    low: float            # the 95% interval of ratio (nan where the noise is unknown)
    high: float
    p: float              # the U test's two-sided p (nan for the row-noise method)
    method: str           # METHOD_SAMPLES, METHOD_NOISE or "" (noise unknown)
    verdict: str


def verdict_of(ratio: float, low: float, high: float, margin: float) -> str:
    """faster (slower) where the whole interval is above (below) 1 and the ratio beyond the margin."""
    if low > 1 and ratio > 1 + margin:
        return FASTER
    if high < 1 and ratio < 1 / (1 + margin):
        return SLOWER
    return SAME


def compare_samples(a: np.ndarray, b: np.ndarray, margin: float = MARGIN) -> Comparison:
    """Times per call of A and of B (MIN_SAMPLES or more each): B's speed over A's, the bootstrap
    interval of the ratio of medians, and the U test; a difference is called only where both agree."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ratio = float(np.median(a) / np.median(b))
    p = float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)
    boot = stats.bootstrap((a, b), lambda x, y, axis=-1: np.median(x, axis=axis) / np.median(y, axis=axis),
                           n_resamples=BOOTSTRAP_RESAMPLES, confidence_level=1 - ALPHA, method="percentile",
                           vectorized=True, rng=np.random.default_rng(BOOTSTRAP_SEED))
    low, high = float(boot.confidence_interval.low), float(boot.confidence_interval.high)
    verdict = verdict_of(ratio, low, high, margin) if p < ALPHA else SAME
    return Comparison(ratio, low, high, p, METHOD_SAMPLES, verdict)


def median_relative_se(spread: float, reps: float) -> float:
    """The relative standard error of a median of `reps` repetitions whose relative spread (a
    standard deviation over the median) is `spread`."""
    return MEDIAN_SE * spread / np.sqrt(reps)  # numbers or columns of rows


def spread_from_gap(median: float, minimum: float) -> float:
    """A row without a spread: its relative standard deviation estimated from the gap between the
    median and the minimum of DEFAULT_REPS repetitions."""
    return (median - minimum) / median / MIN_GAP_SIGMAS


def compare_noise(a_time: float, a_se: float, b_time: float, b_se: float, margin: float = MARGIN) -> Comparison:
    """One median time each with its relative standard error: a normal interval of log(A / B)."""
    ratio = a_time / b_time
    if not (math.isfinite(a_se) and math.isfinite(b_se)):
        return Comparison(ratio, math.nan, math.nan, math.nan, "", UNKNOWN)
    half = Z * math.hypot(a_se, b_se)
    low, high = ratio * math.exp(-half), ratio * math.exp(half)
    return Comparison(ratio, low, high, math.nan, METHOD_NOISE, verdict_of(ratio, low, high, margin))


def row_se(rows):
    """Per row (a DataFrame of CSV rows), the relative standard error of its median time: from its
    `spread` and `reps` where the row has them, else from the gap between its median and minimum of
    DEFAULT_REPS repetitions."""
    gap = spread_from_gap(rows["time_ns_median"], rows["time_ns_min"])
    spread = rows["spread"].where(rows["spread"].notna(), gap) if "spread" in rows else gap
    reps = rows["reps"].astype(float).fillna(DEFAULT_REPS) if "reps" in rows else DEFAULT_REPS
    return median_relative_se(spread, reps)


def judge(times_a, se_a: float, times_b, se_b: float, margin: float = MARGIN) -> Comparison:
    """B against A from their times per call: the samples' way with MIN_SAMPLES or more a side, else
    the row-noise way on the medians with se_a and se_b (each a median's relative standard error)."""
    if min(len(times_a), len(times_b)) >= MIN_SAMPLES:
        return compare_samples(times_a, times_b, margin)
    return compare_noise(float(np.median(times_a)), se_a, float(np.median(times_b)), se_b, margin)
