"""A framework backend: the Python side of api/backend.hpp's Backend record.

A backend is one call a framework's user makes (torch.sum, cupy.sum, ...). It says where it runs,
how its calls are timed, which element types it takes with the traits it declares for each, whether
it can run here (and why not), and how to prepare one input, so that the runner times calls alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from handoff import Rules


@dataclass(frozen=True)
class Traits:
    """What the backend declares (api/backend.hpp, results/README.md: the trait columns)."""
    accumulator: str  # f32, f64, compensated_f32, exact, ...: what the running sum is kept in
    order: str  # sequential, pairwise, tree, ...: how the additions are arranged
    reproducibility: str  # none, per_thread_count, any_thread_count
    role: str = "reduction"


# The types the framework backends declare traits for, as the dtype column names them; an input of
# another type the harness hands over (f16) is named as not measured.
ELEMENT_TYPES = ("f32", "f64")


def in_element_type(order: str, reproducibility: str) -> dict[str, Traits]:
    """The traits of a backend that sums in the element type itself, for every element type."""
    return {dtype: Traits(dtype, order, reproducibility) for dtype in ELEMENT_TYPES}


def for_every_type(traits: Traits) -> dict[str, Traits]:
    return {dtype: traits for dtype in ELEMENT_TYPES}


class ResourceExhausted(Exception):
    """prepare() or a call found no memory for this size: the case is skipped, named, not failed."""


class Reduction:
    """One prepared input; every call does the whole reduction again."""

    def run(self) -> float | None:
        """One call. Self-timed backends return its seconds; host-timed ones None (the runner times them)."""
        raise NotImplementedError

    def run_batch(self, calls: int) -> float:
        """`calls` calls back to back, inputs rotating, between two timestamps; their seconds."""
        raise NotImplementedError(f"{type(self).__name__} does not batch")

    def result(self) -> float:
        """The last call's sum, widened to double, read after timing."""
        raise NotImplementedError

    def host_input(self) -> np.ndarray | None:
        """The host memory a call reads, for the pages column; None for device memory."""
        return None

    def release(self) -> None:
        """Frees what prepare() took, so the next case has the memory."""


# How a backend's calls are timed, and the word its rows' configuration says it with.
TIMERS = {
    "device_events": "device-events",  # the framework's device events around the device work
    "wall_clock_sync": "wall-clock+device-sync",  # the host clock around the call and a wait for the device
    "host_wall_clock": "wall-clock",  # the host clock around the calls (host backends)
}


@dataclass
class Backend:
    name: str  # lower case, slash-separated, stable: "torch/sum"
    device: str  # the device API its rows name: "cuda", "cpu"
    description: str
    timer: str  # a key of TIMERS
    traits: dict[str, Traits]  # per element type it takes (the dtype column's words)
    prepare: Callable[[np.ndarray, Rules], Reduction]  # the values and the rules (device copies) -> Reduction
    unavailable_reason: Callable[[], str | None]
    configuration: Callable[[], str]  # versions and settings: the configuration column
    device_name: Callable[[], str] | None = None  # the gpu column where the harness names no device
    batches: bool = True  # isolated and batched rows (device backends); host backends: isolated only
    # Why an input of n elements is left out (a call too slow to repeat), or None.
    skip_reason: Callable[[int], str | None] = field(default=lambda n: None)

    @property
    def cache(self) -> str:
        """Device rows rotate their inputs past the cache (cold); host rows read one input (warm)."""
        return "warm" if self.device == "cpu" else "cold"

    @property
    def self_timed(self) -> bool:
        return self.timer != "host_wall_clock"
