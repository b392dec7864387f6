"""The handover from the harness: the same values, the same exact sums and errors, the same columns."""

from __future__ import annotations

import csv
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import handoff
import rows
from conftest import hand_over, run_bench

INPUTS = ["uniform", "normal", "ill:1e16", "wide", "cancel"]
QUICK = ["--benchmark_repetitions=1", "--benchmark_min_time=0.001", "--benchmark_min_warmup_time=0"]


def harness_rows(bench: Path, csv_path: Path, *args) -> list[dict]:
    run_bench(bench, *args, *QUICK, f"--csv={csv_path}")
    with open(csv_path, newline="") as f:
        return sorted(csv.DictReader(f), key=lambda row: (row["backend"], int(row["n"])))


def test_the_manifest_carries_the_harness_columns_machine_and_rules(bench, tmp_path):
    given = hand_over(bench, tmp_path / "in", "--sizes=1000")
    run_bench(bench, "--backend=cpu/serial/kahan", "--sizes=1000", *QUICK, f"--csv={tmp_path / 'h.csv'}")
    assert (tmp_path / "h.csv").read_text().splitlines()[0] == rows.header(given.columns)
    assert given.context["machine"] == run_bench(bench, "--machine").stdout.strip()
    assert given.context["version"] == run_bench(bench, "--version").stdout.strip()  # the rows' version column
    assert given.rules == handoff.Rules(repetitions=5, min_time_s=0.05, min_warmup_s=0.02, l2_rotation_factor=4,
                                        copy_alignment=256, batch_bytes=4 << 30, min_batch=2, max_batch=1024,
                                        interleave=True)
    assert [(i.n, i.dtype, i.label, i.seed) for i in given.inputs] == [(1000, "f32", "uniform", 42)]


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("kind", INPUTS)
def test_the_files_hold_the_harness_inputs_and_errors_are_the_harness_errors(bench, tmp_path, kind, dtype):
    """The harness sums each written file to the bits it sums its generated input to, and this runner's
    relative_error() gives the bits the harness's gives, for every serial backend's result."""
    given = hand_over(bench, tmp_path / "in", "--sizes=1,1001,4099", f"--dtype={dtype}", f"--input={kind}", "--seed=7")
    assert [i.n for i in given.inputs] == [1, 1001, 4099]
    for item in given.inputs:
        generated = harness_rows(bench, tmp_path / f"g{item.n}.csv", "--backend=cpu/serial/*", f"--sizes={item.n}",
                                 f"--dtype={dtype}", f"--input={kind}", "--seed=7")
        from_file = harness_rows(bench, tmp_path / f"f{item.n}.csv", "--backend=cpu/serial/*", f"--input=file:{item.path}")
        assert len(generated) == len(from_file) >= 5
        for g, f in zip(generated, from_file):
            assert (g["backend"], g["result"], g["exact"], g["rel_error"]) == (f["backend"], f["result"], f["exact"], f["rel_error"])
            assert float(g["exact"]) == item.exact or math.isnan(item.exact)
            mine = handoff.relative_error(float(g["result"]), item)
            assert rows.field_text(rows_column(given, "rel_error"), mine) == g["rel_error"], g["backend"]
        assert float(item.exact_sum) == item.exact or not math.isfinite(item.exact)
        assert item.exact_sum == sum(Fraction(float(v)) for v in item.load())  # S itself, not only its rounding


def rows_column(given: handoff.Handoff, name: str) -> handoff.Column:
    return next(c for c in given.columns if c.name == name)


def test_numpy_sum_is_the_harness_pairwise_sum_bit_for_bit(bench, tmp_path):
    """NumPy's add.reduce is blocked pairwise summation (blocks of 128, 8 lanes), as cpu/serial/pairwise:
    on the same values they give the same bits, which they could not if the files held other values."""
    given = hand_over(bench, tmp_path / "in", "--sizes=1,7,1001,2^16,100003", "--dtype=f32,f64", "--input=normal")
    for item in given.inputs:
        (row,) = harness_rows(bench, tmp_path / f"{item.path.stem}.csv", "--backend=cpu/serial/pairwise",
                              f"--input=file:{item.path}")
        assert float(row["result"]) == float(np.sum(item.load())), item.path.name


@pytest.mark.parametrize("values,flags", [
    ([1.0, math.nan, 2.0], (True, False, False)),
    ([math.inf, 1.0], (False, True, False)),
    ([-math.inf, 1.0], (False, False, True)),
    ([math.inf, -math.inf], (False, True, True)),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_and_inf_in_the_input_give_nan_errors_as_in_the_harness(bench, tmp_path, values, flags, dtype):
    source = tmp_path / "nonfinite.npy"
    np.save(source, np.array(values, dtype=dtype))
    (item,) = hand_over(bench, tmp_path / "in", f"--input=file:{source}").inputs
    assert (item.saw_nan, item.saw_pos_inf, item.saw_neg_inf) == flags
    assert item.label == f"file:{source.resolve()}" and item.seed is None  # the whole path: one label per file
    (row,) = harness_rows(bench, tmp_path / "h.csv", "--backend=cpu/serial/kahan", f"--input=file:{source}")
    assert row["rel_error"] == "nan" and math.isnan(handoff.relative_error(float(row["result"]), item))
    assert math.isnan(handoff.relative_error(1.0, item))


def test_overflowing_results_and_sums_follow_the_harness_rules(bench, tmp_path):
    big = np.finfo(np.float64).max
    source = tmp_path / "big.npy"
    np.save(source, np.array([big, big], dtype=np.float64))  # S = 2 DBL_MAX: rounds to +inf
    (item,) = hand_over(bench, tmp_path / "in", f"--input=file:{source}").inputs
    assert item.exact == math.inf and item.exact_sum == 2 * Fraction(big)
    assert handoff.relative_error(math.inf, item) == math.inf  # an overflow, though S rounds to it
    assert handoff.relative_error(big, item) == float(Fraction(big) / Fraction(big))  # |S - DBL_MAX| / DBL_MAX
    assert handoff.relative_error(math.nan, item) == math.inf
    (row,) = harness_rows(bench, tmp_path / "h.csv", "--backend=cpu/serial/kahan", f"--input=file:{source}")
    assert handoff.relative_error(float(row["result"]), item) == float(row["rel_error"])


def test_a_zero_sum_gives_the_absolute_error(bench, tmp_path):
    source = tmp_path / "zero.npy"
    np.save(source, np.array([1.5, -1.5], dtype=np.float32))
    (item,) = hand_over(bench, tmp_path / "in", f"--input=file:{source}").inputs
    assert item.exact == 0.0 and item.exact_sum == 0
    assert handoff.relative_error(0.25, item) == 0.25 and handoff.relative_error(-0.0, item) == 0.0


def test_harness_rows_render_back_to_the_same_text(bench, tmp_path):
    """Each column's text, formatted from its value by the column table, is the harness's text."""
    given = hand_over(bench, tmp_path / "in", "--sizes=1000")
    path = tmp_path / "h.csv"
    run_bench(bench, "--backend=cpu/serial/*,cpu/baseline/read", "--sizes=1000,4099", *QUICK, f"--csv={path}")
    lines = path.read_text().splitlines()[1:]
    with open(path, newline="") as f:
        parsed = list(csv.DictReader(f))
    assert len(lines) == len(parsed) >= 10
    for line, row in zip(lines, parsed):
        values = {}
        for column in given.columns:
            text = row[column.name]
            values[column.name] = (None if text == "" and column.may_be_empty else
                                   int(text) if column.kind == "whole" else
                                   float(text) if column.kind == "real" else text)
        assert rows.csv_row(given.columns, values) == line


def test_a_bad_harness_command_line_is_reported(bench, tmp_path):
    (tmp_path / "in").mkdir()
    with pytest.raises(handoff.HandoffError, match="refused its arguments"):
        handoff.write_inputs(bench, tmp_path / "in", ["--sizes=banana"])
    with pytest.raises(handoff.HandoffError, match="cannot run"):
        handoff.write_inputs(tmp_path / "no-such-bench", tmp_path / "in", [])
    with pytest.raises(handoff.HandoffError, match="not a manifest"):
        handoff.read_manifest(tmp_path / "in")
