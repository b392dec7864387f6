"""numpy/sum and numpy/math.fsum: the host sums a NumPy user calls, on the array as np.load gives it."""

from __future__ import annotations

import math
import platform

import numpy as np

from backend import Backend, Reduction, Traits, for_every_type, in_element_type

# math.fsum iterates the array, one NumPy scalar per element: about 1 s a call at 2^24 elements on the
# development VM, and a case makes a dozen calls or more. Larger inputs are left out, named (--fsum-max).
DEFAULT_FSUM_MAX = 1 << 24


class _HostSum(Reduction):
    def __init__(self, values: np.ndarray, sum_function):
        self.values, self.sum, self.last = values, sum_function, math.nan

    def run(self) -> None:
        self.last = self.sum(self.values)

    def result(self) -> float:
        return float(self.last)

    def host_input(self) -> np.ndarray:
        return self.values


def backends(fsum_max: int = DEFAULT_FSUM_MAX) -> list[Backend]:
    numpy_version = f"numpy={np.__version__}"
    return [
        Backend(
            name="numpy/sum", device="cpu",
            description="numpy.sum(x): NumPy's pairwise summation in the array's type, one thread",
            timer="host_wall_clock", batches=False,
            # NumPy's add.reduce sums blocks of 128 in 8 lanes and combines the blocks pairwise
            # (loops_utils.h.src: pairwise_sum), in the array's own type.
            traits=in_element_type("pairwise", "any_thread_count"),
            prepare=lambda values, rules: _HostSum(values, np.sum),
            unavailable_reason=lambda: None,
            configuration=lambda: numpy_version),
        Backend(
            name="numpy/math.fsum", device="cpu",
            description="math.fsum(x) on a NumPy array: Shewchuk's exact sum, rounded once to double, one thread",
            timer="host_wall_clock", batches=False,
            traits=for_every_type(Traits("exact", "sequential", "any_thread_count")),
            prepare=lambda values, rules: _HostSum(values, math.fsum),
            unavailable_reason=lambda: None,
            configuration=lambda: f"python={platform.python_version()} {numpy_version}",
            skip_reason=lambda n: (f"math.fsum takes about a second per 2^24 elements; {n} is above --fsum-max={fsum_max}"
                                   if n > fsum_max else None)),
    ]
