"""The GPU backends' own code (copies, events, batches, results, release, configuration) run through
stand-ins for torch, CuPy, cuda.compute and JAX built on NumPy, on a machine without them. What the
real frameworks do is tested on the GPU machines (test_gpu_frameworks.py); this holds the code
around their calls to the interface those tests rely on."""

from __future__ import annotations

import random
import sys
import types

import numpy as np
import pytest

import measure
from backends import cuda_compute, cupy_sum, jax_sum, torch_sum
from handoff import Rules

RULES = Rules(repetitions=2, min_time_s=1e-4, min_warmup_s=0.0, l2_rotation_factor=4, copy_alignment=256,
              batch_bytes=64 << 20, min_batch=2, max_batch=1024, interleave=True)
L2 = 1 << 16


class Array(np.ndarray):
    """A 'device' array: NumPy's, with the methods the backends call on torch tensors and CuPy arrays."""

    def copy_(self, source):
        self[...] = source

    def set(self, host):
        self[...] = host

    def get(self):
        return np.asarray(self)

    def block_until_ready(self):
        return self


def device(values) -> Array:
    return np.array(values).view(Array)


class Event:
    def __init__(self, enable_timing=True):
        self.at = None

    def record(self):
        self.at = random.random()

    def synchronize(self):
        assert self.at is not None, "waited for an event never recorded"

    def elapsed_time(self, stop):
        return 1.0  # milliseconds


def module(monkeypatch, name, **attributes):
    made = types.ModuleType(name)
    made.__dict__.update(attributes)
    monkeypatch.setitem(sys.modules, name, made)
    return made


@pytest.fixture
def torch(monkeypatch):
    cuda = types.SimpleNamespace(
        is_available=lambda: True, current_device=lambda: 0, synchronize=lambda: None, empty_cache=lambda: None,
        get_device_properties=lambda index: types.SimpleNamespace(L2_cache_size=L2), Event=Event,
        OutOfMemoryError=MemoryError, get_device_name=lambda: "Stand-in GPU")
    return module(monkeypatch, "torch", __version__="0.0", version=types.SimpleNamespace(cuda="0.0"), cuda=cuda,
                  device=lambda name: name, from_numpy=lambda a: a.view(Array),
                  empty=lambda count, dtype, device: np.empty(count, dtype).view(Array),
                  sum=lambda x: device(np.sum(x)))


@pytest.fixture
def cupy(monkeypatch):
    names = {"cub": 1, "cutensor": 2}
    state = {kind: [] for kind in cupy_sum._KINDS}

    def setter(kind):
        def set_accelerators(chosen):
            if any(isinstance(c, str) and c not in names for c in chosen):
                raise ValueError(f"Unknown accelerator: {chosen}")
            state[kind] = [names[c] if isinstance(c, str) else c for c in chosen]
        return set_accelerators

    core = module(monkeypatch, "cupy._core", **{f"get_{k}_accelerators": (lambda k=k: state[k]) for k in state},
                  **{f"set_{k}_accelerators": setter(k) for k in state})
    monkeypatch.setattr(cupy_sum, "_at_import", {})
    runtime = types.SimpleNamespace(getDeviceCount=lambda: 1,
                                    getDeviceProperties=lambda i: {"name": b"Stand-in GPU"})
    cuda = types.SimpleNamespace(runtime=runtime, Event=Event, get_elapsed_time=lambda a, b: 1.0,
                                 memory=types.SimpleNamespace(OutOfMemoryError=MemoryError),
                                 Device=lambda: types.SimpleNamespace(id=0, attributes={"L2CacheSize": L2},
                                                                      synchronize=lambda: None))
    pool = types.SimpleNamespace(free_all_blocks=lambda: None)
    return module(monkeypatch, "cupy", __version__="0.0", _core=core, cuda=cuda, get_default_memory_pool=lambda: pool,
                  empty=lambda count, dtype: np.empty(count, dtype).view(Array), sum=lambda x: device(np.sum(x)),
                  state=state)


def run_both_timings(backend, values):
    found = {}
    cases = [measure.Case(backend, "isolated", 1), measure.Case(backend, "batched", 4)]
    measure.time_cases(cases, values, RULES, lambda case, outcome: found.update({case.timing: outcome}), random.Random(2))
    return found


VALUES = np.random.default_rng(3).random(1001, dtype=np.float32)


def check(backend, calls_per_call_ms=1e-3):
    assert backend.unavailable_reason() is None
    for timing, outcome in run_both_timings(backend, VALUES).items():
        assert not outcome.failure, outcome.failure
        assert outcome.results == [float(np.sum(VALUES))] * RULES.repetitions
        if backend.timer == "device_events":  # the stand-in events say 1 ms a region
            assert outcome.times == [calls_per_call_ms / (4 if timing == "batched" else 1)] * RULES.repetitions
    assert backend.device_name() in ("Stand-in GPU", "Stand-in kind")


def test_torch_sum(torch):
    (backend,) = torch_sum.backends()
    check(backend)
    assert backend.configuration() == "torch=0.0 cuda=0.0"
    reduction = backend.prepare(VALUES, RULES)
    assert reduction.copies.count == measure.rotation_layout(RULES, VALUES.nbytes, L2)[1]


def test_cupy_sums_set_their_accelerators_and_say_them(cupy, monkeypatch):
    monkeypatch.delenv("CUPY_ACCELERATORS", raising=False)
    cupy.state["routine"] = [1]  # as CuPy's default sets it
    default, cub, none = cupy_sum.backends()
    for backend, routine in [(cub, [1]), (none, []), (default, [1])]:
        check(backend)
        assert cupy.state["routine"] == routine and cupy.state["reduction"] == routine[:1] * (backend is not default)
    assert default.configuration() == "cupy=0.0 CUPY_ACCELERATORS=(unset) routine=cub reduction=none"
    assert cub.configuration() == "cupy=0.0 routine=cub reduction=cub"
    assert none.configuration() == "cupy=0.0 routine=none reduction=none"


def test_cuda_compute_reduce_into(cupy, monkeypatch):
    def reduce_into(d_in, d_out, op, num_items, h_init):
        assert op == "PLUS" and num_items == d_in.size and h_init.dtype == d_in.dtype
        d_out[...] = h_init + np.sum(d_in)

    compute = module(monkeypatch, "cuda.compute", reduce_into=reduce_into, OpKind=types.SimpleNamespace(PLUS="PLUS"))
    module(monkeypatch, "cuda", compute=compute)
    monkeypatch.setattr(cuda_compute.metadata, "version", lambda name: "0.0")
    (backend,) = cuda_compute.backends()
    check(backend)
    assert backend.configuration() == "cuda-cccl=0.0 op=OpKind.PLUS h_init=0"


def test_jax_sum(monkeypatch):
    gpu = types.SimpleNamespace(id=0, local_hardware_id=0, device_kind="Stand-in kind")
    jnp = module(monkeypatch, "jax.numpy", sum=lambda x: device(np.sum(x)))
    module(monkeypatch, "jaxlib", __version__="0.0")
    module(monkeypatch, "jax", __version__="0.0", numpy=jnp, devices=lambda kind: [gpu], jit=lambda f: f,
           device_put=lambda hosts, where: [device(host) for host in hosts], block_until_ready=lambda x: x,
           config=types.SimpleNamespace(update=lambda *a: None))
    monkeypatch.setattr(jax_sum, "_jitted_sum", [])
    monkeypatch.setattr(jax_sum, "driver_l2_cache_bytes", lambda ordinal: L2)
    monkeypatch.setenv("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    (backend,) = jax_sum.backends()
    check(backend)
    assert backend.configuration() == ("jax=0.0 jaxlib=0.0 jit=True x64=True XLA_PYTHON_CLIENT_PREALLOCATE=false "
                                       "sync=block_until_ready")
