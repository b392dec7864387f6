"""Writes the test fixture plot/tests/data/{ws-ryzen,lab-xeon,vm,h200x4}.csv (run it again after a
change).

Made-up but plausible numbers from a small speed and error model, in the harness-v2 schema
(machine, timing, batch, cache and the backends' traits), with a few deliberate traps that the
tests rely on:
  * ws-ryzen, cpu, n=2^24: cpu/openmp/reduction (32 threads, 60.6 GB/s) is the fastest backend.
    Older duplicate rows of cpu/tbb/reduce at 70 GB/s must lose to the newer ones (58.6 GB/s), and
    openmp's 16-thread rows (63 GB/s) must lose to its 32-thread rows; cpu/baseline/read is faster
    still but is the ceiling (role), not a contender.
  * ws-ryzen, cuda, n=2^30: cuda/shuffle is the fastest; the cuda+h2d rows are their own device.
  * Every CUDA backend has an isolated row (one call per timed region: submission latency included)
    and a batched one (K calls back to back, time / K) per size and input; below ~2^20 elements
    they differ several-fold. cuda+h2d rows are isolated only: the plots fall back to that timing.
  * ladder steps at 2^20 and 2^30 on both machines; peak_gbps only on CUDA rows.
  * rel_error exactly 0 (e.g. cpu/serial/kahan on `ones`) and nan (input file:nan-inf).
  * vm.csv: two machines, both with host name "vm" (an Intel and an AMD cloud VM, CPU only) whose
    rows share one file, as when two VMs append to one results file: their `machine` values differ,
    and they must stay two machines.
  * latency.csv: a dispatch-latency run on ws-ryzen (--sizes=per-thread:16, threads 1..32). Only
    the parallel reductions belong in its plot: not the ceiling, not the serial backend measured
    at 16 floats, and not the rows of 64 floats per thread that one backend also has. It is the
    only fixture with the pages column (all "huge"); the others predate it, as the GPU machines'
    files do, and are read with it empty.
  * ws-ryzen-f64.csv: later runs on ws-ryzen, by a harness that writes the dtype column (and pages
    and configuration): float64 rows of cpu/serial/kahan (2.8 GB/s where its float32 rows read 1.4),
    cpu/openmp/reduction and cuda/cub, each a series of its own, and a few more float32 rows that
    join the float32 series of ws-ryzen.csv. bytes = 8 n on the float64 rows: at 2^23 elements
    (64 MiB) cpu/openmp/reduction (f64) meets the float32 ceiling of 2^24 elements, and
    cuda/cub (f64) at 2^29 the one of 2^30; at 2^24 the float64 rows have no ceiling (nothing was
    read of 128 MiB).
  * h200x4.csv: a host with four H200s: nccl/sum and nccl/exact at 1, 2 and 4 GPUs (both timings),
    mpi/cuda at 1, 2 and 4 ranks and mpi/pool-simd at 1 and 2 ranks (isolated), beside one-GPU
    cuda/cub and the ceiling, at 2^20, 2^24, 2^28 and 2^31 elements. Batched nccl/sum at 2^31 on 4
    GPUs scales at 94% (3.74x one GPU); at 2^20 the all-reduce's floor keeps it under 2x. The one-process
    rows (cuda/cub) are gpus = 1, ranks = 1; CPU rows gpus = 0.
  * h100.csv: a one-GPU H100 machine by a harness that writes every column up to version (energy_j,
    gb_per_j on batched rows, version "v0.2-3-gabc1234" on all), at 2^10..2^30 every other power,
    with the launch floor cuda/baseline/launch (2 us batched, 6 us isolated). Its rows follow the
    cost model t = t0 + bytes / r_inf exactly (H100_MODEL), so that the fit gives those numbers
    back; the batched read ceiling (t0 2.5 us) is below the roofline max(floor, bytes / best read)
    at small sizes, where cuda/single-pass (t0 2.2 us) is faster than it but not than the
    roofline. One trap: batched cuda/shuffle at 2^12 took 1.2 us, under the launch floor: above the
    roofline, which the summary must flag.
"""

from __future__ import annotations

import csv
import math
from datetime import datetime, timedelta, timezone
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from shootout_csv import COLUMNS, DTYPE_BYTES  # noqa: E402
SIZES = [2**10, 2**16, 2**20, 2**24, 2**30]
INPUTS = ["ones", "uniform", "normal"]
LADDER = ["01-interleaved-global", "02-interleaved-shared", "03-branching-global",
          "04-branching-shared", "05-sequential-global", "06-sequential-shared",
          "07-first-add-during-load", "08-warp-unrolled", "09-complete-unroll", "10-grid-stride",
          "11-vector-loads", "12-shuffle-down"]
LADDER_EFF = [0.12, 0.19, 0.26, 0.35, 0.44, 0.52, 0.74, 0.85, 0.89, 0.93, 0.955, 0.965]

MACHINES = {
    "ws-ryzen-3f9a0c71": dict(
        host="ws-ryzen", cpu="AMD Ryzen 9 7950X 16-Core Processor", gpu="NVIDIA GeForce RTX 4090",
        peak=1008.1, threads=32, l2=2**20, l3=32 * 2**20, cache_bw=45.0, l3_total=600.0,
        dram_per_thread=20.0, dram_total=62.0, gpu_l2=32 * 2**20, gpu_cache_bw=3000.0,
        gpu_dram=940.0, launch_ns=4000, gap_ns=1200, pcie=25.0, core=1.0, compiler="g++ 13.2.0",
        start="2025-06-01T10:00:00"),
    "lab-xeon-b7d2e418": dict(
        host="lab-xeon", cpu="Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", gpu="NVIDIA A100-SXM4-40GB",
        peak=1555.2, threads=64, l2=2**20, l3=48 * 2**20, cache_bw=30.0, l3_total=900.0,
        dram_per_thread=12.0, dram_total=150.0, gpu_l2=32 * 2**20, gpu_cache_bw=4000.0,
        gpu_dram=1400.0, launch_ns=5000, gap_ns=1500, pcie=24.0, core=0.62,
        compiler="g++ 12.2.0", start="2025-06-02T08:30:00"),
    "vm-0a1b2c3d": dict(
        host="vm", cpu="Intel(R) Xeon(R) Processor", gpu="", peak=0, threads=2, l2=2**20,
        l3=32 * 2**20, cache_bw=40.0, l3_total=80.0, dram_per_thread=12.0, dram_total=23.0,
        core=0.9, compiler="g++ 12.2.0", start="2025-06-03T12:00:00"),
    "vm-9e8d7c6b": dict(
        host="vm", cpu="AMD EPYC 9454 48-Core Processor", gpu="", peak=0, threads=4, l2=2**20,
        l3=32 * 2**20, cache_bw=42.0, l3_total=160.0, dram_per_thread=10.0, dram_total=30.0,
        core=1.1, compiler="g++ 12.2.0", start="2025-06-04T09:00:00"),
}

# The traits each backend declares (accumulator, order, reproducibility, role), as the registry
# writes them; the plots read only these, never the names.
TRAITS = {
    "cpu/serial/accumulate-f32": ("f32", "sequential", "any_thread_count", "reduction"),
    "cpu/serial/accumulate-f64": ("f64", "sequential", "any_thread_count", "reduction"),
    "cpu/serial/kahan": ("compensated_f32", "sequential", "any_thread_count", "reduction"),
    "cpu/serial/pairwise": ("f32", "pairwise", "any_thread_count", "reduction"),
    "cpu/avx2/f32": ("f32", "lanes", "any_thread_count", "reduction"),
    "cpu/openmp/reduction": ("f32", "thread_chunks", "none", "reduction"),
    "cpu/tbb/reduce": ("f64", "unordered", "none", "reduction"),
    "cpu/baseline/read": ("f32", "thread_chunks", "per_thread_count", "ceiling"),
    "cuda/shuffle": ("f32", "tree", "any_thread_count", "reduction"),
    "cuda/cub": ("f32", "tree", "any_thread_count", "reduction"),
    "cuda/thrust": ("f32", "tree", "any_thread_count", "reduction"),
    "cuda/baseline/read": ("f32", "unordered", "none", "ceiling"),
    "cuda/baseline/copy": ("none", "unordered", "none", "reference_copy"),
    "cuda/baseline/launch": ("none", "unordered", "none", "launch_floor"),
    "cuda/single-pass": ("f32", "tree", "any_thread_count", "reduction"),
    "cuda/single-pass-kahan": ("compensated_f32", "tree", "any_thread_count", "reduction"),
    "cuda/atomic/grid": ("f32", "unordered", "none", "reduction"),
    "cuda/exact": ("exact", "tree", "any_thread_count", "reduction"),
    "opencl/single-pass": ("f32", "tree", "any_thread_count", "reduction"),
    "opencl/baseline/read": ("f32", "unordered", "none", "ceiling"),
    "opencl/baseline/launch": ("none", "unordered", "none", "launch_floor"),
    "vulkan/single-pass": ("f32", "tree", "any_thread_count", "reduction"),
    "vulkan/baseline/read": ("f32", "unordered", "none", "ceiling"),
    "vulkan/baseline/launch": ("none", "unordered", "none", "launch_floor"),
    "nccl/sum": ("f64", "tree", "per_thread_count", "reduction"),
    "nccl/exact": ("exact", "unordered", "any_thread_count", "reduction"),
    "mpi/cuda": ("f64", "tree", "per_thread_count", "reduction"),
    "mpi/pool-simd": ("f64", "thread_chunks", "per_thread_count", "reduction"),
    **{f"cuda/ladder/{step}": ("f32", "tree", "any_thread_count", "reduction") for step in LADDER},
}
# Traits are per element type: what a backend declares for float64 input, where that differs.
TRAITS_F64 = {"cpu/serial/kahan": ("compensated_f64", "sequential", "any_thread_count", "reduction"),
              "cpu/openmp/reduction": ("f64", "thread_chunks", "none", "reduction"),
              "cuda/cub": ("f64", "tree", "any_thread_count", "reduction")}

SERIAL_RATE = {"cpu/serial/accumulate-f32": 5.5, "cpu/serial/accumulate-f64": 5.4,
               "cpu/serial/kahan": 1.4, "cpu/serial/pairwise": 9.0, "cpu/avx2/f32": 45.0}
PARALLEL = {"cpu/openmp/reduction": (1.0, 3000), "cpu/tbb/reduce": (0.95, 6000),
            "cpu/baseline/read": (1.02, 2500)}
GPU = {"cuda/shuffle": (0.975, 1.0), "cuda/cub": (0.97, 1.5), "cuda/thrust": (0.95, 3.0),
       "cuda/baseline/read": (1.0, 1.0), "cuda/baseline/copy": (0.92, 1.0)}


def cpu_gbps(h, backend, n, threads, dtype="f32"):
    nbytes = input_bytes(n, dtype)
    if backend in SERIAL_RATE:
        rate = SERIAL_RATE[backend] * h["core"]
        if nbytes > h["l3"]:
            rate = min(rate, h["dram_per_thread"])
        return rate
    eff, overhead_ns = PARALLEL[backend]
    if nbytes <= h["l3"]:
        bw = min(threads * h["cache_bw"], h["l3_total"])
    else:
        bw = min(threads * h["dram_per_thread"], h["dram_total"])
    if threads > h["threads"] // 2:  # SMT siblings: a little slower than one thread per core
        bw *= 0.98
    return nbytes / (nbytes / (bw * eff) + overhead_ns)


def input_bytes(n, dtype="f32"):
    return DTYPE_BYTES[dtype] * n


def batch_size(n, dtype="f32"):
    """Calls per batched region, the harness's rule: 4 GiB / input bytes, in [2, 1024]."""
    return max(2, min(1024, 2**32 // input_bytes(n, dtype)))


def gpu_gbps(h, backend, n, device, timing, dtype="f32"):
    nbytes = input_bytes(n, dtype)
    if backend.startswith("cuda/ladder/"):
        eff, launches = LADDER_EFF[LADDER.index(backend.removeprefix("cuda/ladder/"))], 2.0
    else:
        eff, launches = GPU[backend]
    bw = (h["gpu_cache_bw"] if nbytes <= h["gpu_l2"] else h["gpu_dram"]) * eff
    # isolated: each call pays launch + synchronisation; batched: only the gap between launches
    per_launch = h["launch_ns"] if timing == "isolated" else h["gap_ns"]
    t = nbytes / bw + launches * per_launch
    if device == "cuda+h2d":
        t += nbytes / h["pcie"] + 10000
    return nbytes / t


def rel_error(backend, inp, n, threads):
    eps = 5.96e-8
    if inp == "ones":
        lanes = {"cpu/serial/accumulate-f32": 1, "cpu/avx2/f32": 32}.get(backend)
        if lanes is None or n // lanes <= 2**24:
            return 0.0
        return 1.0 - lanes * 2**24 / n
    scale = 1.0 if inp == "uniform" else 30.0
    if backend == "cpu/serial/accumulate-f32":
        e = 0.1 * n * eps
        return min(0.969, e * scale)
    if backend == "cpu/avx2/f32":
        return min(0.5, 0.1 * n / 32 * eps * scale)
    if backend in ("cpu/openmp/reduction", "cpu/tbb/reduce"):
        return min(0.5, 0.1 * n / threads / 8 * eps * scale)
    if backend == "cpu/serial/kahan":
        return 0.0 if n <= 2**16 else 2.9e-8 * scale
    if backend == "cpu/serial/accumulate-f64":
        return 0.0 if n <= 2**16 else 1.1e-16 * math.sqrt(n) * scale
    if backend == "cpu/serial/pairwise":
        return 1e-8 * math.log2(n) * scale
    base = {"cuda/shuffle": 8e-9, "cuda/cub": 5e-9, "cuda/thrust": 6e-9}.get(backend, 7e-9)
    return base * math.log2(n) * scale


def exact_sum(inp, n):
    return {"ones": float(n), "uniform": n * 0.5000013, "normal": 0.731 * math.sqrt(n)}[inp]


class Writer:
    def __init__(self, machines):
        self.rows = []
        self.machines = machines

    def use(self, machine):
        self.machine = machine
        self.h = MACHINES[machine]
        self.t = datetime.fromisoformat(self.h["start"]).replace(tzinfo=timezone.utc)

    def row(self, backend, device, threads, inp, n, gbps, err, seed=0, when=None,
            timing="isolated", batch=1, gpus=None, ranks=1, dtype="f32", watts=None, version=""):
        h = self.h
        self.t += timedelta(seconds=3)
        stamp = (when or self.t).strftime("%Y-%m-%dT%H:%M:%SZ")
        gbps = round(gbps, 3)
        nbytes = input_bytes(n, dtype)
        t_med = nbytes / gbps
        accumulator, order, reproducibility, role = (TRAITS_F64 if dtype == "f64" else TRAITS)[backend]
        if inp.startswith("file:"):
            exact = result = math.nan
        else:
            exact = exact_sum(inp, n)
            result = exact * (1 + err) if role != "reference_copy" else math.nan
        if role in ("reference_copy", "launch_floor"):
            err = result = math.nan  # sums nothing
        cuda = device != "cpu"
        self.rows.append({
            "timestamp": stamp, "host": h["host"], "cpu": h["cpu"],
            "gpu": h["gpu"] if cuda else "",
            "compiler": h["compiler"] + (" / nvcc 12.4" if h["gpu"] else ""), "build": "Release",
            "backend": backend, "device": device, "threads": threads, "input": inp, "seed": seed,
            "n": n, "bytes": nbytes, "gbps": f"{gbps:.3f}", "time_ns_median": f"{t_med:.0f}",
            "time_ns_min": f"{t_med * 0.97:.0f}", "iterations": max(5, min(1000, 2**30 // n)),
            "result": f"{result:.17g}", "exact": f"{exact:.17g}",
            "rel_error": "nan" if math.isnan(err) else f"{err:.17g}",
            "peak_gbps": f"{h['peak']:.1f}" if cuda else "",
            "machine": self.machine, "timing": timing, "batch": batch,
            "cache": "cold" if cuda else "warm", "accumulator": accumulator, "order": order,
            "reproducibility": reproducibility, "role": role, "reproducible": "yes",
            "gpus": (1 if cuda else 0) if gpus is None else gpus, "ranks": ranks,
            "pages": "" if cuda else "huge", "configuration": "", "dtype": dtype, "os": "linux",
            "energy_j": f"{watts * t_med * 1e-9:.6g}" if watts else "",
            "gb_per_j": f"{nbytes * 1e-9 / (watts * t_med * 1e-9):.6g}" if watts else "", "version": version,
        })

    def gpu_rows(self, backend, inp, n, err, dtype="f32"):
        """The isolated and the batched row of one CUDA measurement."""
        for timing, batch in [("isolated", 1), ("batched", batch_size(n, dtype))]:
            self.row(backend, "cuda", 1, inp, n, gpu_gbps(self.h, backend, n, "cuda", timing, dtype), err,
                     timing=timing, batch=batch, dtype=dtype)

    def write(self, path, later=()):
        """The columns of COLUMNS and then `later`, the columns appended since in their order
        (pages, configuration, dtype): a file of a harness before them lacks them, as the GPU
        machines' earlier files do."""
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS + list(later), lineterminator="\n",
                               extrasaction="ignore")
            w.writeheader()
            w.writerows(self.rows)


def cpu_rows(w, sizes, sweep, serial=SERIAL_RATE, parallel=PARALLEL):
    h = w.h
    tmax = h["threads"]
    for n in sizes:
        for backend in serial:
            for inp in INPUTS:
                w.row(backend, "cpu", 1, inp, n, cpu_gbps(h, backend, n, 1),
                      rel_error(backend, inp, n, 1))
        for backend in parallel:
            threads = [1, 2, 4, 8, 16, 32] if sweep and n in (2**24, 2**30) else [tmax]
            for t in threads:
                for inp in (INPUTS if t == tmax else ["uniform"]):
                    gbps = cpu_gbps(h, backend, n, t)
                    if backend == "cpu/openmp/reduction" and n == 2**24 and t == 16 and sweep:
                        gbps = 63.0  # the fastest thread count is not the one the plots use
                    err = 0.0 if TRAITS[backend][3] == "ceiling" else rel_error(backend, inp, n, t)
                    w.row(backend, "cpu", t, inp, n, gbps, err)
        if sweep and n == 2**20:  # more seeds: the plots use the median
            w.row("cpu/serial/kahan", "cpu", 1, "uniform", n, 1.50, 3.1e-8, seed=1)
            w.row("cpu/serial/kahan", "cpu", 1, "uniform", n, 1.20, 2.7e-8, seed=2)


def make(machine, sweep, h2d):
    w = Writer([machine])
    w.use(machine)
    h = w.h
    tmax = h["threads"]
    if sweep:  # an older run whose tbb numbers must be superseded
        old = datetime(2025, 5, 20, 9, 0, tzinfo=timezone.utc)
        for inp in INPUTS:
            w.row("cpu/tbb/reduce", "cpu", tmax, inp, 2**24, 70.0,
                  rel_error("cpu/tbb/reduce", inp, 2**24, tmax), when=old)
    cpu_rows(w, SIZES, sweep)
    for n in SIZES:
        for backend in GPU:
            for inp in (INPUTS if TRAITS[backend][3] == "reduction" else ["uniform"]):
                err = 0.0 if TRAITS[backend][3] != "reduction" else rel_error(backend, inp, n, 1)
                w.gpu_rows(backend, inp, n, err)
            if h2d and backend in ("cuda/shuffle", "cuda/cub"):  # isolated only
                w.row(backend, "cuda+h2d", 1, "uniform", n,
                      gpu_gbps(h, backend, n, "cuda+h2d", "isolated"),
                      rel_error(backend, "uniform", n, 1))
    for n in (2**20, 2**30):
        for step in LADDER:
            b = f"cuda/ladder/{step}"
            w.gpu_rows(b, "uniform", n, rel_error(b, "uniform", n, 1))
    if sweep:  # an input file holding NaN and Inf: rel_error is nan
        for backend in ("cpu/serial/accumulate-f32", "cpu/serial/kahan"):
            w.row(backend, "cpu", 1, "file:nan-inf", 1000, SERIAL_RATE[backend] * 0.9, math.nan)
        for timing in ("isolated", "batched"):
            w.row("cuda/cub", "cuda", 1, "file:nan-inf", 1000, 0.6 if timing == "isolated" else 2.1,
                  math.nan, timing=timing, batch=1 if timing == "isolated" else batch_size(1000))
    return w


def make_latency():
    """A dispatch-latency run: ns per call = a fixed cost plus one per doubling of threads."""
    w = Writer(["ws-ryzen-3f9a0c71"])
    w.use("ws-ryzen-3f9a0c71")
    cost = {"cpu/openmp/reduction": (900, 450), "cpu/tbb/reduce": (300, 1100), "cpu/baseline/read": (150, 350)}
    for threads in [1, 2, 4, 8, 16, 32]:
        for backend, (base, per_doubling) in cost.items():
            n = 16 * threads
            ns = base + per_doubling * math.log2(threads)
            w.row(backend, "cpu", threads, "uniform", n, input_bytes(n) / ns, 0.0)
        n = 64 * threads  # another per-thread size: not in a 16-float plot
        w.row("cpu/tbb/reduce", "cpu", threads, "uniform", n, input_bytes(n) / 5000, 0.0)
    w.row("cpu/serial/kahan", "cpu", 1, "uniform", 16, 64 / 20, 0.0)
    return w


def make_vms():
    """Two CPU-only VMs, both host "vm", appending to one file."""
    w = Writer(["vm-0a1b2c3d", "vm-9e8d7c6b"])
    serial = {b: SERIAL_RATE[b] for b in ("cpu/serial/accumulate-f32", "cpu/serial/kahan")}
    parallel = {b: PARALLEL[b] for b in ("cpu/openmp/reduction", "cpu/baseline/read")}
    for machine in w.machines:
        w.use(machine)
        cpu_rows(w, [2**10, 2**16, 2**20, 2**24], sweep=False, serial=serial, parallel=parallel)
    return w


# The four-H200 host: per GPU 4500 GB/s of streaming at size; an isolated call pays a launch and
# its wait, a batched one the gap between launches; NCCL's all-reduce adds its floor per call.
H200X4 = "h200x4-5c6d7e8f"
MACHINES[H200X4] = dict(
    host="h200x4", cpu="Intel(R) Xeon(R) Platinum 8480+", gpu="NVIDIA H200", peak=4814.0, threads=16,
    l2=2**21, l3=105 * 2**20, cache_bw=40.0, l3_total=900.0, dram_per_thread=12.0, dram_total=180.0,
    core=1.0, compiler="g++ 12.2.0", start="2026-12-01T08:00:00")
SCALE_SIZES = [2**20, 2**24, 2**28, 2**31]


def multi_gpu_gbps(n, gpus, timing, allreduce_us):
    """One shard per GPU at 4500 GB/s (L2-cold), plus the call's fixed cost."""
    per_call_us = (6.0 if timing == "isolated" else 2.5) + allreduce_us
    t = input_bytes(n) / gpus / 4500.0 + per_call_us * 1000
    return input_bytes(n) / t


def make_multi_gpu():
    w = Writer([H200X4])
    w.use(H200X4)
    for n in SCALE_SIZES:
        for timing, batch in [("isolated", 1), ("batched", batch_size(n))]:
            w.row("cuda/baseline/read", "cuda", 1, "uniform", n, multi_gpu_gbps(n, 1, timing, 0) * 1.01,
                  0.0, timing=timing, batch=batch)
            w.row("cuda/cub", "cuda", 1, "uniform", n, multi_gpu_gbps(n, 1, timing, 0),
                  rel_error("cuda/cub", "uniform", n, 1), timing=timing, batch=batch)
            for gpus in (1, 2, 4):
                floor_us = 0 if gpus == 1 else 12.0 + 4.0 * gpus  # the all-reduce's latency
                w.row("nccl/sum", "cuda", 1, "uniform", n, multi_gpu_gbps(n, gpus, timing, floor_us + 4.0),
                      1.1e-16, timing=timing, batch=batch, gpus=gpus)
                w.row("nccl/exact", "cuda", 1, "uniform", n,
                      multi_gpu_gbps(n, gpus, timing, floor_us + 4.0) * 0.3, 0.0, timing=timing,
                      batch=batch, gpus=gpus)
        for ranks in (1, 2, 4):  # one GPU per rank; barrier, copy back and MPI_Allreduce per call
            w.row("mpi/cuda", "cuda", 1, "uniform", n,
                  multi_gpu_gbps(n, ranks, "isolated", 30.0 + 10.0 * ranks), 1.1e-16, gpus=1, ranks=ranks)
        for ranks in (1, 2):
            w.row("mpi/pool-simd", "cpu", 8, "uniform", n, min(8 * 12.0 * ranks, 90.0 * ranks) * 0.9,
                  1.1e-16, ranks=ranks)
    return w


# The H100 machine's cost model per backend, batched: (t0 in ns, r_inf in GB/s, board watts); an
# isolated call pays 4 us more. The launch floor reads nothing: its r_inf is infinite.
H100 = "h100-7a8b9c0d"
MACHINES[H100] = dict(
    host="h100", cpu="Intel(R) Xeon(R) Platinum 8468", gpu="NVIDIA H100 80GB HBM3", peak=3352.3, threads=32,
    l2=2**21, l3=105 * 2**20, cache_bw=40.0, l3_total=900.0, dram_per_thread=12.0, dram_total=180.0,
    core=1.0, compiler="g++ 12.2.0", start="2026-12-05T08:00:00")
H100_MODEL = {"cuda/baseline/launch": (2000.0, math.inf, 120.0), "cuda/baseline/read": (2500.0, 3000.0, 400.0),
              "cuda/single-pass": (2200.0, 2950.0, 390.0), "cuda/cub": (6500.0, 2980.0, 380.0),
              "cuda/shuffle": (4000.0, 2900.0, 385.0), "cuda/atomic/grid": (3000.0, 2700.0, 395.0),
              "cuda/single-pass-kahan": (2400.0, 2900.0, 400.0), "cuda/exact": (9000.0, 1500.0, 410.0)}
# The same GPU through OpenCL and Vulkan (no energy counter there): (t0 in ns, r_inf in GB/s), each
# API with its read ceiling and launch floor. The Vulkan read pays a fill a call more than the
# single-pass, so only the roofline, not the read of as many bytes, bounds the single-pass.
H100_PORTABLE = {"opencl/single-pass": (8000.0, 2900.0), "opencl/baseline/read": (7500.0, 3000.0),
                 "opencl/baseline/launch": (6000.0, math.inf),
                 "vulkan/single-pass": (4500.0, 2850.0), "vulkan/baseline/read": (8000.0, 3000.0),
                 "vulkan/baseline/launch": (3500.0, math.inf)}
H100_SIZES = [2**k for k in range(10, 31, 2)]
H100_VERSION = "v0.2-3-gabc1234"


def make_h100():
    w = Writer([H100])
    w.use(H100)
    for n in H100_SIZES:
        for backend, (t0, r_inf, watts) in H100_MODEL.items():
            for timing, batch in [("isolated", 1), ("batched", batch_size(n))]:
                t = t0 + (4000.0 if timing == "isolated" else 0.0) + input_bytes(n) / r_inf
                if backend == "cuda/shuffle" and n == 2**12 and timing == "batched":
                    t = 1200.0  # under the launch floor: above the roofline
                err = 0.0 if backend == "cuda/exact" else 5e-9 * math.log2(n)
                w.row(backend, "cuda", 1, "uniform", n, input_bytes(n) / t, err, timing=timing, batch=batch,
                      watts=watts if timing == "batched" else None, version=H100_VERSION)
        for backend, (t0, r_inf) in H100_PORTABLE.items():
            for timing, batch in [("isolated", 1), ("batched", batch_size(n))]:
                t = t0 + (4000.0 if timing == "isolated" else 0.0) + input_bytes(n) / r_inf
                w.row(backend, backend.split("/")[0], 1, "uniform", n, input_bytes(n) / t, 5e-9 * math.log2(n),
                      timing=timing, batch=batch, version=H100_VERSION)
    return w


def make_f64():
    """Later runs on ws-ryzen with the dtype column: float64 series beside some float32 rows."""
    w = Writer(["ws-ryzen-3f9a0c71"])
    w.use("ws-ryzen-3f9a0c71")
    w.t = datetime(2025, 6, 8, 9, 0, tzinfo=timezone.utc)
    h = w.h
    eps64 = 1.1e-16
    for n in (2**20, 2**23, 2**24):
        for inp in INPUTS:
            scale = 1.0 if inp == "uniform" else 30.0
            w.row("cpu/serial/kahan", "cpu", 1, inp, n, 2.8, 0.0 if inp == "ones" else eps64, dtype="f64")
            w.row("cpu/openmp/reduction", "cpu", h["threads"], inp, n,
                  cpu_gbps(h, "cpu/openmp/reduction", n, h["threads"], "f64"),
                  0.0 if inp == "ones" else eps64 * math.sqrt(n) * scale, dtype="f64")
        # float32 rows of the same backends, another seed: they join ws-ryzen.csv's series
        w.row("cpu/serial/pairwise", "cpu", 1, "uniform", n, cpu_gbps(h, "cpu/serial/pairwise", n, 1),
              rel_error("cpu/serial/pairwise", "uniform", n, 1), seed=7)
    for n in (2**20, 2**29, 2**30):
        for inp in INPUTS:
            w.gpu_rows("cuda/cub", inp, n, 0.0 if inp == "ones" else eps64 * math.log2(n), dtype="f64")
    return w


if __name__ == "__main__":
    (HERE / "data").mkdir(exist_ok=True)
    make("ws-ryzen-3f9a0c71", sweep=True, h2d=True).write(HERE / "data" / "ws-ryzen.csv")
    make("lab-xeon-b7d2e418", sweep=False, h2d=False).write(HERE / "data" / "lab-xeon.csv")
    make_vms().write(HERE / "data" / "vm.csv")
    make_latency().write(HERE / "data" / "latency.csv", later=["pages"])
    make_f64().write(HERE / "data" / "ws-ryzen-f64.csv", later=["pages", "configuration", "dtype"])
    make_multi_gpu().write(HERE / "data" / "h200x4.csv")
    make_h100().write(HERE / "data" / "h100.csv",
                      later=["pages", "configuration", "dtype", "os", "energy_j", "gb_per_j", "version"])
