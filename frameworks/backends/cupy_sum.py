"""cupy/sum with CuPy's accelerators as a user gets them, with CUB, and with none: the setting
(CUPY_ACCELERATORS) decides which kernel cupy.sum runs. Timed with cupy.cuda.Event on the current stream."""

from __future__ import annotations

import os

import numpy as np

from backend import Backend, ResourceExhausted, in_element_type
from device_sum import EventTimedSum
from measure import Rotation

# cupy._core's accelerator lists, which CUPY_ACCELERATORS sets all three of at import: cupy.sum runs
# a routine accelerator (CUB's DeviceReduce) when one is listed, else CuPy's reduction kernel.
_KINDS = ("routine", "reduction", "elementwise")
_at_import: dict[str, list] = {}


def cupy_module():
    import cupy
    from cupy import _core
    if not _at_import:
        _at_import.update({kind: list(getattr(_core, f"get_{kind}_accelerators")()) for kind in _KINDS})
    return cupy


def _set_accelerators(setting: list | None) -> None:
    from cupy import _core
    for kind in _KINDS:
        getattr(_core, f"set_{kind}_accelerators")(_at_import[kind] if setting is None else setting)


def _names(ids: list) -> str:
    """'cub', 'cub,cutensor' or 'none': CuPy keeps the accelerators as numbers; each name's number is
    found by setting it."""
    from cupy import _core
    saved = list(_core.get_routine_accelerators())
    known = {}
    for name in ("cub", "cutensor", "cutensornet"):
        try:
            _core.set_routine_accelerators([name])
            known[_core.get_routine_accelerators()[0]] = name
        except ValueError:  # a name this CuPy does not know
            pass
    _core.set_routine_accelerators(saved)
    return ",".join(known.get(i, str(i)) for i in ids) or "none"


def why_no_device(cupy_user: str) -> str | None:
    """Why CuPy (which `cupy_user` needs) cannot run here, or None."""
    try:
        cupy = cupy_module()
    except ImportError as e:
        return f"CuPy is not installed for this Python ({e})"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # CUDARuntimeError: no driver, no device
        return f"{cupy_user}: no CUDA device ({e})"
    return None if count > 0 else f"{cupy_user}: no CUDA device"


def device_name() -> str:
    cupy = cupy_module()
    return cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"].decode()


def rotation(values: np.ndarray, rules) -> Rotation:
    """The input's copies on the current device, in one CuPy buffer."""
    cupy = cupy_module()
    return Rotation.in_one_buffer(
        values, rules, cupy.cuda.Device().attributes["L2CacheSize"],
        new_buffer=lambda count: cupy.empty(count, dtype=values.dtype),
        upload=lambda to, host: to.set(host), copy=_copy)


def _copy(to, source) -> None:
    to[...] = source


def event_timed(name: str, values: np.ndarray, rules, call, read) -> EventTimedSum:
    """call(copy) timed between cupy.cuda.Events on the current stream."""
    cupy = cupy_module()
    pool = cupy.get_default_memory_pool()
    try:
        copies = rotation(values, rules)
        cupy.cuda.Device().synchronize()
    except cupy.cuda.memory.OutOfMemoryError as e:
        pool.free_all_blocks()
        raise ResourceExhausted(f"{name}: {e}") from None

    def seconds_between(start, stop):
        stop.synchronize()
        return cupy.cuda.get_elapsed_time(start, stop) / 1e3  # milliseconds

    return EventTimedSum(copies, call, cupy.cuda.Event, seconds_between, read, release=pool.free_all_blocks)


def _backend(name: str, setting: list | None, description: str) -> Backend:
    """cupy.sum with the accelerator lists set to `setting`; None: as CuPy set them at import."""
    def prepare(values, rules):
        cupy = cupy_module()
        _set_accelerators(setting)
        return event_timed(name, values, rules, cupy.sum, read=lambda out: float(out.get()))

    def configuration() -> str:
        cupy = cupy_module()
        if setting is None:
            chosen = f"CUPY_ACCELERATORS={os.environ.get('CUPY_ACCELERATORS', '(unset)')} " + \
                " ".join(f"{kind}={_names(_at_import[kind])}" for kind in _KINDS[:2])
        else:
            chosen = " ".join(f"{kind}={','.join(setting) or 'none'}" for kind in _KINDS[:2])
        return f"cupy={cupy.__version__} {chosen}"

    return Backend(
        name=name, device="cuda", description=description, timer="device_events",
        # CuPy's own reduction kernel and CUB's DeviceReduce both keep the running sum in the element
        # type, per thread, then over a fixed tree of warps and blocks; neither uses atomics.
        traits=in_element_type("tree", "per_thread_count"),
        prepare=prepare, unavailable_reason=lambda: why_no_device(name), configuration=configuration,
        device_name=device_name)


def backends() -> list[Backend]:
    return [
        _backend("cupy/sum", None,
                 "cupy.sum(x) with CuPy's accelerators as a user gets them (CUPY_ACCELERATORS, or CuPy's default)"),
        _backend("cupy/sum-cub", ["cub"], "cupy.sum(x) with CUPY_ACCELERATORS=cub: CUB's DeviceReduce"),
        _backend("cupy/sum-no-accelerators", [], "cupy.sum(x) with CUPY_ACCELERATORS empty: CuPy's own reduction kernel"),
    ]
