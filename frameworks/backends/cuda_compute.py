"""cuda.compute/reduce_into: CCCL's Python reduction (the cuda-cccl package), as its documentation calls
it, on CuPy arrays, timed with cupy.cuda.Event on the stream it runs on (the default stream)."""

from __future__ import annotations

from importlib import metadata

import numpy as np

from backend import Backend, in_element_type
from backends.cupy_sum import cupy_module, device_name, event_timed, why_no_device

NAME = "cuda.compute/reduce_into"


def _compute():
    import cuda.compute
    return cuda.compute


def _why_unavailable() -> str | None:
    try:
        compute = _compute()
    except ImportError as e:
        return (f"cuda.compute is not installed for this Python ({e}): pip install 'cuda-cccl[cu13]' "
                "(README.md, \"Framework rows\", says how without a network)")
    if not getattr(compute, "_BINDINGS_AVAILABLE", True):
        return "cuda.compute: its CUDA bindings are not available (no CUDA driver)"
    return why_no_device(NAME)


def _prepare(values: np.ndarray, rules):
    compute, cupy = _compute(), cupy_module()
    out = cupy.empty(1, dtype=values.dtype)
    h_init = np.zeros(1, dtype=values.dtype)

    def call(x):
        compute.reduce_into(d_in=x, d_out=out, op=compute.OpKind.PLUS, num_items=x.size, h_init=h_init)
        return out

    return event_timed(NAME, values, rules, call, read=lambda result: float(result.get()[0]))


def backends() -> list[Backend]:
    return [Backend(
        name=NAME, device="cuda",
        description="cuda.compute.reduce_into(x, out, OpKind.PLUS, n, 0): CUB's DeviceReduce built for the "
                    "types at first call, temporary storage taken per call",
        timer="device_events",
        # The initial value's type is the accumulator's; reduce_into's default determinism is run to run.
        traits=in_element_type("tree", "per_thread_count"),
        prepare=_prepare, unavailable_reason=_why_unavailable,
        configuration=lambda: f"cuda-cccl={metadata.version('cuda-cccl')} op=OpKind.PLUS h_init=0",
        device_name=device_name)]
