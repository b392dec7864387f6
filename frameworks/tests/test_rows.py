"""Rows in the harness's columns, appended by its rules."""

from __future__ import annotations

import math

import pytest

import rows
from handoff import Column

COLUMNS = [Column("backend", "text", None, False), Column("n", "whole", None, False),
           Column("gbps", "real", "%.6g", False), Column("time_ns_median", "real", "%.1f", False),
           Column("rel_error", "real", "%.17g", False), Column("seed", "whole", None, True),
           Column("configuration", "text", None, False)]


def row(**changes):
    values = {"backend": "numpy/sum", "n": 1024, "gbps": 12.3456789, "time_ns_median": 331.25, "rel_error": 0.1,
              "seed": 42, "configuration": "numpy=2.3.5 timer=wall-clock"}
    return {**values, **changes}


def test_values_are_written_in_each_column_pattern_as_printf_does():
    assert rows.csv_row(COLUMNS, row()) == \
        "numpy/sum,1024,12.3457,331.2,0.10000000000000001,42,numpy=2.3.5 timer=wall-clock"
    assert rows.csv_row(COLUMNS, row(rel_error=math.nan, gbps=math.inf, seed=None)).split(",")[2:6] == \
        ["inf", "331.2", "nan", ""]


def test_fields_are_quoted_as_the_harness_quotes_them():
    assert rows.quote('a "b", c') == '"a ""b"", c"' and rows.quote("plain text") == "plain text"
    assert rows.csv_row(COLUMNS, row(configuration="x, y")).endswith(',"x, y"')


def test_a_column_this_runner_does_not_fill_stops_it_unless_it_may_be_empty():
    with pytest.raises(rows.RowError, match="column.s. configuration are not filled"):
        rows.csv_row(COLUMNS, {k: v for k, v in row().items() if k != "configuration"})
    with pytest.raises(rows.RowError, match="column n has no value"):
        rows.csv_row(COLUMNS, row(n=None))
    assert rows.csv_row(COLUMNS, {k: v for k, v in row().items() if k != "seed"}).split(",")[5] == ""


def test_a_new_file_gets_the_header_once(tmp_path):
    path = tmp_path / "new.csv"
    csv = rows.CsvFile(path, COLUMNS)
    csv.append(row())
    rows.CsvFile(path, COLUMNS).append(row(n=2048))
    lines = path.read_text().splitlines()
    assert lines[0] == rows.header(COLUMNS) and len(lines) == 3 and lines[2].startswith("numpy/sum,2048,")


def test_a_file_without_its_final_newline_gets_one_before_the_row(tmp_path):
    path = tmp_path / "cut.csv"
    path.write_text(rows.header(COLUMNS) + "\nnumpy/sum,1,1,1,1,,x")
    rows.CsvFile(path, COLUMNS).append(row())
    assert path.read_text().splitlines()[1:] == ["numpy/sum,1,1,1,1,,x", rows.csv_row(COLUMNS, row())]


def test_a_file_with_another_header_or_no_file_at_all_is_refused(tmp_path):
    other = tmp_path / "other.csv"
    other.write_text("timestamp,host\n")
    with pytest.raises(rows.RowError, match="different header"):
        rows.CsvFile(other, COLUMNS)
    with pytest.raises(rows.RowError, match="is a directory"):
        rows.CsvFile(tmp_path, COLUMNS)
    with pytest.raises(rows.RowError, match="its directory '.*' does not exist"):
        rows.CsvFile(tmp_path / "missing" / "x.csv", COLUMNS)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    rows.CsvFile(empty, COLUMNS).append(row())
    assert empty.read_text().startswith(rows.header(COLUMNS) + "\n")


def test_a_header_replaced_after_the_start_is_seen_before_a_row_is_written(tmp_path):
    path = tmp_path / "x.csv"
    csv = rows.CsvFile(path, COLUMNS)
    path.write_text("something,else\n")
    with pytest.raises(rows.RowError, match="different header"):
        csv.append(row())
    assert path.read_text() == "something,else\n"


def test_sizes_are_described_as_the_harness_describes_them():
    assert rows.describe_size(1 << 20, 4) == "2^20 (4 MiB)"
    assert rows.describe_size(1000, 4) == "1000 (3.9 KiB)"
    assert rows.describe_size(1, 8) == "2^0 (8 B)"
    assert rows.describe_size(1 << 30, 8) == "2^30 (8 GiB)"
