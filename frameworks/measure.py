"""The measurement rules of api/measurement_rules.hpp, applied to framework calls.

  warm-up      one untimed call right after prepare, then min_warmup_s of untimed calls (once per case)
  repetitions  `repetitions`, each of at least min_time_s: the first one finds its call count as Google
               Benchmark does (PredictNumItersNeeded), the later ones reuse it
  order        every repetition of every case of one input, in random order (Google Benchmark's random
               interleaving), the case prepared again, outside timing, when its turn comes
  statistic    the median and minimum over repetitions of the mean time per call
  caches       device rows rotate through copies spanning l2_rotation_factor x the device's L2
               (api/device_timing.hpp: RotatingInput); host rows read one input (warm)
  timing       isolated: one call per timed region; batched: batch_calls() calls per region, time / calls
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from backend import Backend, Reduction, ResourceExhausted
from handoff import Rules


def batch_calls(rules: Rules, nbytes: int) -> int:
    """Calls per batched region: enough to stream batch_bytes, within [min_batch, max_batch]."""
    return min(max(rules.batch_bytes // max(nbytes, 1), rules.min_batch), rules.max_batch)


def rotation_layout(rules: Rules, nbytes: int, cache_bytes: int) -> tuple[int, int]:
    """(stride in bytes, copies): copies copy_alignment bytes apart spanning l2_rotation_factor x the
    cache, or one copy when the input alone spans that much."""
    stride = max(-(-nbytes // rules.copy_alignment), 1) * rules.copy_alignment
    span = rules.l2_rotation_factor * cache_bytes
    return stride, (-(-span // stride) if stride < span else 1)


class Rotation:
    """The copies of one input on a device, taken in turn (api/device_timing.cpp: RotatingInput)."""

    def __init__(self, count: int, copy: Callable[[int], object]):
        self.count, self._copy, self._next = count, copy, 0

    @classmethod
    def in_one_buffer(cls, values: np.ndarray, rules: Rules, cache_bytes: int,
                      new_buffer: Callable[[int], object], upload: Callable[[object, np.ndarray], None],
                      copy: Callable[[object, object], None]) -> "Rotation":
        """Copies in one device buffer (new_buffer(elements)), copy_alignment apart, made by doubling
        (each copy duplicates every copy made so far); a call's copy is a view, made when it is taken."""
        stride_bytes, count = rotation_layout(rules, values.nbytes, cache_bytes)
        stride, n = stride_bytes // values.itemsize, values.size
        buffer = new_buffer(stride * count)
        upload(buffer[:n], values)
        made = 1
        while made < count:
            more = min(made, count - made)
            copy(buffer[made * stride:(made + more) * stride], buffer[:more * stride])
            made += more
        return cls(count, lambda k: buffer[k * stride:k * stride + n])

    @classmethod
    def separate(cls, values: np.ndarray, rules: Rules, cache_bytes: int,
                 put_all: Callable[[np.ndarray, int], list]) -> "Rotation":
        """Copies as arrays of their own, put_all(values, count) making them, for a framework whose
        calls take no views."""
        _, count = rotation_layout(rules, values.nbytes, cache_bytes)
        copies = put_all(values, count)
        return cls(count, copies.__getitem__)

    def next(self):
        copy = self._copy(self._next)
        self._next = (self._next + 1) % self.count
        return copy


def next_iterations(min_time: float, iterations: int, seconds: float) -> int:
    """Google Benchmark's PredictNumItersNeeded: 1.4x the count that would have filled min_time, at
    most 10x when the run was under a tenth of it."""
    multiplier = min_time * 1.4 / max(seconds, 1e-9)
    if seconds / min_time <= 0.1:
        multiplier = min(multiplier, 10.0)
    return min(max(round(multiplier * iterations), iterations + 1), 1_000_000_000)


def median(values: list[float]) -> float:
    ordered = sorted(values)
    k = len(ordered)
    return ordered[k // 2] if k % 2 else (ordered[k // 2 - 1] + ordered[k // 2]) / 2


@dataclass(eq=False)
class Case:
    backend: Backend
    timing: str  # "isolated" or "batched"
    batch: int  # calls per timed region: 1 when isolated


@dataclass
class Outcome:
    """What a case's repetitions gave."""
    times: list[float] = field(default_factory=list)  # per repetition: mean seconds per call
    iterations: int = 0  # timed regions per repetition
    results: list[float] = field(default_factory=list)  # per repetition: the sum read after it
    pages: str | None = None
    failure: str = ""
    exhausted: bool = False  # skipped for lack of memory

    @property
    def same_bits_every_repetition(self) -> bool:
        return len({np.float64(r).tobytes() for r in self.results}) <= 1


def page_backing(address: int) -> str:
    """The pages column for host memory at address, as platform::page_backing() says it: "huge",
    "4k", "mixed" from /proc/self/smaps (AnonHugePages against Rss); "" where there is no smaps."""
    try:
        smaps = open("/proc/self/smaps")
    except OSError:
        return ""
    rss = huge = -1
    inside = False
    with smaps:
        for line in smaps:
            head = line.split(" ", 1)[0]
            if "-" in head and not head.endswith(":"):
                if inside:
                    break
                begin, end = (int(part, 16) for part in head.split("-"))
                inside = begin <= address < end
            elif inside:
                key, *rest = line.split()
                if key == "Rss:":
                    rss = int(rest[0])
                elif key == "AnonHugePages:":
                    huge = int(rest[0])
    if rss <= 0 or huge < 0:
        return ""
    return "4k" if huge == 0 else "huge" if huge >= rss else "mixed"


class _Prepared:
    """Keeps one case prepared at a time, so device and host memory hold one backend's copies."""

    def __init__(self, values: np.ndarray, rules: Rules):
        self.values, self.rules = values, rules
        self.case: Case | None = None
        self.reduction: Reduction | None = None

    def get(self, case: Case) -> Reduction:
        if self.case is not case:
            self.release()
            self.reduction = case.backend.prepare(self.values, self.rules)
            self.case = case
            _call(self.reduction, case)  # the first call pays for loading, compiling, lazy set-up
        return self.reduction

    def release(self) -> None:
        if self.reduction is not None:
            self.reduction.release()
        self.case = self.reduction = None


def _call(reduction: Reduction, case: Case) -> float | None:
    return reduction.run_batch(case.batch) if case.timing == "batched" else reduction.run()


def _timed(reduction: Reduction, case: Case, iterations: int) -> float:
    """Seconds of `iterations` timed regions: the backend's own times, or the host clock around them."""
    if case.backend.self_timed:
        return sum(_call(reduction, case) for _ in range(iterations))
    start = time.perf_counter()
    for _ in range(iterations):
        _call(reduction, case)
    return time.perf_counter() - start


def time_cases(cases: list[Case], values: np.ndarray, rules: Rules,
               finished: Callable[[Case, Outcome], None], rng: random.Random | None = None) -> None:
    """Runs every case's repetitions on one input and calls finished(case, outcome) once per case,
    when its last repetition is done (or it failed)."""
    turns = [case for case in cases for _ in range(rules.repetitions)]
    if rules.interleave:
        (rng or random.Random()).shuffle(turns)
    outcomes = {id(case): Outcome() for case in cases}
    remaining = {id(case): rules.repetitions for case in cases}
    prepared = _Prepared(values, rules)
    try:
        for case in turns:
            outcome = outcomes[id(case)]
            remaining[id(case)] -= 1
            if not outcome.failure:
                try:
                    _repetition(prepared, case, outcome, rules)
                except ResourceExhausted as e:
                    prepared.release()
                    outcome.failure, outcome.exhausted = str(e), True
                except Exception as e:  # a framework's error fails this case, named, not the run
                    prepared.release()
                    outcome.failure = f"{type(e).__name__}: {e}"
                if outcome.failure:
                    finished(case, outcome)
                    continue
            if remaining[id(case)] == 0 and not outcome.failure:
                finished(case, outcome)
    finally:
        prepared.release()


def _repetition(prepared: _Prepared, case: Case, outcome: Outcome, rules: Rules) -> None:
    reduction = prepared.get(case)
    if outcome.pages is None:  # after prepare and the first call have touched the input
        host = reduction.host_input()
        outcome.pages = "" if host is None or sys.platform != "linux" else page_backing(host.ctypes.data)
    if not outcome.iterations:  # the case's first turn: warm up, then find the call count
        deadline = time.perf_counter() + rules.min_warmup_s
        while time.perf_counter() < deadline:
            _call(reduction, case)
        iterations = rules.fixed_iterations or 1
        while True:
            seconds = _timed(reduction, case, iterations)
            if rules.fixed_iterations or seconds >= rules.min_time_s or iterations >= 1_000_000_000:
                break
            iterations = next_iterations(rules.min_time_s, iterations, seconds)
        outcome.iterations = iterations
    else:
        seconds = _timed(reduction, case, outcome.iterations)
    outcome.times.append(seconds / outcome.iterations / case.batch)
    outcome.results.append(reduction.result())


def per_call_ns(outcome: Outcome) -> tuple[float, float]:
    """(median, minimum) nanoseconds per call over the repetitions."""
    return median(outcome.times) * 1e9, min(outcome.times) * 1e9
