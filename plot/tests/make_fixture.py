"""Writes the test fixture plot/tests/data/{ws-ryzen,lab-xeon}.csv (run it again after a change).

Made-up but plausible numbers from a small speed and error model, with a few deliberate traps that
the tests rely on:
  * ws-ryzen, cpu, n=2^24: cpu/openmp/reduction (32 threads, 61.8 GB/s) is the fastest backend.
    Older duplicate rows of cpu/tbb/reduce at 70 GB/s must lose to the newer ones (58.6 GB/s), and
    openmp's 16-thread rows (63 GB/s) must lose to its 32-thread rows; cpu/baseline/read is faster
    still but is the ceiling, not a contender.
  * ws-ryzen, cuda, n=2^30: cuda/shuffle is the fastest; the cuda+h2d rows are their own device.
  * ladder steps at 2^20 and 2^30 on both hosts; peak_gbps only on CUDA rows.
  * rel_error exactly 0 (e.g. cpu/serial/kahan on `ones`) and nan (input file:nan-inf).
"""

from __future__ import annotations

import csv
import math
from datetime import datetime, timedelta, timezone
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from shootout_csv import COLUMNS  # noqa: E402
SIZES = [2**10, 2**16, 2**20, 2**24, 2**30]
INPUTS = ["ones", "uniform", "normal"]
LADDER = ["01-interleaved-global", "02-interleaved-shared", "03-branching-global",
          "04-branching-shared", "05-sequential-global", "06-sequential-shared",
          "07-first-add-during-load", "08-warp-unrolled", "09-complete-unroll", "10-grid-stride",
          "11-vector-loads", "12-shuffle-down"]
LADDER_EFF = [0.12, 0.19, 0.26, 0.35, 0.44, 0.52, 0.74, 0.85, 0.89, 0.93, 0.955, 0.965]

HOSTS = {
    "ws-ryzen": dict(cpu="AMD Ryzen 9 7950X 16-Core Processor", gpu="NVIDIA GeForce RTX 4090",
                     peak=1008.1, threads=32, l2=2**20, l3=32 * 2**20, cache_bw=45.0,
                     l3_total=600.0, dram_per_thread=20.0, dram_total=62.0,
                     gpu_l2=32 * 2**20, gpu_cache_bw=3000.0, gpu_dram=940.0, launch_ns=4000,
                     pcie=25.0, core=1.0, compiler="g++ 13.2.0", start="2025-06-01T10:00:00"),
    "lab-xeon": dict(cpu="Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", gpu="NVIDIA A100-SXM4-40GB",
                     peak=1555.2, threads=64, l2=2**20, l3=48 * 2**20, cache_bw=30.0,
                     l3_total=900.0, dram_per_thread=12.0, dram_total=150.0,
                     gpu_l2=32 * 2**20, gpu_cache_bw=4000.0, gpu_dram=1400.0, launch_ns=5000,
                     pcie=24.0, core=0.62, compiler="g++ 12.2.0", start="2025-06-02T08:30:00"),
}

SERIAL_RATE = {"cpu/serial/accumulate-f32": 5.5, "cpu/serial/accumulate-f64": 5.4,
               "cpu/serial/kahan": 1.4, "cpu/serial/pairwise": 9.0, "cpu/avx2/f32": 45.0}
PARALLEL = {"cpu/openmp/reduction": (1.0, 3000), "cpu/tbb/reduce": (0.95, 6000),
            "cpu/baseline/read": (1.02, 2500)}
GPU = {"cuda/shuffle": (0.975, 1.0), "cuda/cub": (0.97, 1.5), "cuda/thrust": (0.95, 3.0),
       "cuda/baseline/read": (1.0, 1.0), "cuda/baseline/copy": (0.92, 1.0)}


def cpu_gbps(h, backend, n, threads):
    nbytes = 4 * n
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


def gpu_gbps(h, backend, n, device):
    nbytes = 4 * n
    if backend.startswith("cuda/ladder/"):
        eff, launches = LADDER_EFF[int(backend.split("/")[2][:2]) - 1], 2.0
    else:
        eff, launches = GPU[backend]
    bw = (h["gpu_cache_bw"] if nbytes <= h["gpu_l2"] else h["gpu_dram"]) * eff
    t = nbytes / bw + launches * h["launch_ns"]
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
    def __init__(self, host):
        self.h = HOSTS[host]
        self.host = host
        self.t = datetime.fromisoformat(self.h["start"]).replace(tzinfo=timezone.utc)
        self.rows = []

    def row(self, backend, device, threads, inp, n, gbps, err, seed=0, when=None):
        h = self.h
        self.t += timedelta(seconds=3)
        stamp = (when or self.t).strftime("%Y-%m-%dT%H:%M:%SZ")
        gbps = round(gbps, 3)
        t_med = 4 * n / gbps
        if inp.startswith("file:"):
            exact = result = math.nan
        else:
            exact = exact_sum(inp, n)
            result = exact * (1 + err) if not backend.endswith("/baseline/copy") else exact
        cuda = device != "cpu"
        self.rows.append({
            "timestamp": stamp, "host": self.host, "cpu": h["cpu"], "gpu": h["gpu"] if cuda else "",
            "compiler": h["compiler"] + (" / nvcc 12.4" if cuda else ""), "build": "Release",
            "backend": backend, "device": device, "threads": threads, "input": inp, "seed": seed,
            "n": n, "bytes": 4 * n, "gbps": f"{gbps:.3f}", "time_ns_median": f"{t_med:.0f}",
            "time_ns_min": f"{t_med * 0.97:.0f}", "iterations": max(5, min(1000, 2**30 // n)),
            "result": f"{result:.17g}", "exact": f"{exact:.17g}",
            "rel_error": "nan" if math.isnan(err) else f"{err:.17g}",
            "peak_gbps": f"{h['peak']:.1f}" if cuda else "",
        })

    def write(self, path):
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
            w.writeheader()
            w.writerows(self.rows)


def make(host, sweep, h2d):
    w = Writer(host)
    h = w.h
    tmax = h["threads"]
    if host == "ws-ryzen":  # an older run whose tbb numbers must be superseded
        old = datetime(2025, 5, 20, 9, 0, tzinfo=timezone.utc)
        for inp in INPUTS:
            w.row("cpu/tbb/reduce", "cpu", tmax, inp, 2**24, 70.0,
                  rel_error("cpu/tbb/reduce", inp, 2**24, tmax), when=old)
    for n in SIZES:
        for backend in SERIAL_RATE:
            for inp in INPUTS:
                w.row(backend, "cpu", 1, inp, n, cpu_gbps(h, backend, n, 1),
                      rel_error(backend, inp, n, 1))
        for backend in PARALLEL:
            threads = [1, 2, 4, 8, 16, 32] if sweep and n in (2**24, 2**30) else [tmax]
            for t in threads:
                for inp in (INPUTS if t == tmax else ["uniform"]):
                    gbps = cpu_gbps(h, backend, n, t)
                    if backend == "cpu/openmp/reduction" and n == 2**24 and t == 16:
                        gbps = 63.0  # the fastest thread count is not the one the plots use
                    err = 0.0 if backend.endswith("baseline/read") else rel_error(backend, inp, n, t)
                    w.row(backend, "cpu", t, inp, n, gbps, err)
        if host == "ws-ryzen" and n == 2**20:  # more seeds: the plots use the median
            w.row("cpu/serial/kahan", "cpu", 1, "uniform", n, 1.50, 3.1e-8, seed=1)
            w.row("cpu/serial/kahan", "cpu", 1, "uniform", n, 1.20, 2.7e-8, seed=2)
    for n in SIZES:
        for backend in GPU:
            for inp in (INPUTS if "baseline" not in backend else ["uniform"]):
                err = 0.0 if "baseline" in backend else rel_error(backend, inp, n, 1)
                w.row(backend, "cuda", 1, inp, n, gpu_gbps(h, backend, n, "cuda"), err)
            if h2d and backend in ("cuda/shuffle", "cuda/cub"):
                w.row(backend, "cuda+h2d", 1, "uniform", n, gpu_gbps(h, backend, n, "cuda+h2d"),
                      rel_error(backend, "uniform", n, 1))
    for n in (2**20, 2**30):
        for step in LADDER:
            b = f"cuda/ladder/{step}"
            w.row(b, "cuda", 1, "uniform", n, gpu_gbps(h, b, n, "cuda"),
                  rel_error(b, "uniform", n, 1))
    if host == "ws-ryzen":  # an input file holding NaN and Inf: rel_error is nan
        for backend in ("cpu/serial/accumulate-f32", "cpu/serial/kahan"):
            w.row(backend, "cpu", 1, "file:nan-inf", 1000, SERIAL_RATE[backend] * 0.9, math.nan)
        w.row("cuda/cub", "cuda", 1, "file:nan-inf", 1000, 0.6, math.nan)
    return w


if __name__ == "__main__":
    (HERE / "data").mkdir(exist_ok=True)
    make("ws-ryzen", sweep=True, h2d=True).write(HERE / "data" / "ws-ryzen.csv")
    make("lab-xeon", sweep=False, h2d=False).write(HERE / "data" / "lab-xeon.csv")
