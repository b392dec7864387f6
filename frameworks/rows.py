"""Rows in the harness's CSV columns, written by its rules (results/README.md, "Writing the files").

The columns, their order and each one's text come from the harness's column table (handed over in
the manifest): a row here is a dict by column name. A column this runner does not fill is written
empty where the table lets it be empty (no value, as the harness writes where it has none: a column
added for one device's counter needs nothing here), and stops it elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

import output_files  # plot/output_files.py: the one way the Python tools write files
from handoff import Column


class RowError(Exception):
    """A row or an output file that cannot be written: stops the run, named."""


def field_text(column: Column, value) -> str:
    """A value as the harness writes it in this column (report/reporters.cpp: columns())."""
    if value is None:
        if not column.may_be_empty:
            raise RowError(f"column {column.name} has no value")
        return ""
    if column.kind == "whole":
        return str(int(value))
    if column.kind == "real":
        return column.pattern % float(value)  # Python's % is C's printf for %.Ng and %.Nf, nan and inf too
    return str(value)


def quote(text: str) -> str:
    """CSV quoting as the harness's: only fields holding a comma, a quote or a line break are quoted."""
    if not any(c in text for c in ',"\r\n'):
        return text
    return '"' + text.replace('"', '""') + '"'


def header(columns: list[Column]) -> str:
    return ",".join(c.name for c in columns)


def csv_row(columns: list[Column], values: dict) -> str:
    missing = [c.name for c in columns if c.name not in values and not c.may_be_empty]
    if missing:
        raise RowError(f"the harness's column(s) {', '.join(missing)} are not filled by this runner: "
                       "frameworks/accumulate_frameworks.py must say what framework rows hold there")
    return ",".join(quote(field_text(c, values.get(c.name))) for c in columns)


def csv_output(path) -> output_files.Output:
    """The --csv file, checked before anything is measured (plot/output_files.py, the harness's rules)."""
    try:
        return output_files.Output(path, "--csv", output_files.APPEND)
    except output_files.OutputError as e:
        raise RowError(str(e)) from None


class CsvFile:
    """Appends rows to a CSV file that the harness's runs may share: a new or empty file gets the
    header; an existing one must start with it; a missing final newline is added; each row is
    written whole under an exclusive flock(), as report/csv_reporter.cpp does."""

    def __init__(self, output: output_files.Output | Path, columns: list[Column]):
        self.output = output if isinstance(output, output_files.Output) else csv_output(output)
        self.path = self.output.path
        self.columns = columns
        self.header = header(columns) + "\n"
        if os.path.exists(self.output.target):
            with open(self.output.target, "rb") as f:
                start = f.read(len(self.header)).decode(errors="replace")
            if start and not self._starts_with_header(start):
                raise RowError(f"--csv: '{self.path}' has a different header from the one this version writes, "
                               "so new rows would sit under the wrong columns; give --csv another path")

    def _starts_with_header(self, start: str) -> bool:
        return start == self.header or start + "\n" == self.header

    def append(self, values: dict) -> None:
        text = csv_row(self.columns, values) + "\n"
        try:
            with self.output.locked() as fd:  # another run may be appending: held from looking to writing
                size = os.fstat(fd).st_size
                if size == 0:
                    text = self.header + text
                else:
                    if not self._starts_with_header(os.pread(fd, len(self.header), 0).decode(errors="replace")):
                        raise RowError(f"--csv: '{self.path}' has a different header from the one this version writes")
                    if os.pread(fd, 1, size - 1) != b"\n":
                        text = "\n" + text  # a file cut short, or saved without a final newline
                try:
                    os.write(fd, text.encode())
                except OSError as e:
                    os.ftruncate(fd, size)  # no half row left behind
                    raise RowError(f"--csv: writing '{self.path}' failed: {e.strerror}") from None
        except output_files.OutputError as e:
            raise RowError(str(e)) from None


def describe_size(n: int, itemsize: int) -> str:
    """"2^20 (4 MiB)" or "1000 (3.9 KiB)", as report/size_text.cpp's describe_size()."""
    scaled, unit = float(n * itemsize), "B"
    for bigger in ("KiB", "MiB", "GiB", "TiB"):
        if scaled < 1024:
            break
        scaled, unit = scaled / 1024, bigger
    amount = ("%.0f" if scaled == int(scaled) else "%.1f") % scaled + " " + unit
    count = f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)
    return f"{count} ({amount})"


def progress_line(counter: str, row: dict, itemsize: int) -> str:
    """One line per finished case, as the harness prints them (report/reporters.cpp: progress_line())."""
    timing = f"batched x{row['batch']}" if row["timing"] == "batched" else row["timing"]
    line = "%s %-36s %-10s %-13s n=%-16s threads=%-3d %-8s %9.2f GB/s  median %11.1f ns  rel.error %.3e" % (
        counter, row["backend"], row["device"], timing, describe_size(row["n"], itemsize), row["threads"], row["input"],
        row["gbps"], row["time_ns_median"], row["rel_error"])
    return line + ("" if row["dtype"] == "f32" else f"  dtype={row['dtype']}")
