"""Tests of plot/dtype_targets.py: a run written from one fixture row, with known GB/s per type."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLOT_DIR = HERE.parent
sys.path.insert(0, str(PLOT_DIR))

import shootout_csv as sc  # noqa: E402

RYZEN = HERE / "data" / "ws-ryzen.csv"
KERNEL, EXACT = "gpu/kernel", "gpu/exact"
BYTES = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2}


def write_run(path: Path, rows: list[tuple[str, str, int, str, float]]) -> Path:
    """Rows of (backend, dtype, n, timing, gbps) on one machine and device."""
    with open(RYZEN, newline="") as f:
        base = next(r for r in csv.DictReader(f) if r["device"] == "cuda")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=sc.COLUMNS + ["dtype"], lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        for i, (backend, dtype, n, timing, gbps) in enumerate(rows):
            w.writerow({**base, "backend": backend, "dtype": dtype, "n": n, "bytes": BYTES[dtype] * n, "timing": timing,
                        "gbps": gbps, "time_ns_median": BYTES[dtype] * n / gbps, "role": "reduction",
                        "timestamp": f"2026-11-22T10:00:{i % 60:02d}Z"})
    return path


def targets(path: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PLOT_DIR / "dtype_targets.py"), str(path), "--kernel", KERNEL, "--exact", EXACT,
                           *map(str, args)], capture_output=True, text=True, timeout=120)


def line_of(out: str, n: str, dtype: str) -> str:
    return next(line for line in out.splitlines() if f" {n} " in line and f" {dtype} " in line)


def test_ratios_against_float32_and_the_exact_share(tmp_path):
    n = 2**28
    run = write_run(tmp_path / "run.csv", [
        (KERNEL, "f32", n, "batched", 4000), (KERNEL, "f64", n, "batched", 3960), (KERNEL, "bf16", n, "batched", 3800),
        (EXACT, "f32", n, "batched", 3800), (EXACT, "bf16", n, "batched", 3000),
        (KERNEL, "f16", n, "isolated", 100),  # another timing: not judged
    ])
    result = targets(run)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "0.990" in line_of(result.stdout, "2^28", "f64") and line_of(result.stdout, "2^28", "f64").endswith("ok")
    bf16 = line_of(result.stdout, "2^28", "bf16")
    assert "0.950" in bf16 and "0.789" in bf16 and bf16.endswith("MISS")  # 3800/4000 and 3000/3800
    assert line_of(result.stdout, "2^28", "f32").endswith("ok")  # exact at 0.95 of the kernel
    assert " f16 " not in result.stdout
    assert "1 of 3 points miss a target" in result.stdout


def test_all_met_and_sizes_outside_the_range(tmp_path):
    run = write_run(tmp_path / "run.csv", [
        (KERNEL, "f32", 2**30, "batched", 4500), (KERNEL, "f16", 2**30, "batched", 4450),
        (KERNEL, "f32", 2**20, "batched", 1000), (KERNEL, "f16", 2**20, "batched", 400),  # below --min-n
    ])
    result = targets(run)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2^20" not in result.stdout and "0 of 2 points miss" in result.stdout


def test_nothing_to_judge_is_an_error(tmp_path):
    run = write_run(tmp_path / "run.csv", [(KERNEL, "f16", 2**28, "batched", 4000)])
    result = targets(run)
    assert result.returncode == 2 and "nothing to judge" in result.stderr
