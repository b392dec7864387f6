"""Fuzzing the plot tools' CSV reader (shootout_csv.read_csvs) with hypothesis.

Whatever a file holds, the reader gives validated rows or raises one InputError naming the file,
never another exception (the scripts' contract: 'error: ...' and exit status 2, no traceback); rows
as the harness writes them come back with every field as written; a file cut anywhere, or with any
field replaced by anything, is read or refused with InputError, and what is read obeys the schema.

The examples are the same on every run (derandomize), so the suite stays deterministic;
SHOOTOUT_CSV_FUZZ_EXAMPLES=N draws N random examples per test instead, for a longer search."""

from __future__ import annotations

import atexit
import csv
import io
import math
import os
import shutil
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import shootout_csv as sc  # noqa: E402
import pandas as pd  # noqa: E402

F64 = HERE / "data" / "ws-ryzen-f64.csv"
H100 = HERE / "data" / "h100.csv"  # every column up to version
RANDOM_EXAMPLES = int(os.environ.get("SHOOTOUT_CSV_FUZZ_EXAMPLES", "0"))
FUZZ = settings(max_examples=RANDOM_EXAMPLES or 100, derandomize=not RANDOM_EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])
WORK = Path(tempfile.mkdtemp(prefix="shootout_csv_fuzz_"))
atexit.register(shutil.rmtree, WORK, ignore_errors=True)
set_hypothesis_home_dir(WORK / "hypothesis")  # its caches, out of the source tree


def read(data: bytes):
    """read_csvs() of a file holding data: the rows, or None when refused with InputError."""
    path = WORK / "fuzzed.csv"
    path.write_bytes(data)
    try:
        return sc.read_csvs([str(path)])
    except sc.InputError as e:
        assert str(e).startswith(str(path)), e  # the message names the file
        return None


def check_schema(df) -> None:
    """What every row read must be (results/README.md, "Columns")."""
    assert (df["gbps"] > 0).all() and (df["gbps"] < math.inf).all()
    assert (df["time_ns_median"] > 0).all() and (df["threads"] >= 1).all() and (df["ranks"] >= 1).all()
    assert (df["bytes"] == df["n"] * df["dtype"].map(sc.DTYPE_BYTES)).all()
    assert not (df["rel_error"] < 0).any()
    assert not ((df["rel_error"] == 0) & df["exact"].abs().eq(math.inf)).any()
    assert df["timing"].isin(sc.TIMINGS).all() and df["role"].isin(sc.ROLES).all()
    for column in sc.NONEMPTY:
        assert (df[column] != "").all()


GOOD = {path: path.read_bytes() for path in (F64, H100)}


@FUZZ
@given(st.one_of(st.binary(max_size=3000),
                 st.builds(lambda tail: GOOD[F64].split(b"\n", 1)[0] + b"\n" + tail, st.binary(max_size=3000))))
def test_any_bytes_are_read_or_refused_with_a_message(data):
    df = read(data)
    if df is not None:
        check_schema(df)


@FUZZ
@given(st.sampled_from(sorted(GOOD)), st.data())
def test_a_file_cut_anywhere_is_read_or_refused_with_a_message(source, data):
    whole = GOOD[source]
    cut = data.draw(st.integers(min_value=0, max_value=len(whole)), label="cut")
    df = read(whole[:cut])
    if df is not None:
        check_schema(df)


# Any field of a good file replaced by any text: written raw (it may break the quoting) or quoted
# as a CSV writer would.
@FUZZ
@given(st.sampled_from(sorted(GOOD)), st.data(), st.text(max_size=40), st.booleans())
def test_any_field_replaced_is_read_or_refused_with_a_message(source, data, text, quoted):
    rows = list(csv.reader(io.StringIO(GOOD[source].decode(), newline="")))
    row = data.draw(st.integers(min_value=0, max_value=len(rows) - 1), label="row")
    column = data.draw(st.integers(min_value=0, max_value=len(rows[row]) - 1), label="column")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for i, fields in enumerate(rows):
        if i == row and not quoted:
            out.write(",".join(text if k == column else f for k, f in enumerate(fields)) + "\n")
        else:
            writer.writerow([text if (i, k) == (row, column) else f for k, f in enumerate(fields)])
    df = read(out.getvalue().encode("utf-8", errors="surrogatepass"))
    if df is not None:
        check_schema(df)


# Rows as the harness writes them, with any text in the free-text columns.
FREE_TEXT = ["host", "cpu", "gpu", "compiler", "build", "input", "configuration", "version", "os", "pages", "cache"]
NAMES = ["backend", "device", "machine", "accumulator", "order", "reproducibility"]  # never empty
# Any text but surrogates (not UTF-8) and NUL (the harness's fields are C strings, which end there).
PRINTABLE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=24)
REAL = st.floats(allow_nan=True, allow_infinity=True)
POSITIVE = st.floats(min_value=1e-300, max_value=1e300)


@st.composite
def harness_rows(draw):
    dtype = draw(st.sampled_from(sorted(sc.DTYPE_BYTES)))
    n = draw(st.integers(min_value=1, max_value=2**40))
    exact = draw(REAL)
    error = draw(st.one_of(st.just(math.nan), st.just(math.inf), st.floats(min_value=0, max_value=1e300)))
    if math.isinf(exact) and error == 0:
        error = math.inf  # what the harness writes beside an infinite sum
    row = {c: draw(PRINTABLE) for c in FREE_TEXT}
    row.update({c: draw(PRINTABLE.filter(lambda t: t.strip() != "")) for c in NAMES})
    row.update(timestamp="2026-11-22T01:02:03Z", threads=draw(st.integers(1, 4096)), seed=draw(st.integers(0, 2**64 - 1)),
               n=n, bytes=n * sc.DTYPE_BYTES[dtype], gbps=draw(POSITIVE), time_ns_median=draw(POSITIVE),
               time_ns_min=draw(POSITIVE), iterations=draw(st.integers(1, 2**40)), result=draw(REAL), exact=exact,
               rel_error=error, peak_gbps=draw(st.one_of(st.just(""), POSITIVE)), timing=draw(st.sampled_from(sc.TIMINGS)),
               batch=draw(st.integers(1, 1024)), role=draw(st.sampled_from(sc.ROLES)),
               reproducible=draw(st.sampled_from(["yes", "no"])), gpus=draw(st.integers(0, 8)),
               ranks=draw(st.integers(1, 64)), dtype=dtype, energy_j="", gb_per_j="",
               spread=draw(st.one_of(st.just(""), st.floats(min_value=0, max_value=1e3))),
               reps=draw(st.one_of(st.just(""), st.integers(1, 10**6))), noisy=draw(st.sampled_from(sc.NOISY)),
               throttled=draw(st.one_of(st.just(""), st.integers(0, 100))),
               sm_clock_mhz=draw(st.one_of(st.just(""), POSITIVE)), mem_clock_mhz=draw(st.one_of(st.just(""), POSITIVE)),
               governor=draw(PRINTABLE), turbo=draw(st.sampled_from(sc.TURBO)),
               load1=draw(st.one_of(st.just(""), st.floats(min_value=0, max_value=1e4))))
    return row


def field(value) -> str:
    """A value as the harness writes it: %.17g for reals, quoted where it holds a comma, a quote or
    a line break (report/reporters.cpp: quote_csv)."""
    text = "%.17g" % value if isinstance(value, float) else str(value)
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\r\n') else text


@FUZZ
@given(st.lists(harness_rows(), min_size=1, max_size=4))
def test_rows_as_the_harness_writes_them_come_back_field_for_field(rows):
    columns = sc.COLUMNS + sc.LATER
    text = "\n".join([",".join(columns)] + [",".join(field(row[c]) for c in columns) for row in rows]) + "\n"
    df = read(text.encode())
    assert df is not None, text
    for row, (_, got) in zip(rows, df.iterrows()):
        for c in FREE_TEXT + NAMES:
            expected = row[c].strip() or ("unknown-host" if c == "host" else "")
            assert got[c] == expected, (c, row[c], got[c])
        for c in ["gbps", "time_ns_median", "time_ns_min", "result", "exact", "rel_error"]:
            assert got[c] == row[c] or (math.isnan(got[c]) and math.isnan(row[c])), (c, row[c], got[c])
        for c in ["threads", "seed", "n", "bytes", "iterations", "batch", "gpus", "ranks"]:
            assert got[c] == row[c], (c, row[c], got[c])
        for c in ["spread", "sm_clock_mhz", "mem_clock_mhz", "load1"]:  # empty where not measured: NaN
            assert got[c] == row[c] or (row[c] == "" and math.isnan(got[c])), (c, row[c], got[c])
        for c in ["reps", "throttled"]:  # empty where not known: <NA>
            assert (got[c] == row[c]) if row[c] != "" else pd.isna(got[c]), (c, row[c], got[c])
        for c in ["noisy", "turbo"]:
            assert got[c] == row[c], (c, row[c], got[c])
        assert got["governor"] == row["governor"].strip(), (row["governor"], got["governor"])
