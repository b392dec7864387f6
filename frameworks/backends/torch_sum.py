"""torch/sum: torch.sum(x) on a CUDA tensor, timed with torch.cuda.Event on the current stream."""

from __future__ import annotations

import numpy as np

from backend import Backend, ResourceExhausted, in_element_type
from device_sum import EventTimedSum, driver_l2_cache_bytes
from measure import Rotation


def _torch():
    import torch
    return torch


def _why_unavailable() -> str | None:
    try:
        torch = _torch()
    except ImportError as e:
        return f"PyTorch is not installed for this Python ({e})"
    if torch.version.cuda is None:
        return f"torch {torch.__version__} is built without CUDA"
    if not torch.cuda.is_available():
        return f"torch {torch.__version__}: no CUDA device (torch.cuda.is_available() is False)"
    return None


def _prepare(values: np.ndarray, rules):
    torch = _torch()
    device = torch.device("cuda")
    dtype = torch.from_numpy(values[:0]).dtype
    index = torch.cuda.current_device()
    # torch's device properties hold L2_cache_size in recent versions; the driver says it for older ones
    l2_bytes = getattr(torch.cuda.get_device_properties(index), "L2_cache_size", None) or driver_l2_cache_bytes(index)
    try:
        copies = Rotation.in_one_buffer(
            values, rules, l2_bytes,
            new_buffer=lambda count: torch.empty(count, dtype=dtype, device=device),
            upload=lambda to, host: to.copy_(torch.from_numpy(host)),
            copy=lambda to, source: to.copy_(source))
        torch.cuda.synchronize()
    except torch.cuda.OutOfMemoryError as e:
        torch.cuda.empty_cache()
        raise ResourceExhausted(f"torch/sum: {e}") from None

    def seconds_between(start, stop):
        stop.synchronize()
        return start.elapsed_time(stop) / 1e3  # milliseconds

    return EventTimedSum(copies, torch.sum, lambda: torch.cuda.Event(enable_timing=True), seconds_between,
                         read=lambda out: float(out.item()), release=torch.cuda.empty_cache)


def _configuration() -> str:
    torch = _torch()
    return f"torch={torch.__version__} cuda={torch.version.cuda}"


def backends() -> list[Backend]:
    return [Backend(
        name="torch/sum", device="cuda",
        description="torch.sum(x) on a CUDA tensor: PyTorch's reduction kernel",
        timer="device_events",
        # PyTorch's CUDA reduce accumulates float in float and double in double (acc_type), per
        # thread then over a fixed tree of warps, blocks and a last block; no atomics.
        traits=in_element_type("tree", "per_thread_count"),
        prepare=_prepare, unavailable_reason=_why_unavailable, configuration=_configuration,
        device_name=lambda: _torch().cuda.get_device_name())]
