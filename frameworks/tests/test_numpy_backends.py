"""numpy/sum and numpy/math.fsum against the exact sum, on the edges every backend is tested on."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest

import measure
from backends import numpy_sum
from handoff import Rules

RULES = Rules(repetitions=2, min_time_s=0.001, min_warmup_s=0.0, l2_rotation_factor=4, copy_alignment=256,
              batch_bytes=64 << 20, min_batch=2, max_batch=1024, interleave=True)
SUM, FSUM = numpy_sum.backends(fsum_max=5000)


def call(backend, values) -> float:
    reduction = backend.prepare(values, RULES)
    assert reduction.run() is None  # host-timed: the runner's clock times it
    assert reduction.host_input() is values
    return reduction.result()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 127, 129, 1001, 4099])
def test_sums_of_odd_sizes_and_unaligned_starts_against_the_exact_sum(dtype, n):
    values = np.random.default_rng(n).standard_normal(n + 1).astype(dtype)[1:]  # starts one element in
    assert values.ctypes.data % 16 != 0
    exact = sum(Fraction(float(v)) for v in values)
    assert call(FSUM, values) == float(exact)  # exact, rounded once
    total = call(SUM, values)
    assert total == float(np.sum(values))
    # pairwise in the element type: within (log2(n) + 1) roundings of eps times the sum of |x|
    bound = (math.log2(n) + 1) * float(np.finfo(dtype).eps) * float(np.sum(np.abs(values), dtype=np.float64))
    assert abs(Fraction(total) - exact) <= Fraction(bound)


def test_one_element_is_itself():
    values = np.array([0.1], dtype=np.float32)
    assert call(SUM, values) == call(FSUM, values) == float(np.float32(0.1))


@pytest.mark.parametrize("values,expected", [([1.0, math.nan], math.nan), ([math.inf, 1.0], math.inf),
                                             ([-math.inf, 1.0], -math.inf)])
def test_nan_and_inf_pass_through(values, expected):
    for backend in (SUM, FSUM):
        got = call(backend, np.array(values, dtype=np.float32))
        assert got == expected or (math.isnan(got) and math.isnan(expected))


def test_fsum_of_both_infinities_raises_and_the_case_fails_named():
    finished = []
    measure.time_cases([measure.Case(FSUM, "isolated", 1)], np.array([math.inf, -math.inf], dtype=np.float64), RULES,
                       lambda case, outcome: finished.append(outcome), random.Random(0))
    assert finished[0].failure == "ValueError: -inf + inf in fsum" and not finished[0].exhausted
    with np.errstate(invalid="ignore"):
        assert math.isnan(call(SUM, np.array([math.inf, -math.inf])))


def test_fsum_above_its_limit_is_left_out_named():
    assert FSUM.skip_reason(5000) is None
    assert "5001 is above --fsum-max=5000" in FSUM.skip_reason(5001)
    assert SUM.skip_reason(1 << 40) is None
