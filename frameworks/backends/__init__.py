"""Every framework backend, one file per framework; the runner asks each whether it can run here."""

from __future__ import annotations

from backend import Backend
from backends import cuda_compute, cupy_sum, jax_sum, numpy_sum, torch_sum


def all_backends(fsum_max: int = numpy_sum.DEFAULT_FSUM_MAX) -> list[Backend]:
    found = (numpy_sum.backends(fsum_max) + torch_sum.backends() + cupy_sum.backends() + jax_sum.backends()
             + cuda_compute.backends())
    return sorted(found, key=lambda b: b.name)
