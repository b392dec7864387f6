"""Each GPU framework backend on this machine's GPU, against the harness's exact sums. Where a
framework or the GPU is missing, its tests are skipped with the backend's reason (a machine without
a GPU skips them all); on the GPU machines they run."""

from __future__ import annotations

import dataclasses
import math
import random
from fractions import Fraction

import numpy as np
import pytest

import measure
from backends import all_backends
from conftest import hand_over
from device_sum import driver_l2_cache_bytes
from handoff import Rules, relative_error

RULES = Rules(repetitions=2, min_time_s=0.002, min_warmup_s=0.0, l2_rotation_factor=4, copy_alignment=256,
              batch_bytes=64 << 20, min_batch=2, max_batch=1024, interleave=True)
# The sums are checked on one device copy of each input: rotation has its own test, and the ~10^6
# copies that rotate a one-element input past 4x the L2 take JAX minutes to put on the GPU.
ONE_COPY = dataclasses.replace(RULES, l2_rotation_factor=0)
GPU = [b for b in all_backends() if b.device == "cuda"]


def available(backend):
    reason = backend.unavailable_reason()
    if reason:
        pytest.skip(reason)
    return backend


def outcomes(backend, values) -> dict[str, measure.Outcome]:
    cases = [measure.Case(backend, "isolated", 1),
             measure.Case(backend, "batched", measure.batch_calls(ONE_COPY, values.nbytes))]
    found = {}
    measure.time_cases(cases, values, ONE_COPY, lambda case, outcome: found.update({case.timing: outcome}),
                       random.Random(0))
    return found


def tree_bound(accumulator: str, n: int, abs_sum: float) -> float:
    """tests/error_bounds.hpp's bound for a tree of additions: any order of n - 1 additions with the
    accumulator's unit roundoff u, gamma_{n-1} sum |x| (Higham eq. 4.4)."""
    u = 2.0 ** -24 if accumulator == "f32" else 2.0 ** -53
    k = n - 1
    return k * u / (1 - k * u) * abs_sum


@pytest.mark.parametrize("backend", GPU, ids=[b.name for b in GPU])
@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("kind,sizes", [("uniform", "1,1001,65539,2^20"), ("normal", "1001,2^20"), ("cancel", "1001,2^20")])
def test_sums_of_odd_sizes_are_within_the_bound_of_their_traits(backend, dtype, kind, sizes, bench, tmp_path):
    available(backend)
    given = hand_over(bench, tmp_path, f"--sizes={sizes}", f"--dtype={dtype}", f"--input={kind}")
    for item in given.inputs:
        values = item.load()
        found = outcomes(backend, values)
        bound = tree_bound(backend.traits[dtype].accumulator, item.n, float(np.abs(values).sum(dtype=np.float64)))
        for timing, outcome in found.items():
            assert not outcome.failure, f"{timing}: {outcome.failure}"
            assert len(outcome.times) == RULES.repetitions and min(outcome.times) > 0
            error = abs(Fraction(outcome.results[-1]) - item.exact_sum)
            assert error <= Fraction(bound), (item.n, timing, float(error), bound)
            if item.n == 1:
                assert relative_error(outcome.results[-1], item) == 0
        if backend.traits[dtype].reproducibility != "none":
            assert found["isolated"].same_bits_every_repetition and found["batched"].same_bits_every_repetition
            assert found["isolated"].results[-1] == found["batched"].results[-1]


@pytest.mark.parametrize("backend", GPU, ids=[b.name for b in GPU])
def test_nan_in_the_input_gives_nan(backend):
    available(backend)
    found = outcomes(backend, np.array([1.0, math.nan, 2.0], dtype=np.float32))
    assert all(math.isnan(o.results[-1]) for o in found.values())


@pytest.mark.parametrize("backend", GPU, ids=[b.name for b in GPU])
def test_inputs_rotate_through_copies_spanning_four_times_the_l2(backend):
    available(backend)
    values = np.ones(1 << 16, np.float32)
    reduction = backend.prepare(values, RULES)
    try:
        _, count = measure.rotation_layout(RULES, values.nbytes, driver_l2_cache_bytes(0))
        assert reduction.copies.count == count > 1
        reduction.run()
        assert reduction.result() == 65536.0
    finally:
        reduction.release()


def test_the_driver_reports_the_l2_where_a_framework_sees_a_gpu():
    if any(b.unavailable_reason() is None for b in GPU):
        assert driver_l2_cache_bytes(0) >= 1 << 20
    else:
        with pytest.raises((OSError, RuntimeError)):  # no driver library, or no device: said, not guessed
            driver_l2_cache_bytes(0)
