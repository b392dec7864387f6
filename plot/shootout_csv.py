"""Reading, validating and reducing the benchmark's CSV files; shared by plot.py and compare.py.

Rules (also in plot/README.md):
  * Repeats: rows for the same (host, backend, device, threads, input, seed, n) from several runs
    are reduced to the newest one (by timestamp; on equal timestamps the later row wins).
  * Machines: a host name that appears in several files names several machines; it is shown as
    "host (file)".
  * Speed: one GB/s per (host, backend, device, threads, n) is the median over the inputs and seeds
    measured there (speed does not depend on the values summed; `file:` inputs only when asked
    for, or when there is nothing else); of the thread counts, the largest one is used (or the
    largest not above --threads).
  * Ceiling: the `<cpu|cuda>/baseline/read` speed of the same host, device and n (at its largest
    thread count); "% of ceiling" is gbps / ceiling.
"""

from __future__ import annotations

import fnmatch
import glob
import math
import re
import sys
from pathlib import Path
from typing import Callable, Iterable, Sequence

import pandas as pd

COLUMNS = [
    "timestamp", "host", "cpu", "gpu", "compiler", "build", "backend", "device", "threads", "input",
    "seed", "n", "bytes", "gbps", "time_ns_median", "time_ns_min", "iterations", "result", "exact",
    "rel_error", "peak_gbps",
]
# Numeric columns that every row must have; the others may be empty or `nan`.
REQUIRED_NUMBERS = ["threads", "n", "gbps"]
OPTIONAL_NUMBERS = ["seed", "bytes", "time_ns_median", "time_ns_min", "iterations", "result",
                    "exact", "rel_error", "peak_gbps"]
DEVICES = ["cpu", "cuda", "cuda+h2d"]

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_GLOB = "results/*.csv"

# Known backends in the order the plots and tables list them; unknown ones follow, by name.
KNOWN_ORDER = [
    "cpu/serial/accumulate-f32", "cpu/serial/accumulate-f64", "cpu/serial/kahan",
    "cpu/serial/neumaier", "cpu/serial/pairwise", "cpu/serial/unrolled",
    "cpu/avx2/f32", "cpu/avx2/kahan", "cpu/avx2/f64",
    "cpu/avx512/f32", "cpu/avx512/kahan", "cpu/avx512/f64",
    "cpu/openmp/reduction", "cpu/openmp/simd", "cpu/stl/par", "cpu/stl/par_unseq",
    "cpu/tbb/reduce", "cpu/tbb/deterministic", "cpu/pool/simd", "cpu/threads/simd",
    "cpu/baseline/read",
    "cuda/shuffle", "cuda/shuffle-f64", "cuda/shuffle-kahan", "cuda/thrust", "cuda/cub",
    "cuda/atomic/grid", "cuda/baseline/read", "cuda/baseline/copy",
]


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


def read_csv(path: Path) -> pd.DataFrame:
    """One validated CSV file, with numeric columns converted and a `source` column (file name)."""
    name = str(path)
    try:
        if path.stat().st_size == 0:
            raise InputError(f"{name}: empty file (expected a header and data rows)")
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
    if missing:
        raise InputError(f"{name}: missing column(s): {', '.join(missing)} "
                         f"(expected header: {','.join(COLUMNS)})")
    if df.empty:
        raise InputError(f"{name}: empty file: a header but no data rows")

    for col in ["host", "cpu", "gpu", "compiler", "build", "backend", "device", "input"]:
        df[col] = df[col].str.strip()
    for col in REQUIRED_NUMBERS + OPTIONAL_NUMBERS:
        text = df[col].str.strip()
        df[col] = pd.to_numeric(text, errors="coerce")
        if col in REQUIRED_NUMBERS:
            bad = df[col].isna()
            if bad.any():
                i = int(bad.to_numpy().nonzero()[0][0])
                raise InputError(f"{name} line {i + 2}: column {col} is not a number: "
                                 f"{text.iloc[i]!r}")
    for col in ["backend", "device"]:
        empty = df[col] == ""
        if empty.any():
            i = int(empty.to_numpy().nonzero()[0][0])
            raise InputError(f"{name} line {i + 2}: column {col} is empty")

    stamps = pd.to_datetime(df["timestamp"].str.strip(), utc=True, errors="coerce",
                            format="ISO8601")
    if stamps.isna().any():
        i = int(stamps.isna().to_numpy().nonzero()[0][0])
        raise InputError(f"{name} line {i + 2}: column timestamp is not an ISO-8601 time: "
                         f"{df['timestamp'].iloc[i]!r}")
    df["timestamp"] = stamps
    df["threads"] = df["threads"].astype(int)
    df["n"] = df["n"].astype("int64")
    df["seed"] = df["seed"].fillna(0).astype("int64")
    df["host"] = df["host"].replace("", "unknown-host")
    df["source"] = path.name
    df["line"] = range(2, len(df) + 2)
    return df


def read_csvs(paths: Sequence[str]) -> pd.DataFrame:
    files = expand_paths(paths)
    frames = [read_csv(p) for p in files]
    df = pd.concat(frames, ignore_index=True)
    # Host names do not tell machines apart (cloud VMs are often all "vm"): a host name found in
    # several files is qualified by its file, so two machines' rows are never merged.
    files_per_host = df.groupby("host")["source"].nunique()
    shared = df["host"].isin(files_per_host[files_per_host > 1].index)
    df.loc[shared, "host"] = df.loc[shared, "host"] + " (" + df.loc[shared, "source"].str.removesuffix(".csv") + ")"
    df["order"] = range(len(df))  # file order, then line order: breaks timestamp ties
    return df


# ---------------------------------------------------------------------------------------------
# Filtering


def is_baseline(backend: str) -> bool:
    return "/baseline/" in backend


def is_ceiling(backend: str) -> bool:
    return backend.endswith("/baseline/read")


def ladder_step(backend: str) -> int | None:
    m = re.match(r"cuda/ladder/(\d+)", backend)
    return int(m.group(1)) if m else None


def is_ladder(backend: str) -> bool:
    return ladder_step(backend) is not None


def describe_filters(**filters: Iterable[str] | None) -> str:
    parts = []
    for key, values in filters.items():
        for v in values or []:
            parts.append(f"--{key.replace('_', '-')} {v}")
    return " ".join(parts)


def apply_filters(df: pd.DataFrame, backend: Sequence[str] | None = None,
                  input: Sequence[str] | None = None, host: Sequence[str] | None = None,
                  device: Sequence[str] | None = None, keep_ceilings: bool = False) -> pd.DataFrame:
    """Rows matching every given filter (each a list of alternatives; backend ones are globs).

    keep_ceilings: keep baseline/read rows whatever --backend says (they are the reference lines).
    Raises InputError naming the filters when nothing matches."""
    mask = pd.Series(True, index=df.index)
    if host:
        mask &= df["host"].isin(host)
    if device:
        mask &= df["device"].isin(device)
    if input:
        mask &= df["input"].isin(input)
    if backend:
        names = df["backend"]
        hit = names.apply(lambda b: any(fnmatch.fnmatchcase(b, g) for g in backend))
        if not (mask & hit).any():
            raise no_match(df, backend=backend, input=input, host=host, device=device)
        if keep_ceilings:
            hit |= names.apply(is_ceiling)
        mask &= hit
    out = df[mask]
    if out.empty:
        raise no_match(df, backend=backend, input=input, host=host, device=device)
    return out


def no_match(df: pd.DataFrame, **filters) -> InputError:
    what = describe_filters(**filters)
    hints = []
    for key, col in [("host", "host"), ("input", "input"), ("device", "device")]:
        if filters.get(key):
            values = sorted(set(df[col]))
            hints.append(f"{col}s present: {', '.join(values[:12])}{' ...' if len(values) > 12 else ''}")
    hint = f" ({'; '.join(hints)})" if hints else ""
    return InputError(f"no rows match the filter {what}{hint}")


# ---------------------------------------------------------------------------------------------
# Reducing to one number per point

POINT_KEY = ["host", "backend", "device", "threads", "input", "seed", "n"]


def newest(df: pd.DataFrame, by_source: bool = False) -> pd.DataFrame:
    """One row per measurement key: the newest by timestamp (later row on equal timestamps)."""
    key = (["source"] if by_source else []) + POINT_KEY
    ordered = df.sort_values(["timestamp", "order"], kind="stable")
    return ordered.drop_duplicates(key, keep="last")


def pick_threads(df: pd.DataFrame, group: list[str], threads: int | None) -> pd.DataFrame:
    """Per group, the rows of the largest thread count (not above `threads` when given)."""
    if threads is not None:
        df = df[df["threads"] <= threads]
    if df.empty:
        return df
    most = df.groupby(group, sort=False)["threads"].transform("max")
    return df[df["threads"] == most]


def speed_rows(df: pd.DataFrame, explicit_input: bool = False) -> pd.DataFrame:
    """The rows that speed comes from: generated inputs (ones, uniform, normal). `file:` inputs
    have sizes of their own and would make lone points; they count when asked for by --input or
    when nothing else is there."""
    if explicit_input:
        return df
    generated = df[~df["input"].str.startswith("file:")]
    return generated if not generated.empty else df


def speed_table(df: pd.DataFrame, threads: int | None = None, by_source: bool = False,
                all_threads: bool = False) -> pd.DataFrame:
    """One GB/s per (host, backend, device, n) [and source], see the module docstring."""
    rows = newest(df, by_source)
    key = (["source"] if by_source else []) + ["host", "backend", "device", "threads", "n"]
    agg = rows.groupby(key, sort=False).agg(
        gbps=("gbps", "median"), peak_gbps=("peak_gbps", "max"), cpu=("cpu", "last"),
        gpu=("gpu", "last"), samples=("gbps", "size")).reset_index()
    if not all_threads:
        agg = pick_threads(agg, [k for k in key if k != "threads"], threads)
    return agg.reset_index(drop=True)


def error_table(df: pd.DataFrame, threads: int | None = None) -> pd.DataFrame:
    """One relative error per (host, backend, device, input, n): the median over seeds of the
    newest rows at the largest thread count. NaN (input held NaN/Inf) stays NaN.

    Baselines (they do not sum) and `cuda+h2d` rows (the same kernels as `cuda`) are left out."""
    rows = newest(df)
    rows = rows[~rows["backend"].apply(is_baseline) & (rows["device"] != "cuda+h2d")]
    rows = pick_threads(rows, ["host", "backend", "device", "input", "n"], threads)
    if rows.empty:
        return rows.assign(rel_error=[])
    agg = rows.groupby(["host", "backend", "device", "input", "n"], sort=False).agg(
        rel_error=("rel_error", lambda s: s.median() if s.notna().any() else math.nan),
        threads=("threads", "max")).reset_index()
    return agg


def ceilings(speed: pd.DataFrame) -> pd.DataFrame:
    """The baseline/read GB/s per (host, device, n) [and source]: the ceiling."""
    keys = [k for k in ["source", "host", "device", "n"] if k in speed.columns]
    base = speed[speed["backend"].apply(is_ceiling)]
    return base.groupby(keys, sort=False)["gbps"].max().rename("ceiling").reset_index()


def with_ceiling(speed: pd.DataFrame) -> pd.DataFrame:
    keys = [k for k in ["source", "host", "device", "n"] if k in speed.columns]
    out = speed.merge(ceilings(speed), on=keys, how="left")
    out["pct_ceiling"] = 100.0 * out["gbps"] / out["ceiling"]
    return out


# ---------------------------------------------------------------------------------------------
# Names and formatting


def family(backend: str) -> str:
    """cpu/avx2/kahan -> 'cpu/avx2'; cuda/shuffle-f64 -> 'cuda/shuffle'; ladder -> 'cuda/ladder'."""
    parts = backend.split("/")
    if len(parts) < 2:
        return backend
    return f"{parts[0]}/{parts[1].split('-')[0]}"


def backend_sort_key(backend: str):
    step = ladder_step(backend)
    if step is not None:
        return (1, KNOWN_ORDER.index("cuda/baseline/copy") + 1, step, backend)
    if backend in KNOWN_ORDER:
        return (0 if backend.startswith("cpu/") else 1, KNOWN_ORDER.index(backend), 0, backend)
    return (0 if backend.startswith("cpu/") else 1, len(KNOWN_ORDER), 0, backend)


def sort_backends(backends: Iterable[str]) -> list[str]:
    return sorted(set(backends), key=backend_sort_key)


def series_label(backend: str, device: str) -> str:
    return f"{backend} (+h2d)" if device == "cuda+h2d" else backend


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


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"


def default_out_dir() -> Path:
    return REPO_ROOT / "results" / "plots"
