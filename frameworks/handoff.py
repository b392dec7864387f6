"""What the harness hands the framework runner: the inputs, their exact sums, and what every row shares.

`accumulate_bench --write-input=DIR` (bench/input_export.hpp) writes each input of a sweep as an .npy
file and DIR/inputs.json. Nothing here generates an input or computes an exact sum: the values are
the harness's, bit for bit, and the exact sum S is the harness's superaccumulator, handed over as
its digits, so that relative_error() forms |result - S| exactly and rounds it once, as
exact/exact_sum.cpp's relative_error() does.
"""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

MANIFEST = "inputs.json"  # bench/input_export.hpp: kInputManifest

# The harness's element types as NumPy holds the .npy files it writes (bench/inputs.hpp:
# npy_descriptor(); bf16 has none, and --write-input refuses it).
NUMPY_TYPES = {"f32": np.dtype("<f4"), "f64": np.dtype("<f8"), "f16": np.dtype("<f2")}


class HandoffError(Exception):
    """The harness could not hand the inputs over, or handed over something this runner cannot read."""


@dataclass(frozen=True)
class Column:
    """One CSV column as the harness's column table declares it (report/reporters.hpp: ColumnSchema)."""
    name: str
    kind: str  # "text", "whole" or "real"
    pattern: str | None  # real columns: the printf pattern of the CSV text
    may_be_empty: bool


@dataclass(frozen=True)
class Input:
    path: Path
    n: int
    dtype: str
    label: str  # the input column: "uniform", "ill:1e16", "file:/absolute/path" (bench/inputs.hpp)
    seed: int | None
    exact: float  # S rounded once to double (the exact column)
    exact_sum: Fraction  # S itself
    saw_nan: bool
    saw_pos_inf: bool
    saw_neg_inf: bool

    def load(self) -> np.ndarray:
        """The values, as the harness wrote them."""
        values = np.load(self.path, allow_pickle=False)
        if values.dtype != NUMPY_TYPES.get(self.dtype) or values.shape != (self.n,):
            raise HandoffError(f"{self.path}: holds {values.dtype} {values.shape}, but the manifest says "
                               f"{self.n} values of {self.dtype}")
        return values


@dataclass(frozen=True)
class Rules:
    """The measurement rules (api/measurement_rules.hpp), as the harness states them."""
    repetitions: int
    min_time_s: float
    min_warmup_s: float
    l2_rotation_factor: int
    copy_alignment: int
    batch_bytes: int
    min_batch: int
    max_batch: int
    interleave: bool
    fixed_iterations: int | None = None  # --benchmark_min_time=Nx: N calls per repetition


@dataclass(frozen=True)
class Handoff:
    columns: list[Column]
    context: dict  # host, cpu, machine, os
    devices: dict  # device API -> {"name", "peak_gbps"}: what the harness's rows on it say
    rules: Rules
    inputs: list[Input]
    skipped_inputs: bool = False  # the harness left out an input that did not fit in memory (it named it)


def read_manifest(directory: Path) -> Handoff:
    path = directory / MANIFEST
    try:
        manifest = json.loads(path.read_text())
        layout = manifest["exact_layout"]
        scale = Fraction(2) ** layout["lowest_bit"]
        digit_bits = layout["digit_bits"]
        inputs = []
        for entry in manifest["inputs"]:
            fixed = sum(digit << (digit_bits * i) for i, digit in enumerate(entry["exact_digits"]))
            inputs.append(Input(path=directory / entry["file"], n=entry["n"], dtype=entry["dtype"], label=entry["input"],
                                seed=entry["seed"], exact=float(entry["exact"]), exact_sum=fixed * scale,
                                saw_nan=entry["saw_nan"], saw_pos_inf=entry["saw_pos_inf"],
                                saw_neg_inf=entry["saw_neg_inf"]))
        columns = [Column(c["name"], c["kind"], c["pattern"], c["may_be_empty"]) for c in manifest["columns"]]
        return Handoff(columns=columns, context=manifest["context"], devices=manifest["devices"],
                       rules=Rules(**manifest["rules"]), inputs=inputs)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise HandoffError(f"{path}: not a manifest this runner reads ({type(e).__name__}: {e}); "
                           "was it written by this version's accumulate_bench --write-input?") from None


def write_inputs(bench: Path, directory: Path, harness_args: list[str]) -> Handoff:
    """Runs `bench --write-input=directory` with the input options; its messages pass through."""
    command = [str(bench), f"--write-input={directory}", *harness_args]
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    except OSError as e:
        raise HandoffError(f"cannot run {bench}: {e.strerror}; build it first (scripts/run.sh does)") from None
    sys.stdout.write(done.stdout)
    if done.returncode == 2:
        raise HandoffError(f"{' '.join(command)} refused its arguments (see above)")
    if done.returncode not in (0, 1):  # 1: an input that did not fit in memory was skipped, named
        raise HandoffError(f"{' '.join(command)} failed with exit status {done.returncode}")
    handoff = read_manifest(directory)
    return dataclasses.replace(handoff, skipped_inputs=done.returncode == 1)


def harness_selects(bench: Path, pattern: str) -> bool:
    """Whether accumulate_bench's --backend takes `pattern` (one of its names, groups or globs):
    `bench --list --backend=PATTERN` exits 0, and 2 when the pattern names none of its backends."""
    command = [str(bench), "--list", f"--backend={pattern}"]
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as e:
        raise HandoffError(f"cannot run {bench}: {e.strerror}; build it first (scripts/run.sh does)") from None
    if done.returncode not in (0, 2):
        raise HandoffError(f"{' '.join(command)} failed with exit status {done.returncode}:\n{done.stderr}")
    return done.returncode == 0


def relative_error(result: float, given: Input) -> float:
    """|result - S| / |S| as exact/exact_sum.cpp's relative_error() takes it: result - S exact, rounded once;
    the absolute error when S = 0; nan when the input held NaN or Inf; inf when the input is finite and
    the result is not (also where S itself rounds to that infinity)."""
    if given.saw_nan or given.saw_pos_inf or given.saw_neg_inf:
        return math.nan
    s = given.exact
    if not math.isfinite(result):
        return math.inf
    try:
        error = float(abs(Fraction(result) - given.exact_sum))  # Fraction -> float rounds once, to nearest-even
    except OverflowError:
        error = math.inf
    return error if s == 0 else error / min(abs(s), sys.float_info.max)
