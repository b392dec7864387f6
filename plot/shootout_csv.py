"""Reading, validating and reducing the benchmark's CSV files; shared by plot.py and compare.py.

Rules (also in plot/README.md):
  * Machines: rows are keyed by the `machine` column (host name + a fingerprint of the CPU model,
    machine-id and GPUs), never by the host name: two cloud VMs both called "vm" stay apart, and
    one machine's rows in several files are one machine. A label is the host name, or the machine
    value where two machines share a host name.
  * Series: a backend's rows of one element type (`dtype`; float32 in files without the column)
    are one series, named `backend (dtype)` unless float32 (series_name()); two element types are
    never one line, one median or one contender.
  * Repeats: rows for the same (machine, series, device, timing, threads, gpus, ranks, input, seed,
    n) from several runs are reduced to the newest one (by timestamp; on equal timestamps the later
    row wins).
  * Timing: CUDA rows come in two timings, `isolated` (one call per timed region) and `batched`
    (K calls back to back per timed region, time / K). One timing is used per (machine, series,
    device): the chosen one (default batched) where that series has it, else the one it has (CPU
    rows are always isolated).
  * Speed: one GB/s per (machine, series, device, timing, threads, n) is the median over the
    inputs and seeds measured there (`file:` inputs only when asked for, or when there is nothing
    else); of the thread counts, the largest one is used (or the largest not above --threads), and
    likewise of the GPU (`gpus`) and MPI rank (`ranks`) counts. The scale-out tables keep every
    count: GB/s against GPUs and against ranks, with the ideal (the 1-GPU or 1-rank GB/s times the
    count) and the efficiency (GB/s / ideal).
  * Bytes: every byte count comes from the `bytes` column (n times the element's size), never from n.
  * Ceiling: the speed of the backend whose `role` is `ceiling`, at the same machine, device,
    timing and bytes read (at its largest thread count); "% of ceiling" is gbps / ceiling.
    Properties come from the trait columns (accumulator, order, reproducibility, role), never from a
    backend's name.
"""

from __future__ import annotations

import csv
import fnmatch
import glob
import io
import json
import math
import sys
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

REPO_ROOT = Path(__file__).resolve().parent.parent
# The columns, in order, with each one's kind and whether a field may be empty, and the headers
# older harnesses wrote: the harness's column table (report/reporters.cpp), as report/columns.json
# holds it (`accumulate_bench --columns`; the test cli.columns_in_step keeps the two the same).
SCHEMA = json.loads((REPO_ROOT / "report" / "columns.json").read_text())
KINDS = {c["name"]: c["kind"] for c in SCHEMA["columns"]}
_names = list(KINDS)
_ends = [_names.index(layout["last"]) + 1 for layout in SCHEMA["layouts"]]
# Each older header's columns beyond the one before it, oldest first ("harness v1": the first
# harness's). A file must hold all of them (COLUMNS); one that lacks a layout's columns was written
# before it and is named so. The columns after them (LATER) may be missing from a file: it was
# measured before them (on the GPU machines, before the pages column), and they are read with the
# value of ABSENT, or empty. Columns the table does not know (a later version's) are dropped.
LAYOUTS = {layout["name"]: _names[start:end]
           for layout, start, end in zip(SCHEMA["layouts"], [0] + _ends, _ends)}
COLUMNS = _names[:_ends[-1]]
LATER = _names[_ends[-1]:]
DEFAULT_DTYPE = "f32"
ABSENT = {"dtype": DEFAULT_DTYPE}  # every file before the dtype column summed float32
TEXT_COLUMNS = [c for c, kind in KINDS.items() if kind == "text"]
WHOLE_COLUMNS = [c for c, kind in KINDS.items() if kind == "whole"]  # decimal digits, >= 0
REAL_COLUMNS = [c for c, kind in KINDS.items() if kind == "real"]  # numbers as %g writes them, nan and inf too
# Where the table lets a number be empty: `seed` for file inputs (nothing was generated; no other
# row may leave it empty), `peak_gbps` where the backend does not know the device's bandwidth, the
# energy columns where the device has no energy counter (every CPU row, isolated rows).
ANYWHERE = (lambda df: pd.Series(True, index=df.index), "")
EMPTY_ALLOWED = {c["name"]: ANYWHERE for c in SCHEMA["columns"] if c["may_be_empty"]}
EMPTY_ALLOWED["seed"] = (lambda df: df["input"].str.startswith("file:"), "only file: inputs have no seed")
# What the values mean, beyond the table: counts of at least 1, and numbers that are finite and
# > 0 (`nan` and `inf` are values of the measured sums and their error: results/README.md).
AT_LEAST_ONE = ["threads", "n", "bytes", "iterations", "batch", "ranks"]
POSITIVE_NUMBERS = ["gbps", "time_ns_median", "time_ns_min", "peak_gbps", "energy_j", "gb_per_j"]
NONEMPTY = ["backend", "device", "machine", "accumulator", "order", "reproducibility"]
# The order panels and legends list devices in; other device APIs follow, by name.
DEVICES = ["cpu", "cuda", "cuda+h2d"]
# The values of the columns the rules depend on; a row with another value is rejected.
TIMINGS = ["isolated", "batched"]
ROLES = ["reduction", "ceiling", "reference_copy", "launch_floor"]
# The noise and context columns' words (empty in files written before them, and where unknown).
NOISY = ["yes", "no", ""]
TURBO = ["on", "off", ""]
# Bytes per element of each element type: `bytes` must be n times this.
DTYPE_BYTES = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2}
DEFAULT_TIMING = "batched"
# The vocabulary of the trait columns, in the order legends and tables list it (unknown values
# follow).
ACCUMULATORS = ["f16", "bf16", "tf32", "tf32_split", "f32", "compensated_f32", "f64", "compensated_f64", "exact", "none"]
ORDERS = ["sequential", "lanes", "pairwise", "thread_chunks", "tree", "unordered"]

DEFAULT_GLOB = "results/*.csv"


class InputError(Exception):
    """Bad input: reported as one line on stderr with exit status 2."""


def run_cli(main: Callable[[], int | None]) -> None:
    """Runs main(); InputError becomes 'error: ...' on stderr and exit status 2, no traceback."""
    try:
        status = main()
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    except BrokenPipeError:  # e.g. `compare.py a b | head`
        sys.exit(0)
    sys.exit(status or 0)


# ---------------------------------------------------------------------------------------------
# Reading


def expand_paths(paths: Sequence[str]) -> list[Path]:
    """The CSV files to read: the given paths, or results/*.csv under the repository root."""
    if not paths:
        found = sorted(glob.glob(str(REPO_ROOT / DEFAULT_GLOB)))
        if not found:
            raise InputError(f"no CSV files match {REPO_ROOT / DEFAULT_GLOB}: run the benchmark "
                             "first, or name CSV files on the command line")
        return [Path(p) for p in found]
    out = []
    for p in paths:
        path = Path(p)
        if not path.exists():
            raise InputError(f"{p}: no such file")
        if path.is_dir():
            raise InputError(f"{p}: is a directory, not a CSV file")
        out.append(path)
    return out


def first_line(mask: pd.Series) -> int:
    """The 0-based row index of the first True in mask."""
    return int(mask.to_numpy().nonzero()[0][0])


def reject(name: str, mask: pd.Series, text: pd.Series, what: str) -> None:
    """Raises InputError for the first row in mask: 'FILE line L: column C is not W: 'TEXT''."""
    if mask.any():
        i = first_line(mask)
        raise InputError(f"{name} line {i + 2}: column {text.name} is not {what}: {text.iloc[i]!r}")


WHOLE = r"[0-9]+"  # ASCII digits: Python's \d takes every script's
NUMBER = r"[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|nan|inf)"  # as %g writes it, nan and inf too
# The largest whole number a column holds: a seed is any 64-bit value, the counts fit int64.
WHOLE_MOST = {"seed": 2**64 - 1}


def parse_numbers(df: pd.DataFrame, name: str, absent: Sequence[str] = ()) -> None:
    """Converts the numeric columns in place; the first bad value (not a number, not whole where a
    count is needed, below the column's least, nan or inf outside the measured sums, an empty field
    the schema does not allow there) raises InputError naming the file, its line, the column and
    the text. The `absent` columns, which the file lacks, are empty throughout."""
    for col in WHOLE_COLUMNS + REAL_COLUMNS:
        text = df[col].str.strip()
        given = text != ""
        allowed, why = EMPTY_ALLOWED.get(col, (lambda d: pd.Series(False, index=d.index), ""))
        if col not in absent and (~given & ~allowed(df)).any():
            i = first_line(~given & ~allowed(df))
            raise InputError(f"{name} line {i + 2}: column {col} is empty" + (f" ({why})" if why else ""))
        if col in WHOLE_COLUMNS:
            reject(name, given & ~text.str.fullmatch(WHOLE), text, "a whole number")
            values = text.where(given, "0").map(int)  # exact: a float64 is not past 2^53
            least = 1 if col in AT_LEAST_ONE else 0
            reject(name, given & (values < least), text, f"a whole number >= {least}")
            most = WHOLE_MOST.get(col, 2**63 - 1)
            reject(name, values > most, text, f"a whole number <= {most}")
            exact_type = "uint64" if most > 2**63 else "int64"
            # An empty seed (a file input) reads 0; a column an older file lacks reads <NA>.
            df[col] = (values.astype(exact_type) if col == "seed" or given.all()
                       else values.astype({"int64": "Int64", "uint64": "UInt64"}[exact_type]).mask(~given))
            continue
        reject(name, given & ~text.str.lower().str.fullmatch(NUMBER), text, "a number")
        df[col] = text.where(given).astype(float)  # Python's float(), correctly rounded: %.17g reads back exactly
        if col in POSITIVE_NUMBERS:
            reject(name, given & ~((df[col] > 0) & (df[col] < math.inf)), text, "a finite number > 0")


def refuse_truncated_row(path: Path) -> None:
    """Raises InputError naming the last row of a file that ends inside it: a run that stopped while
    appending it (the harness ends every row with a newline). Such a row lacks its newline and ends
    inside a quoted field or has fewer fields than the header; read as it is, its missing fields
    would be blamed on an older accumulate_bench."""
    data = path.read_bytes()
    if data.endswith(b"\n"):
        return
    text = data.decode("utf-8", errors="replace")
    records = list(csv.reader(io.StringIO(text, newline="")))
    if len(records) < 2:
        return
    inside_quotes = text.count('"') % 2 == 1  # quoting doubles every quote inside a field
    fields, expected = len(records[-1]), len(records[0])
    if inside_quotes or fields < expected:
        where = "inside a quoted field" if inside_quotes else f"after {fields} of its {expected} fields"
        raise InputError(f"{path} line {len(records)}: truncated: the file ends {where}, without a final "
                         "newline (a run stopped while writing it); remove that line")


def refuse_contradictory_errors(df: pd.DataFrame, name: str) -> None:
    """Raises InputError for the first row whose rel_error contradicts itself: a negative one
    (|result - exact| / |exact| is not), or 0 beside an infinite exact sum (an infinite result is
    never exact: the harness writes inf there)."""
    for bad, why in [(df["rel_error"] < 0, "a relative error is never negative"),
                     (np.isinf(df["exact"]) & (df["rel_error"] == 0),
                      "0 beside exact = {exact:g}: an infinite sum is never exact (the harness writes inf)")]:
        if bad.any():
            i = first_line(bad)
            raise InputError(f"{name} line {i + 2}: column rel_error is {df['rel_error'].iloc[i]:g}: "
                             + why.format(exact=df["exact"].iloc[i]))


def read_csv(path: Path) -> pd.DataFrame:
    """One validated CSV file: the known columns (extra trailing ones are dropped), numeric ones
    converted, plus `source` (the file name), `line` and `series` (series_name())."""
    name = str(path)
    try:
        if path.stat().st_size == 0:
            raise InputError(f"{name}: empty file (expected a header and data rows)")
        refuse_truncated_row(path)
        df = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    except InputError:
        raise
    except pd.errors.EmptyDataError:
        raise InputError(f"{name}: empty file (expected a header and data rows)") from None
    except pd.errors.ParserError as e:
        raise InputError(f"{name}: not a valid CSV file: {str(e).strip()}") from None
    except UnicodeDecodeError:
        raise InputError(f"{name}: not a text CSV file (undecodable bytes)") from None
    except OSError as e:
        raise InputError(f"{name}: cannot read: {e.strerror}") from None

    df.columns = [c.strip() for c in df.columns]
    missing = [c for c in COLUMNS if c not in df.columns]
    (_, first), *appended = LAYOUTS.items()  # the first harness's columns; each later layout's
    for version, added in appended:
        if missing and not set(missing) & set(first) and missing[0] in added:
            raise InputError(f"{name}: missing column(s) {', '.join(missing)}: written by an older "
                             f"accumulate_bench (before {version}); re-run it")
    if missing:
        raise InputError(f"{name}: missing column(s): {', '.join(missing)} "
                         f"(expected header: {','.join(COLUMNS)})")
    if df.empty:
        raise InputError(f"{name}: empty file: a header but no data rows")
    absent = [c for c in LATER if c not in df.columns]
    for col in absent:
        df[col] = ABSENT.get(col, "")
    df = df[COLUMNS + LATER].copy()  # columns of a later version than the table's are not used

    for col in TEXT_COLUMNS:
        df[col] = df[col].str.strip()
    # A row of an older harness appended to a newer file has fields only up to its last column.
    for version, added in appended:
        old = (df[added] == "").all(axis=1)
        if old.any():
            i = first_line(old)
            raise InputError(f"{name} line {i + 2}: no values in the columns {', '.join(added)}: "
                             f"a row written by an older accumulate_bench (before {version}); re-run it")
    parse_numbers(df, name, absent)
    refuse_contradictory_errors(df, name)
    for col in NONEMPTY:
        empty = df[col] == ""
        if empty.any():
            i = first_line(empty)
            raise InputError(f"{name} line {i + 2}: column {col} is empty")
    for col, allowed in [("timing", TIMINGS), ("role", ROLES), ("dtype", list(DTYPE_BYTES)),
                         ("noisy", NOISY), ("turbo", TURBO)]:
        bad = ~df[col].isin(allowed)
        if bad.any():
            i = first_line(bad)
            raise InputError(f"{name} line {i + 2}: column {col} is {df[col].iloc[i]!r} "
                             f"(expected one of: {', '.join(allowed)})")
    expected = df["n"] * df["dtype"].map(DTYPE_BYTES)
    if (df["bytes"] != expected).any():
        i = first_line(df["bytes"] != expected)
        raise InputError(f"{name} line {i + 2}: column bytes is {int(df['bytes'].iloc[i])}, not n × "
                         f"{DTYPE_BYTES[df['dtype'].iloc[i]]} = {int(expected.iloc[i])} "
                         f"(bytes of {df['dtype'].iloc[i]})")

    stamps = pd.to_datetime(df["timestamp"].str.strip(), utc=True, errors="coerce",
                            format="ISO8601")
    if stamps.isna().any():
        i = first_line(stamps.isna())
        raise InputError(f"{name} line {i + 2}: column timestamp is not an ISO-8601 time: "
                         f"{df['timestamp'].iloc[i]!r}")
    df["timestamp"] = stamps
    df["host"] = df["host"].replace("", "unknown-host")
    df["series"] = series_name(df["backend"], df["dtype"])
    df["source"] = path.name
    df["line"] = range(2, len(df) + 2)
    return df


def series_name(backend: pd.Series, dtype: pd.Series) -> pd.Series:
    """What a row is drawn and ranked as: the backend, with its element type where that is not
    float32 ('cpu/pool/simd (f64)'); rows of two element types are never one series."""
    return backend.where(dtype == DEFAULT_DTYPE, backend + " (" + dtype + ")")


def machine_labels(df: pd.DataFrame) -> pd.Series:
    """Per row, its machine's label: the host name, or the machine value where two machines
    share that host name."""
    host = df.groupby("machine")["host"].last()
    shared = host.map(host.value_counts()) > 1
    label = host.where(~shared, host.index.to_series())
    return df["machine"].map(label)


def read_csvs(paths: Sequence[str]) -> pd.DataFrame:
    files = expand_paths(paths)
    frames = [read_csv(p) for p in files]
    df = pd.concat(frames, ignore_index=True)
    df["label"] = machine_labels(df)
    df["seq"] = range(len(df))  # file order, then line order: breaks timestamp ties
    return df


# ---------------------------------------------------------------------------------------------
# Filtering


def describe_filters(**filters: Iterable[str] | None) -> str:
    parts = []
    for key, values in filters.items():
        for v in values or []:
            parts.append(f"--{key.replace('_', '-')} {v}")
    return " ".join(parts)


def apply_filters(df: pd.DataFrame, backend: Sequence[str] | None = None,
                  input: Sequence[str] | None = None, host: Sequence[str] | None = None,
                  machine: Sequence[str] | None = None, device: Sequence[str] | None = None,
                  keep_ceilings: bool = False) -> pd.DataFrame:
    """Rows matching every given filter (each a list of alternatives; backend ones are globs).

    keep_ceilings: keep role=ceiling rows whatever --backend says (they are the reference lines).
    Raises InputError naming the filters when nothing matches."""
    filters = dict(backend=backend, input=input, host=host, machine=machine, device=device)
    mask = pd.Series(True, index=df.index)
    if host:
        mask &= df["host"].isin(host)
    if machine:
        mask &= df["machine"].isin(machine)
    if device:
        mask &= df["device"].isin(device)
    if input:
        mask &= df["input"].isin(input)
    if backend:
        hit = matches(df["backend"], backend)
        if not (mask & hit).any():
            raise no_match(df, **filters)
        if keep_ceilings:
            hit |= df["role"] == "ceiling"
        mask &= hit
    out = df[mask]
    if out.empty:
        raise no_match(df, **filters)
    return out


def matches(backends: pd.Series, globs: Sequence[str]) -> pd.Series:
    """Whether each backend name matches one of the globs (a selection, not a property)."""
    return pd.Series([any(fnmatch.fnmatchcase(b, g) for g in globs) for b in backends],
                     index=backends.index, dtype=bool)


def no_match(df: pd.DataFrame, **filters) -> InputError:
    what = describe_filters(**filters)
    hints = []
    for key in ["host", "machine", "input", "device"]:
        if filters.get(key):
            values = sorted(set(df[key]))
            hints.append(f"{key}s present: {', '.join(values[:12])}{' ...' if len(values) > 12 else ''}")
    hint = f" ({'; '.join(hints)})" if hints else ""
    return InputError(f"no rows match the filter {what}{hint}")


def select_timing(df: pd.DataFrame, timing: str = DEFAULT_TIMING) -> pd.DataFrame:
    """Per (machine, series, device): the rows of `timing` where that series has them, else the
    rows it has (CPU rows are always isolated). Works on raw rows and on speed tables."""
    chosen = df["timing"] == timing
    has = chosen.groupby([df["machine"], df["series"], df["device"]]).transform("any")
    return df[chosen | ~has]


def timing_fallbacks(df: pd.DataFrame, timing: str) -> list[str]:
    """The non-CPU series without rows of `timing` (select_timing keeps their other timing)."""
    gpu = df[df["device"] != "cpu"]
    has = gpu.groupby(["label", "series", "device"])["timing"].apply(lambda s: (s == timing).any())
    return [f"{m} {series_label(b, d)}" for (m, b, d), ok in has.items() if not ok]


# ---------------------------------------------------------------------------------------------
# Reducing to one number per point

# A series is one backend summing one element type: `series` names it, `backend` and `dtype` say
# the same, and ride along in the keys.
IDENTITY = ["series", "backend", "dtype"]
POINT_KEY = ["machine", *IDENTITY, "device", "timing", "threads", "gpus", "ranks", "input", "seed", "n"]
# The counts a point is measured at; one point per series and size uses the largest of each.
COUNTS = ["gpus", "ranks", "threads"]
SERIES = ["machine", *IDENTITY, "device", "timing"]


def newest(df: pd.DataFrame) -> pd.DataFrame:
    """One row per measurement key: the newest by timestamp (later row on equal timestamps)."""
    ordered = df.sort_values(["timestamp", "seq"], kind="stable")
    return ordered.drop_duplicates(POINT_KEY, keep="last")


def pick_threads(df: pd.DataFrame, group: list[str], threads: int | None,
                 counts: Sequence[str] = COUNTS) -> pd.DataFrame:
    """Per group, the rows of the largest of each of `counts` in turn (by default the GPU count,
    then the rank count, then the thread count, not above `threads` when given); those counts in
    `group` are ignored."""
    if threads is not None:
        df = df[df["threads"] <= threads]
    group = [k for k in group if k not in counts]
    for count in counts:
        if df.empty:
            return df
        most = df.groupby(group, sort=False)[count].transform("max")
        df = df[df[count] == most]
    return df


def speed_rows(df: pd.DataFrame, explicit_input: bool = False) -> pd.DataFrame:
    """The rows that speed comes from: generated inputs (ones, uniform, normal). `file:` inputs
    have sizes of their own and would make lone points; they count when asked for by --input or
    when nothing else is there."""
    if explicit_input:
        return df
    generated = df[~df["input"].str.startswith("file:")]
    return generated if not generated.empty else df


def speed_table(df: pd.DataFrame, threads: int | None = None,
                all_threads: bool = False) -> pd.DataFrame:
    """One GB/s (and time per call) per (machine, series, device, timing, n), see the module
    docstring. Keeps both timings: select_timing() picks one."""
    rows = newest(df)
    key = SERIES + COUNTS + ["n"]
    agg = rows.groupby(key, sort=False).agg(
        gbps=("gbps", "median"), time_ns=("time_ns_median", "median"),
        bytes=("bytes", "last"), peak_gbps=("peak_gbps", "max"), batch=("batch", "max"), host=("host", "last"),
        label=("label", "last"), cpu=("cpu", "last"), gpu=("gpu", "last"), cache=("cache", "last"),
        role=("role", "last"), accumulator=("accumulator", "last"), order=("order", "last"),
        gb_per_j=("gb_per_j", "median"), version=("version", "last"),
        samples=("gbps", "size")).reset_index()
    if not all_threads:
        agg = pick_threads(agg, key, threads)
    return agg.reset_index(drop=True)


def scale_out(all_counts: pd.DataFrame) -> pd.DataFrame:
    """The scaling series of a speed table with every count (speed_table(all_threads=True)): per
    (machine, series, device, timing, n), the series measured at more than one GPU count (axis
    "gpus", one rank) or rank count (axis "ranks"), each count's GB/s with `ideal` (the GB/s at
    count 1 times the count; NaN without a count-1 point) and `efficiency` (gbps / ideal). At the
    largest thread count of each point. Empty when no backend was measured at several counts."""
    frames = []
    for axis, others in [("gpus", ["threads"]), ("ranks", ["gpus", "threads"])]:
        rows = all_counts if axis == "ranks" else all_counts[all_counts["ranks"] == 1]
        rows = pick_threads(rows, SERIES + [axis, "n"], None, counts=others)
        if rows.empty:
            continue
        key = SERIES + ["n"]
        several = rows.groupby(key, sort=False)[axis].transform("nunique") > 1
        rows = rows[several & (rows[axis] >= 1)]
        if rows.empty:
            continue
        ones = rows[rows[axis] == 1].set_index(key)["gbps"].rename("one")
        rows = rows.join(ones, on=key)
        frames.append(rows.assign(axis=axis, count=rows[axis], ideal=rows["one"] * rows[axis])
                      .drop(columns=["one"]))
    if not frames:
        return pd.DataFrame(columns=SERIES + ["n", "axis", "count", "gbps", "ideal", "efficiency"])
    out = pd.concat(frames, ignore_index=True)
    out["efficiency"] = out["gbps"] / out["ideal"]
    return out.sort_values(SERIES + ["axis", "n", "count"]).reset_index(drop=True)


ERROR_KEY = ["machine", *IDENTITY, "device", "input", "n"]


def error_table(df: pd.DataFrame, threads: int | None = None) -> pd.DataFrame:
    """One relative error per (machine, series, device, input, n): the median over seeds (and
    timings, unless select_timing() picked one) of the newest rows at the largest thread count.
    NaN (input held NaN/Inf) stays NaN.

    Only role=reduction rows (ceilings and reference copies are not judged on their sums), and no
    `cuda+h2d` rows (the same kernels as `cuda`)."""
    rows = newest(df)
    rows = rows[(rows["role"] == "reduction") & (~rows["device"].str.endswith("+h2d"))]
    rows = pick_threads(rows, ERROR_KEY, threads)
    if rows.empty:
        return rows.assign(rel_error=[])
    agg = rows.groupby(ERROR_KEY, sort=False).agg(
        rel_error=("rel_error", lambda s: s.median() if s.notna().any() else math.nan),
        bytes=("bytes", "last"), threads=("threads", "max"), label=("label", "last")).reset_index()
    return agg


# A ceiling is a read of so many bytes: a series of another element type meets the ceiling where
# it reads as many bytes.
CEILING_KEY = ["machine", "device", "timing", "bytes"]
# A ceiling that a reduction beats by more than this is no ceiling there: the plots say so.
CEILING_MARGIN = 0.02
# A point of beaten_ceilings(): the ceiling's series point at one count of each kind.
BEATEN_KEY = CEILING_KEY + ["gpus", "ranks", "threads"]


def ceilings(speed: pd.DataFrame) -> pd.DataFrame:
    """The role=ceiling GB/s per (machine, device, timing, bytes)."""
    base = speed[speed["role"] == "ceiling"]
    return base.groupby(CEILING_KEY, sort=False)["gbps"].max().rename("ceiling").reset_index()


# The roofline in time, per (machine, device, timing) with a launch_floor backend: a call takes at
# least the floor (that backend's least time per call over its sizes: the launch reads nothing,
# so its size does not matter) and at least its bytes over the best read bandwidth, so the ceiling
# of b bytes is b / max(floor, b / best). The floor is the API's and the timing's own (what a call
# costs to launch and to wait for); the best read is the machine's memory's: the fastest GB/s of
# any ceiling backend on that machine's devices with a floor, at any size, in either timing, since
# no API or timing reads the same memory faster than the best read any of them achieved.
# The read ceiling of each size alone is none at small sizes, where it pays the launch that a
# one-launch reduction also pays and more. Not for +h2d rows, which a copy over PCIe bounds.
ROOFLINE_KEY = ["machine", "device", "timing"]


def rooflines(speed: pd.DataFrame) -> pd.DataFrame:
    """Per ROOFLINE_KEY with a launch floor and a ceiling on its machine: `floor_ns` and `best_gbps`."""
    speed = speed[~speed["device"].str.endswith("+h2d")]
    floors = speed[speed["role"] == "launch_floor"]
    floor = floors.groupby(ROOFLINE_KEY)["time_ns"].min().rename("floor_ns").reset_index()
    reads = speed[(speed["role"] == "ceiling") & speed["device"].isin(floors["device"].unique())]
    best = reads.groupby("machine")["gbps"].max().rename("best_gbps").reset_index()
    return floor.merge(best, on="machine", how="inner")


def roofline_gbps(nbytes, floor_ns, best_gbps):
    """GB/s of the roofline at `nbytes`: bytes / max(floor, bytes / best)."""
    return nbytes / np.maximum(floor_ns, nbytes / best_gbps)


def with_ceiling(speed: pd.DataFrame, reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """speed with `ceiling` (GB/s), `ceiling_kind` ("roofline", "read", or "" where none),
    `pct_ceiling` and `above_ceiling` (a reduction more than CEILING_MARGIN faster than its
    ceiling: a measurement to distrust, or a ceiling that is none). The ceilings come from
    `reference` (default: speed itself), a speed table that may hold timings that speed's
    selection left out: the roofline where its (machine, device, timing) has one, else the read
    ceiling of the same bytes."""
    reference = speed if reference is None else reference
    out = speed.merge(ceilings(reference), on=CEILING_KEY, how="left")
    out = out.merge(rooflines(reference), on=ROOFLINE_KEY, how="left")
    roof = out["floor_ns"].notna()
    out["ceiling"] = out["ceiling"].where(~roof, roofline_gbps(out["bytes"], out["floor_ns"], out["best_gbps"]))
    out["ceiling_kind"] = np.where(roof, "roofline", np.where(out["ceiling"].notna(), "read", ""))
    out["pct_ceiling"] = 100.0 * out["gbps"] / out["ceiling"]
    out["above_ceiling"] = (out["role"] == "reduction") & (out["gbps"] > out["ceiling"] * (1 + CEILING_MARGIN))
    return out.drop(columns=["floor_ns", "best_gbps"])


# ---------------------------------------------------------------------------------------------
# The cost model (Hockney): a call of b bytes takes t(b) = t0 + b / r_inf, t0 the fixed cost of a
# call and r_inf the asymptotic rate; n_half = t0 * r_inf is the size that reaches half of r_inf.
# Fitted per series by non-negative least squares on the relative residuals (t0 + b/r) / t - 1, so
# that the microsecond calls weigh as much as the second-long ones.
# A warm-cache CPU series reads each size from the smallest cache level that holds it, each level
# at its own rate: one line through all of them fits none (35-80% off on the committed CPU rows),
# so it is fitted per level (band) where the machine's caches are known (CACHES_FILE), and a fit is
# only a model where it is within COST_MODEL_MAX_ERROR of every size it was fitted on.
COST_MODEL_MIN_SIZES = 3  # two parameters and one size that checks them
COST_MODEL_MAX_ERROR = 0.15  # worst |fit / measured - 1| of a fit that is printed as a model
CACHES_FILE = REPO_ROOT / "results" / "caches.json"
ALL_SIZES = "all sizes"
BANDS = ["L1", "L2", "L3", "DRAM", ALL_SIZES]


def read_caches(path: Path = CACHES_FILE) -> dict[str, dict]:
    """Per machine value: its `l1d` and `l2` (bytes per core) and `l3` (bytes, shared)."""
    return json.loads(path.read_text())["machines"] if path.exists() else {}


def cache_band(nbytes: int, threads: int, caches: dict | None) -> str:
    """The level a warm read of nbytes over `threads` threads comes from: L1 or L2 while each
    thread's part fits its core's, L3 while the whole fits it, else DRAM; ALL_SIZES where the
    caches are unknown (None)."""
    if caches is None:
        return ALL_SIZES
    for level, size in [("L1", caches["l1d"] * threads), ("L2", caches["l2"] * threads), ("L3", caches["l3"])]:
        if nbytes <= size:
            return level
    return "DRAM"


def hockney_fit(nbytes: np.ndarray, t_ns: np.ndarray) -> dict | None:
    """t0_ns, r_inf (bytes per ns = GB/s), n_half_bytes and the relative errors of the fit
    t = t0 + bytes / r_inf, or None where it has no finite rate."""
    from scipy.optimize import nnls

    (t0, per_byte), _ = nnls(np.column_stack([1 / t_ns, nbytes / t_ns]), np.ones_like(t_ns))
    if per_byte <= 0:
        return None
    relative = np.abs((t0 + nbytes * per_byte) / t_ns - 1)
    return dict(t0_ns=t0, r_inf=1 / per_byte, n_half_bytes=t0 / per_byte,
                median_error=float(np.median(relative)), worst_error=float(relative.max()))


def cost_model(speed: pd.DataFrame, caches: dict[str, dict] | None = None) -> pd.DataFrame:
    """Per series (machine, series, device, timing) of role reduction or ceiling and per `band`
    (cache_band() for warm CPU rows of a machine in `caches`, else ALL_SIZES): `sizes`, `bytes_lo`
    and `bytes_hi`, and where it has COST_MODEL_MIN_SIZES sizes or more and a finite rate, the fit
    (`t0_ns`, `r_inf` in GB/s, `n_half_bytes`, `n_half` in elements, `median_error` and
    `worst_error`: |fit / measured - 1| over its sizes, NaN otherwise); `fits` when the worst
    error is within COST_MODEL_MAX_ERROR, else `reason` says why not; with its role, traits and
    label."""
    caches = read_caches() if caches is None else caches
    out = []
    for key, r in speed.groupby(SERIES, sort=False):
        role = r["role"].iloc[0]
        if role not in ("reduction", "ceiling"):
            continue
        banded = key[4] == "cpu" and (r["cache"] == "warm").all()
        machine_caches = caches.get(key[0]) if banded else None
        bands = [cache_band(b, t, machine_caches) for b, t in zip(r["bytes"], r["threads"])]
        for band, b in r.groupby(pd.Series(bands, index=r.index), sort=False):
            fit, reason = None, ""
            if len(b) < COST_MODEL_MIN_SIZES:
                reason = f"{len(b)} size{'s' if len(b) > 1 else ''} ({COST_MODEL_MIN_SIZES} needed)"
            else:
                fit = hockney_fit(b["bytes"].to_numpy(dtype=float), b["time_ns"].to_numpy(dtype=float))
                if fit is None:
                    reason = "no finite rate"
                elif fit["worst_error"] > COST_MODEL_MAX_ERROR:
                    reason = f"worst error {fit['worst_error']:.0%}, above {COST_MODEL_MAX_ERROR:.0%}"
            fit = fit or dict.fromkeys(["t0_ns", "r_inf", "n_half_bytes", "median_error", "worst_error"], math.nan)
            out.append(dict(zip(SERIES, key), band=band, role=role, accumulator=r["accumulator"].iloc[0],
                            order=r["order"].iloc[0], label=r["label"].iloc[0], **fit,
                            n_half=fit["n_half_bytes"] / DTYPE_BYTES[key[3]], sizes=len(b),
                            bytes_lo=b["bytes"].min(), bytes_hi=b["bytes"].max(), fits=not reason, reason=reason))
    columns = SERIES + ["band", "role", "accumulator", "order", "label", "t0_ns", "r_inf", "n_half_bytes", "n_half",
                        "median_error", "worst_error", "sizes", "bytes_lo", "bytes_hi", "fits", "reason"]
    return pd.DataFrame(out, columns=columns)


# ---------------------------------------------------------------------------------------------
# Families: the series that sum the same element type in the same accumulator (dtype, accumulator);
# the speed figures draw the fastest of each, so that a panel holds a handful of lines. Errors are
# told apart by the order of the additions too, which bounds them with the accumulator.
FAMILY = ["dtype", "accumulator"]
ERROR_FAMILY = ["dtype", "accumulator", "order"]


def one_device(df: pd.DataFrame) -> pd.DataFrame:
    """Rows of one GPU (or none) in one process: the multi-GPU and multi-rank rows have a figure
    of their own (scale_out)."""
    return df[(df["gpus"] <= 1) & (df["ranks"] == 1)]


def best_of_families(speed: pd.DataFrame) -> pd.DataFrame:
    """The rows of speed (one panel's or many) whose series is, per (machine, device, family), the
    fastest reduction: measured at the most sizes, then the highest geometric mean GB/s."""
    red = speed[speed["role"] == "reduction"]
    if red.empty:
        return red
    score = red.groupby(["machine", "device", *FAMILY, "series"], sort=False).agg(
        sizes=("n", "nunique"), log_gbps=("gbps", lambda g: float(np.log(g).mean()))).reset_index()
    score = score.sort_values(["sizes", "log_gbps", "series"], ascending=[False, False, True])
    best = score.drop_duplicates(["machine", "device", *FAMILY])[["machine", "device", "series"]]
    return red.merge(best, on=["machine", "device", "series"])


def ceiling_rivals(all_threads: pd.DataFrame) -> pd.DataFrame:
    """Every (ceiling point, rival) pair of a speed table that holds every thread count: per
    ceiling point (BEATEN_KEY, its `n` and `gbps`), each reduction series measured there with as many
    threads or fewer (`rival`, `rival_gbps`, `rival_threads`) and `ratio` = rival_gbps / gbps. A read with T
    threads is no ceiling where fewer threads, or another loop, read faster. Only rivals at the
    ceiling's GPU and rank counts count: a sum over more GPUs or processes is no rival."""
    key = BEATEN_KEY
    ceiling = all_threads.loc[all_threads["role"] == "ceiling", key + ["n", "gbps"]]
    rivals = all_threads.loc[all_threads["role"] == "reduction", key + ["gbps", "series"]]
    pairs = ceiling.merge(rivals, on=CEILING_KEY + ["gpus", "ranks"], suffixes=("", "_rival"))
    pairs = pairs[pairs["threads_rival"] <= pairs["threads"]]
    pairs = pairs.rename(columns={"series": "rival", "gbps_rival": "rival_gbps",
                                  "threads_rival": "rival_threads"})
    return pairs.assign(ratio=pairs["rival_gbps"] / pairs["gbps"]).reset_index(drop=True)


def beaten_ceilings(all_threads: pd.DataFrame) -> pd.DataFrame:
    """Per ceiling point of a speed table that holds every thread count (machine, device, timing,
    bytes, counts): its fastest rival (ceiling_rivals()), and `beaten` when that one is more than
    CEILING_MARGIN faster."""
    pairs = ceiling_rivals(all_threads)
    best = pairs.sort_values("rival_gbps", kind="stable").drop_duplicates(BEATEN_KEY, keep="last")
    best = best.assign(beaten=best["ratio"] > 1 + CEILING_MARGIN)
    return best.drop(columns=["ratio"]).reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# Traits: what the rows say about each backend


def backend_traits(df: pd.DataFrame) -> pd.DataFrame:
    """Per series (index): role, accumulator, order (the last row's) and `device_rank` (its first
    device in DEVICES order), from any table with those columns. Traits are per element type: a
    compensated sum of doubles is `compensated_f64`."""
    t = df.assign(device_rank=df["device"].map(device_rank))
    return t.groupby("series").agg(role=("role", "last"), accumulator=("accumulator", "last"),
                                    order=("order", "last"), device_rank=("device_rank", "min"))


def rank(value: str, vocabulary: list[str]) -> int:
    return vocabulary.index(value) if value in vocabulary else len(vocabulary)


def backend_sort_key(backend: str, traits: pd.DataFrame):
    """Device, then role (reductions first), accumulator, order, name."""
    if backend not in traits.index:
        return (9, 9, 9, 9, backend)
    t = traits.loc[backend]
    return (t["device_rank"], rank(t["role"], ROLES), rank(t["accumulator"], ACCUMULATORS),
            rank(t["order"], ORDERS), backend)


def sort_backends(backends: Iterable[str], traits: pd.DataFrame) -> list[str]:
    return sorted(set(backends), key=lambda b: backend_sort_key(b, traits))


# ---------------------------------------------------------------------------------------------
# Names and formatting


def series_label(backend: str, device: str) -> str:
    return f"{backend} (+h2d)" if device.endswith("+h2d") else backend


def device_rank(device: str) -> int:
    return DEVICES.index(device) if device in DEVICES else len(DEVICES)


def k_range(rows: pd.DataFrame) -> str:
    """'K = 64' or 'K = 2–1000': the batch sizes of the batched rows."""
    batch = rows.loc[rows["timing"] == "batched", "batch"]
    lo, hi = int(batch.min()), int(batch.max())
    return f"K = {lo}" if lo == hi else f"K = {lo}–{hi}"


def timing_short(rows: pd.DataFrame, k: bool = True) -> str:
    """'batched (K = 64)', 'isolated', or 'batched, isolated' for rows of both."""
    parts = []
    if (rows["timing"] == "batched").any():
        parts.append("batched" + (f" ({k_range(rows)})" if k else ""))
    if (rows["timing"] == "isolated").any():
        parts.append("isolated")
    return ", ".join(parts)


def timing_note(rows: pd.DataFrame) -> str:
    """What the timing of these rows means, e.g. 'batched (K calls back to back per timed region,
    time / K; K = 2–1000)'."""
    timings = set(rows["timing"])
    if timings == {"isolated"}:
        return "isolated (one call per timed region)"
    note = f"batched (K calls back to back per timed region, time / K; {k_range(rows)})"
    if "isolated" in timings:
        note += "; series marked (isolated): one call per region"
    return note


CACHE_NOTES = {"warm": "warm cache (the same input every call)",
               "cold": "cold cache (inputs rotated past 4× the cache)"}


def cache_note(rows: pd.DataFrame) -> str:
    values = sorted(v for v in set(rows["cache"]) if v)
    return "; ".join(CACHE_NOTES.get(v, f"cache: {v}") for v in values)


def fmt_bytes(nbytes: float) -> str:
    for unit, scale in [("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)]:
        if nbytes >= scale:
            v = nbytes / scale
            return f"{v:.0f} {unit}" if abs(v - round(v)) < 1e-9 else f"{v:.1f} {unit}"
    return f"{nbytes:.0f} B"


def fmt_n(n: int) -> str:
    """2^k for powers of two, the number otherwise."""
    n = int(n)
    if n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def fmt_gbps(v: float) -> str:
    if v is None or not math.isfinite(v):
        return "—"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def fmt_error(v: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "nan"
    if math.isinf(v):
        return "inf"
    if v == 0:
        return "0 (exact)"
    return f"{v:.2e}"


def default_out_dir() -> Path:
    return REPO_ROOT / "results" / "plots"
