"""jax/sum: jax.jit(jnp.sum)(x) on a GPU array. JAX has no device events: a region is timed by the host
clock around the calls and block_until_ready on their results."""

from __future__ import annotations

import os

import numpy as np

from backend import Backend, ResourceExhausted, in_element_type
from device_sum import WallClockSum, driver_l2_cache_bytes
from measure import Rotation

# JAX takes 75% of the GPU's memory at its first call unless told not to; the other frameworks of the
# run need theirs. A user's own setting is kept, and the configuration column says it.
_PREALLOCATE = "XLA_PYTHON_CLIENT_PREALLOCATE"
_jitted_sum = []


def _jax():
    os.environ.setdefault(_PREALLOCATE, "false")
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)  # else float64 arrays become float32; float32 sums stay float32
    if not _jitted_sum:
        _jitted_sum.append(jax.jit(jnp.sum))
    return jax


def _gpu():
    return _jax().devices("gpu")[0]


def _why_unavailable() -> str | None:
    try:
        jax = _jax()
    except ImportError as e:
        return f"JAX is not installed for this Python ({e})"
    try:
        jax.devices("gpu")
    except (RuntimeError, ValueError) as e:
        return f"jax {jax.__version__}: no GPU backend ({e})"
    return None


# Copies per device_put, in groups: a call per copy costs a Python call each, and one device_put of
# the ~10^6 copies that rotate a one-element input past 4x the L2 aborted the process (jax 0.11.2).
_PUT_GROUP = 4096


def _put_copies(jax, gpu, host: np.ndarray, count: int) -> list:
    copies = []
    for start in range(0, count, _PUT_GROUP):
        copies += jax.device_put([host] * min(_PUT_GROUP, count - start), gpu)
    return jax.block_until_ready(copies)


def _prepare(values: np.ndarray, rules):
    jax = _jax()
    gpu = _gpu()
    ordinal = getattr(gpu, "local_hardware_id", None)
    try:
        copies = Rotation.separate(values, rules, driver_l2_cache_bytes(gpu.id if ordinal is None else ordinal),
                                   put_all=lambda host, count: _put_copies(jax, gpu, host, count))
    except Exception as e:  # XlaRuntimeError
        if "RESOURCE_EXHAUSTED" in str(e):
            raise ResourceExhausted(f"jax/sum: {e}") from None
        raise

    def wait(outs):
        for out in outs:
            out.block_until_ready()

    return WallClockSum(copies, _jitted_sum[0], wait, read=lambda out: float(np.asarray(out)), release=lambda: None)


def _configuration() -> str:
    jax = _jax()
    import jaxlib
    return (f"jax={jax.__version__} jaxlib={jaxlib.__version__} jit=True x64=True "
            f"{_PREALLOCATE}={os.environ[_PREALLOCATE]} sync=block_until_ready")


def backends() -> list[Backend]:
    return [Backend(
        name="jax/sum", device="cuda",
        description="jax.jit(jnp.sum)(x) on a GPU array: XLA's reduction, timed by the host clock and block_until_ready",
        timer="wall_clock_sync",
        # XLA keeps a float32 (float64) sum in float32 (float64), per thread, then over its reduction
        # tree; it does not promise the same bits run to run (only --xla_gpu_deterministic_ops does).
        traits=in_element_type("tree", "none"),
        prepare=_prepare, unavailable_reason=_why_unavailable, configuration=_configuration,
        device_name=lambda: _gpu().device_kind)]
