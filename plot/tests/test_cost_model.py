"""The cost model (shootout_csv.cost_model) on synthetic times with known answers: t = t0 + bytes / r
per cache level, fitted per level where the caches are known; 'does not fit' with the reason where
one line through the levels, too few sizes or a noisy size misses the bound."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import shootout_csv as sc  # noqa: E402
import summary  # noqa: E402

KiB, MiB = 2**10, 2**20
CACHES = {"m": {"l1d": 32 * KiB, "l2": 1 * MiB, "l3": 8 * MiB}}
# Per level: (t0 in ns, r in GB/s = bytes per ns); the bytes of the sizes that fall in it.
LEVELS = {"L1": (100.0, 200.0, [4 * KiB, 8 * KiB, 16 * KiB, 32 * KiB]),
          "L2": (150.0, 100.0, [64 * KiB, 256 * KiB, 1 * MiB]),
          "L3": (300.0, 50.0, [2 * MiB, 4 * MiB, 8 * MiB]),
          "DRAM": (1000.0, 20.0, [16 * MiB, 64 * MiB, 256 * MiB])}


def speed(levels=LEVELS, threads: int = 1, device: str = "cpu", series: str = "cpu/simd") -> pd.DataFrame:
    rows = [dict(machine="m", series=series, backend=series, dtype="f32", device=device, timing="isolated",
                 role="reduction", accumulator="f32", order="lanes", label="m", cache="warm", threads=threads,
                 bytes=b, n=b // 4, time_ns=t0 + b / r)
            for t0, r, sizes in levels.values() for b in sizes]
    return pd.DataFrame(rows)


def test_each_cache_level_gives_back_its_own_cost_model():
    fits = sc.cost_model(speed(), CACHES).set_index("band")
    assert list(fits.index) == ["L1", "L2", "L3", "DRAM"]
    for band, (t0, r, sizes) in LEVELS.items():
        f = fits.loc[band]
        assert f["fits"] and f["reason"] == "", band
        assert f["t0_ns"] == pytest.approx(t0, rel=1e-6), band
        assert f["r_inf"] == pytest.approx(r, rel=1e-6), band
        assert f["n_half_bytes"] == pytest.approx(t0 * r, rel=1e-6), band
        assert (f["sizes"], f["bytes_lo"], f["bytes_hi"]) == (len(sizes), min(sizes), max(sizes)), band
        assert f["worst_error"] < 1e-9, band


def test_one_line_through_every_level_does_not_fit_and_says_why():
    fits = sc.cost_model(speed(), caches={})  # caches unknown: one fit over all sizes
    assert len(fits) == 1
    f = fits.iloc[0]
    assert f["band"] == sc.ALL_SIZES and not f["fits"]
    assert f["worst_error"] > sc.COST_MODEL_MAX_ERROR
    assert f["reason"] == f"worst error {f['worst_error']:.0%}, above {sc.COST_MODEL_MAX_ERROR:.0%}"


def test_a_level_with_too_few_sizes_or_a_noisy_size_does_not_fit():
    t0, r, _ = LEVELS["L3"]
    levels = dict(LEVELS, L3=(t0, r, [4 * MiB, 8 * MiB]))
    fits = sc.cost_model(speed(levels), CACHES).set_index("band")
    assert not fits.loc["L3", "fits"] and fits.loc["L3", "reason"] == "2 sizes (3 needed)"
    assert fits.loc["L3", "t0_ns"] != fits.loc["L3", "t0_ns"]  # NaN: no fit is made
    assert fits.loc[["L1", "L2", "DRAM"], "fits"].all()
    noisy = speed()
    noisy.loc[noisy["bytes"] == 256 * KiB, "time_ns"] *= 1.6  # one L2 size 60% slow
    fits = sc.cost_model(noisy, CACHES).set_index("band")
    assert not fits.loc["L2", "fits"] and fits.loc["L2", "reason"].startswith("worst error")
    assert fits.loc[["L1", "L3", "DRAM"], "fits"].all()


def test_per_core_levels_grow_with_the_threads_and_the_last_level_is_shared():
    caches = CACHES["m"]
    assert sc.cache_band(64 * KiB, 1, caches) == "L2"
    assert sc.cache_band(64 * KiB, 2, caches) == "L1"  # 32 KiB a thread
    assert sc.cache_band(2 * MiB, 2, caches) == "L2"
    assert sc.cache_band(16 * MiB, 16, caches) == "L2"  # 1 MiB a thread: each in its own L2
    assert sc.cache_band(8 * MiB, 4, caches) == "L3"
    assert sc.cache_band(16 * MiB, 8, caches) == "DRAM"
    assert sc.cache_band(4 * KiB, 1, None) == sc.ALL_SIZES


def test_gpu_rows_and_cold_cpu_rows_are_fitted_over_every_size():
    gpu = speed(device="cuda")
    assert list(sc.cost_model(gpu, CACHES)["band"]) == [sc.ALL_SIZES]
    cold = speed().assign(cache="cold")
    assert list(sc.cost_model(cold, CACHES)["band"]) == [sc.ALL_SIZES]


def test_the_summary_prints_a_model_only_where_it_fits():
    table = sc.cost_model(speed(LEVELS | {"L3": (300.0, 50.0, [4 * MiB, 8 * MiB])}), CACHES)
    text = "\n".join(summary.cost_model_markdown(table, "m", "cpu", "f32"))
    assert "| backend | L1 | L2 | L3 | DRAM |" in text
    assert ("| `cpu/simd` | t0 0.1 µs, r∞ 200 GB/s (worst error 0.0%) | t0 0.15 µs, r∞ 100 GB/s (worst error 0.0%) "
            "| does not fit: 2 sizes (3 needed) | t0 1 µs, r∞ 20.0 GB/s (worst error 0.0%) |") in text
    table = sc.cost_model(speed(device="cuda"), CACHES)
    text = "\n".join(summary.cost_model_markdown(table, "m", "cuda", "f32"))
    assert "| `cpu/simd` | — | — | — | does not fit: worst error" in text
    assert f"within {sc.COST_MODEL_MAX_ERROR:.0%} of every size" in text


def test_a_section_with_too_few_sizes_anywhere_says_so_in_a_line():
    few = {band: (t0, r, sizes[:2]) for band, (t0, r, sizes) in LEVELS.items()}
    text = summary.cost_model_markdown(sc.cost_model(speed(few), CACHES), "m", "cpu", "f32")
    assert text == ["Cost model t = t0 + bytes / r∞ (Hockney): does not fit here: at most 2 sizes measured per "
                    "cache level, 3 needed.", ""]
