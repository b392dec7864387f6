"""The measurement rules as the runner applies them, on fake backends whose time is known."""

from __future__ import annotations

import random

import numpy as np
import pytest

import measure
from backend import Backend, Reduction, ResourceExhausted, Traits
from device_sum import EventTimedSum, WallClockSum
from handoff import Rules

RULES = Rules(repetitions=5, min_time_s=0.05, min_warmup_s=0.0, l2_rotation_factor=4, copy_alignment=256,
              batch_bytes=64 << 20, min_batch=2, max_batch=1024, interleave=True)
H200_L2 = 60 << 20
TRAITS = {"f32": Traits("f32", "tree", "per_thread_count")}


def test_batch_calls_stream_64_mib_within_2_and_1024():
    assert measure.batch_calls(RULES, 4 << 30) == 2
    assert measure.batch_calls(RULES, 4 << 20) == 16
    assert measure.batch_calls(RULES, 4 << 10) == 1024
    assert measure.batch_calls(RULES, 0) == 1024


def test_rotation_spans_four_times_the_l2_in_aligned_copies():
    assert measure.rotation_layout(RULES, 4 << 20, H200_L2) == (4 << 20, 60)
    assert measure.rotation_layout(RULES, 4004, H200_L2) == (4096, -(-(240 << 20) // 4096))
    assert measure.rotation_layout(RULES, 4 << 30, H200_L2) == (4 << 30, 1)  # one input spans it
    assert measure.rotation_layout(RULES, 240 << 20, H200_L2) == (240 << 20, 1)


def numpy_rotation(values, rules=RULES, cache_bytes=1 << 16):
    """A Rotation whose 'device' is host memory."""
    return measure.Rotation.in_one_buffer(values, rules, cache_bytes, new_buffer=lambda k: np.full(k, np.nan, values.dtype),
                                          upload=np.copyto, copy=np.copyto)


@pytest.mark.parametrize("n", [1, 1001, 1 << 12, 1 << 16])
def test_every_rotated_copy_holds_the_input_and_calls_take_them_in_turn(n):
    values = np.random.default_rng(n).random(n, dtype=np.float32)
    rotation = numpy_rotation(values)
    assert rotation.count == measure.rotation_layout(RULES, values.nbytes, 1 << 16)[1]
    seen = [rotation.next() for _ in range(2 * rotation.count)]
    for copy in seen:
        assert copy.tobytes() == values.tobytes()
    addresses = [c.ctypes.data for c in seen]
    assert len(set(addresses)) == rotation.count
    assert addresses[:rotation.count] == addresses[rotation.count:]  # in turn, from the first again
    assert all((a - addresses[0]) % RULES.copy_alignment == 0 for a in addresses)


def test_separate_copies_are_made_at_once_and_taken_in_turn():
    asked = []
    rotation = measure.Rotation.separate(np.ones(1000, np.float32), RULES, 1 << 14,
                                         put_all=lambda v, count: asked.append(count) or list(range(count)))
    assert asked == [rotation.count] == [-(-(4 << 14) // 4096)]
    assert [rotation.next() for _ in range(rotation.count + 1)] == list(range(rotation.count)) + [0]


def test_iteration_count_grows_as_google_benchmark_predicts():
    assert measure.next_iterations(0.05, 1, 0.001) == 10  # under a tenth of min_time: at most 10x
    assert measure.next_iterations(0.05, 10, 0.01) == 70  # 1.4 x 0.05 / 0.01
    assert measure.next_iterations(0.05, 5, 0.0) == 50
    assert measure.next_iterations(0.05, 1, 0.049) == 2  # at least one more


def test_median_of_odd_and_even_counts():
    assert measure.median([3.0, 1.0, 2.0]) == 2.0
    assert measure.median([4.0, 1.0, 3.0, 2.0]) == 2.5


class FakeClock:
    """Device events on a clock that each call advances by `seconds_per_call`."""

    def __init__(self, seconds_per_call: float):
        self.now, self.step = 0.0, seconds_per_call

    def new_event(self):
        clock = self

        class Event:
            def record(self):
                self.at = clock.now
        return Event()

    def seconds_between(self, start, stop):
        return stop.at - start.at


def fake_device_backend(name: str, log: list, seconds_per_call: float = 1e-3, fail_on_turn: int | None = None,
                        exhausted: bool = False) -> Backend:
    """A 'device' backend on host memory, timed by fake events, logging prepares and calls."""
    clock = FakeClock(seconds_per_call)

    def prepare(values, rules):
        log.append(("prepare", name))
        if fail_on_turn is not None and sum(1 for e in log if e == ("prepare", name)) == fail_on_turn:
            raise (ResourceExhausted if exhausted else RuntimeError)(f"{name} cannot")

        def call(x):
            log.append(("call", name, x.ctypes.data))
            clock.now += clock.step
            return np.float64(x.sum(dtype=np.float64))

        return EventTimedSum(numpy_rotation(values, rules), call, clock.new_event, clock.seconds_between,
                             read=float, release=lambda: log.append(("release", name)))

    return Backend(name=name, device="cuda", description="fake", timer="device_events", traits=TRAITS, prepare=prepare,
                   unavailable_reason=lambda: None, configuration=lambda: "fake")


def run(cases, values, rules=RULES, seed=1):
    finished = []
    measure.time_cases(cases, values, rules, lambda case, outcome: finished.append((case, outcome)), random.Random(seed))
    return finished


def test_every_case_gets_its_repetitions_interleaved_each_prepared_on_its_turn():
    log = []
    a, b = fake_device_backend("a", log), fake_device_backend("b", log)
    cases = [measure.Case(a, "isolated", 1), measure.Case(a, "batched", 16), measure.Case(b, "isolated", 1)]
    finished = run(cases, np.ones(1000, np.float32))
    assert sorted(id(c) for c, _ in finished) == sorted(id(c) for c in cases)
    for case, outcome in finished:
        assert len(outcome.times) == RULES.repetitions and not outcome.failure
        assert outcome.times == pytest.approx([1e-3] * RULES.repetitions)  # per call, batched too
        assert outcome.results == [1000.0] * RULES.repetitions and outcome.same_bits_every_repetition
        assert outcome.pages == ""  # device memory
        # 1 region, then 10 (<= 10x below a tenth of min_time), then 1.4 x 0.05 / 0.01 = 70 regions;
        # batched, a region is 16 calls: 1 (0.016 s), then 1.4 x 0.05 / 0.016 = 4
        assert outcome.iterations == (4 if case.timing == "batched" else 70)
    prepares = [e[1] for e in log if e[0] == "prepare"]
    assert len(prepares) > 2  # prepared again when the turn came back, not once per case
    order = [e[1] for e in log if e[0] in ("prepare",)]
    assert order != sorted(order)  # interleaved, not case after case


def test_without_interleaving_each_case_runs_its_repetitions_back_to_back():
    log = []
    a, b = fake_device_backend("a", log), fake_device_backend("b", log)
    rules = Rules(**{**RULES.__dict__, "interleave": False})
    run([measure.Case(a, "isolated", 1), measure.Case(b, "isolated", 1)], np.ones(10, np.float32), rules)
    assert [e[1] for e in log if e[0] == "prepare"] == ["a", "b"]


def test_calls_rotate_through_the_copies_and_a_batch_reads_each_in_turn():
    log = []
    a = fake_device_backend("a", log)
    values = np.ones(1 << 12, np.float32)  # 16 KiB: 4 x 64 KiB of 'L2' is 16 copies
    run([measure.Case(a, "batched", 16)], values, Rules(**{**RULES.__dict__, "repetitions": 1}))
    addresses = [e[2] for e in log if e[0] == "call"]
    assert len(set(addresses)) == 16
    assert all(addresses[k] != addresses[k + 1] for k in range(len(addresses) - 1))


def test_a_failing_case_is_finished_once_with_its_error_and_the_others_still_run():
    log = []
    bad, good = fake_device_backend("bad", log, fail_on_turn=1), fake_device_backend("good", log)
    finished = run([measure.Case(bad, "isolated", 1), measure.Case(good, "isolated", 1)], np.ones(8, np.float32))
    by_name = {case.backend.name: outcome for case, outcome in finished}
    assert len(finished) == 2
    assert by_name["bad"].failure == "RuntimeError: bad cannot" and not by_name["bad"].exhausted
    assert [e for e in log if e == ("prepare", "bad")] == [("prepare", "bad")]  # not tried again
    assert not by_name["good"].failure and len(by_name["good"].times) == RULES.repetitions


def test_a_case_out_of_memory_is_skipped_not_failed():
    log = []
    finished = run([measure.Case(fake_device_backend("big", log, fail_on_turn=1, exhausted=True), "isolated", 1)],
                   np.ones(8, np.float32))
    assert finished[0][1].exhausted and finished[0][1].failure == "big cannot"


def test_results_that_differ_between_repetitions_are_seen():
    outcome = measure.Outcome(results=[1.0, 1.0, np.nextafter(1.0, 2.0)])
    assert not outcome.same_bits_every_repetition
    assert measure.Outcome(results=[0.1, 0.1]).same_bits_every_repetition


def test_a_host_backend_is_timed_by_the_host_clock_around_its_calls():
    calls = []

    class Sleepy(Reduction):
        def run(self):
            calls.append(1)
            sum(range(20000))  # some work the host clock sees

        def result(self):
            return 0.0

    backend = Backend(name="host", device="cpu", description="", timer="host_wall_clock", traits=TRAITS,
                      prepare=lambda v, r: Sleepy(), unavailable_reason=lambda: None, configuration=lambda: "",
                      batches=False)
    rules = Rules(**{**RULES.__dict__, "repetitions": 3, "min_time_s": 0.01})
    (case, outcome), = run([measure.Case(backend, "isolated", 1)], np.ones(4, np.float32), rules)
    assert all(t > 0 for t in outcome.times) and len(calls) > outcome.iterations * rules.repetitions
    assert outcome.iterations * outcome.times[0] >= rules.min_time_s  # the first repetition filled min_time


def test_wall_clock_regions_wait_for_every_result():
    waited = []
    copies = measure.Rotation(2, [np.float32(1), np.float32(2)].__getitem__)
    reduction = WallClockSum(copies, call=lambda x: x * 2, wait=waited.append, read=float, release=lambda: None)
    assert reduction.run_batch(3) >= 0
    assert waited == [[2.0, 4.0, 2.0]] and reduction.result() == 2.0
    reduction.run()
    assert waited[-1] == [4.0]


def test_page_backing_names_what_backs_host_memory():
    values = np.ones(1 << 22, np.float32)
    assert measure.page_backing(values.ctypes.data) in ("4k", "huge", "mixed")
    assert measure.page_backing(8) == ""  # no mapping holds it
