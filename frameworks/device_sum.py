"""Device calls timed as api/device_timing.cpp times them: the input's copies on the device rotate
(measure.Rotation), and a timed region is one call (run) or `calls` calls back to back (run_batch)."""

from __future__ import annotations

import ctypes
import time
from typing import Callable

from backend import Reduction


class EventTimedSum(Reduction):
    """Between two of the framework's device events, recorded on the stream the calls go to."""

    def __init__(self, copies, call: Callable, new_event: Callable, seconds_between: Callable,
                 read: Callable, release: Callable[[], None]):
        self.copies, self.call, self.read, self._release = copies, call, read, release
        self.start, self.stop = new_event(), new_event()
        self.seconds_between = seconds_between  # waits for the stop event
        self.out = None

    def run(self) -> float:
        x = self.copies.next()
        self.start.record()
        self.out = self.call(x)
        self.stop.record()
        return self.seconds_between(self.start, self.stop)

    def run_batch(self, calls: int) -> float:
        inputs = [self.copies.next() for _ in range(calls)]
        self.start.record()
        for x in inputs:
            self.out = self.call(x)
        self.stop.record()
        return self.seconds_between(self.start, self.stop)

    def result(self) -> float:
        return self.read(self.out)

    def release(self) -> None:
        self.copies = self.out = None
        self._release()


class WallClockSum(Reduction):
    """For a framework without device events: the host clock around the calls and the wait for their
    results (JAX: block_until_ready), so a region's time includes the dispatch and the wait."""

    def __init__(self, copies, call: Callable, wait: Callable, read: Callable, release: Callable[[], None]):
        self.copies, self.call, self.wait, self.read, self._release = copies, call, wait, read, release
        self.out = None

    def run(self) -> float:
        x = self.copies.next()
        start = time.perf_counter()
        self.out = self.call(x)
        self.wait([self.out])
        return time.perf_counter() - start

    def run_batch(self, calls: int) -> float:
        inputs = [self.copies.next() for _ in range(calls)]
        start = time.perf_counter()
        outs = [self.call(x) for x in inputs]
        self.wait(outs)
        self.out = outs[-1]
        return time.perf_counter() - start

    def result(self) -> float:
        return self.read(self.out)

    def release(self) -> None:
        self.copies = self.out = None
        self._release()


def driver_l2_cache_bytes(ordinal: int) -> int:
    """The L2 of CUDA device `ordinal`, from the CUDA driver, for frameworks that do not report it."""
    driver = ctypes.CDLL("libcuda.so.1")
    device, value = ctypes.c_int(), ctypes.c_int()
    l2_cache_size = 38  # CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE (cuda.h)
    for call, args in [(driver.cuInit, (0,)), (driver.cuDeviceGet, (ctypes.byref(device), ordinal)),
                       (driver.cuDeviceGetAttribute, (ctypes.byref(value), l2_cache_size, device))]:
        status = call(*args)
        if status != 0:
            raise RuntimeError(f"{call.__name__} failed: CUresult {status}")
    return value.value
