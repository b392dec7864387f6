#!/usr/bin/env python3
"""Plots and a markdown summary from the benchmark's CSV files (see plot/README.md).

    python plot/plot.py [CSV ...] [--out DIR] [--backend GLOB ...] [--input NAME ...]
                        [--host NAME ...] [--machine ID ...] [--device DEV ...] [--threads N]
                        [--timing batched|isolated] [--ladder GLOB]
                        [--latency-csv CSV ...] [--latency-floats N] [--figure NAME ...]

Writes under DIR (default results/plots), each figure (or only those --figure names) as PNG and
SVG (plot/README.md, "What is drawn"; the list is figures.FIGURES):
    gbps       GB/s against size: the fastest series of each family (element type, accumulator),
               a panel per machine and device, with the ceiling (on GPUs the roofline
               max(launch floor, bytes / best read)) and the theoretical peak
    cost_model time per call against bytes with the fitted t = t0 + bytes / r_inf, per GPU
    accuracy_speed  relative error against GB/s at 2^24 elements, the Pareto front labelled
    error      relative error against size, a panel per input, one line per way of summing
    hardware   the series measured on the most machines: one line per machine
    scaling    GB/s against thread count (only when a backend was run with several)
    scale_out  GB/s against GPUs (nccl/*) and MPI ranks (mpi/*), with the ideal line
    energy     GB per joule per backend (rows with energy: NVIDIA GPUs, batched)
    ladder     the backends matching --ladder (default cuda/ladder/*) at 2^20 and 2^30 elements
    gpu_timing GPU microseconds per call, isolated against batched
    dispatch_latency
               nanoseconds per call against threads on tiny inputs (--latency-floats per thread),
               from the --latency-csv files (default results/latency/*.csv)
    summary.md fastest and most accurate backend per machine, device, element type and size, the
               cost model's t0, r_inf and n_half, the reductions above their ceiling, and the
               scale-out GB/s per count with the efficiency
and report.html, one self-contained interactive page (plot/report.py: views of speed, error,
accuracy against speed, machine against machine and the summary table, every filter in the URL):
in results/ when DIR is the default, else in DIR.
A series is a backend summing one element type (the dtype column; float32 where a file lacks it),
named 'backend (dtype)' unless float32: two element types are never one line or one median.
Each figure is drawn by its module in plot/figures/, the summary by plot/summary.py.
GPU rows use the batched timing (K calls back to back per timed region) unless --timing isolated.
A ceiling point that a reduction with as many threads or fewer beats by more than 2% is drawn
hollow in gbps: the read there is no ceiling.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd  # noqa: E402

import output_files  # noqa: E402
import shootout_csv as sc  # noqa: E402
from figures import FIGURES  # noqa: E402
from figures.dispatch_latency import LATENCY_FLOATS  # noqa: E402
from figures.ladder import DEFAULT_LADDER  # noqa: E402
from report import write_report  # noqa: E402
from summary import summary_markdown  # noqa: E402
from tables import make_tables  # noqa: E402

DEFAULT_LATENCY_GLOB = "results/latency/*.csv"


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description="Plots and a markdown summary from Accumulate Shootout CSV files.")
    p.add_argument("csv", nargs="*", help="CSV files (default: results/*.csv)")
    p.add_argument("--out", type=Path, default=sc.default_out_dir(),
                   help="output directory (default: results/plots)")
    p.add_argument("--backend", action="append", metavar="GLOB",
                   help="only backends matching this glob, e.g. 'cpu/avx2/*' (repeatable); "
                        "role=ceiling rows are always kept as the ceiling")
    p.add_argument("--input", action="append", metavar="NAME",
                   help="only this input distribution: ones, uniform, normal, file:NAME (repeatable)")
    p.add_argument("--host", action="append", metavar="NAME",
                   help="only machines with this host name (repeatable)")
    p.add_argument("--machine", action="append", metavar="ID",
                   help="only this machine, as in the CSV's machine column (repeatable)")
    p.add_argument("--device", action="append", help="only this device (cpu, cuda, cuda+h2d, ...; repeatable)")
    p.add_argument("--threads", type=int, metavar="N",
                   help="use the largest thread count not above N (default: the largest)")
    p.add_argument("--timing", choices=sc.TIMINGS, default=sc.DEFAULT_TIMING,
                   help="GPU timing to plot: batched (K calls back to back per timed region, "
                        "time / K; the default) or isolated (one call per timed region); CPU rows "
                        "are always isolated")
    p.add_argument("--ladder", metavar="GLOB", default=DEFAULT_LADDER,
                   help=f"backends for the ladder plot (default: {DEFAULT_LADDER}); they are left "
                        "out of the other plots unless --backend names them")
    p.add_argument("--latency-csv", action="append", metavar="CSV",
                   help="CSV files of the dispatch-latency runs (--sizes=per-thread:N; default, "
                        f"when no CSV is named: {DEFAULT_LATENCY_GLOB}); repeatable")
    p.add_argument("--latency-floats", type=int, default=LATENCY_FLOATS, metavar="N",
                   help=f"floats per thread of the dispatch_latency plot (default {LATENCY_FLOATS})")
    p.add_argument("--figure", action="append", choices=[figure.NAME for figure in FIGURES], metavar="NAME",
                   help="draw only this figure (repeatable; default: every one); the others' files are left "
                        "as they are, summary.md and report.html are written")
    return p.parse_args(argv)


def read_latency(args) -> pd.DataFrame:
    """The dispatch-latency rows: --latency-csv's files, or by default (no CSV named at all) the
    ones under results/latency/; empty when there are none."""
    if args.latency_csv:
        return sc.read_csvs(args.latency_csv)
    found = sorted(sc.REPO_ROOT.glob(DEFAULT_LATENCY_GLOB)) if not args.csv else []
    return sc.read_csvs([str(p) for p in found]) if found else pd.DataFrame()


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.threads is not None and args.threads < 1:
        raise sc.InputError("--threads must be at least 1")
    raw = sc.read_csvs(args.csv)
    files = sorted(raw["source"].unique())
    df = sc.apply_filters(raw, backend=args.backend, input=args.input, host=args.host,
                          machine=args.machine, device=args.device, keep_ceilings=True)
    if args.threads is not None and not (df["threads"] <= args.threads).any():
        raise sc.InputError(f"no rows match the filter --threads {args.threads} "
                            f"(fewest threads present: {int(df['threads'].min())})")
    filters = sc.describe_filters(backend=args.backend, input=args.input, host=args.host,
                                  machine=args.machine, device=args.device)
    if args.threads is not None:
        filters = (filters + f" --threads {args.threads}").strip()
    latency = read_latency(args)
    tables = make_tables(df, args.timing, args.threads, explicit_input=bool(args.input), ladder=args.ladder,
                         keep_ladder=bool(args.backend), latency=latency, latency_floats=args.latency_floats)
    out = args.out
    figures = [figure for figure in FIGURES if not args.figure or figure.NAME in args.figure]
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise sc.InputError(f"{out}: cannot create the output directory: {e.strerror}") from None
    summary = out / "summary.md"
    report = out.parent / "report.html" if out == sc.default_out_dir() else out / "report.html"
    try:  # every file this run may write, checked before anything is drawn
        for path in [*(out / f"{figure.NAME}.{ext}" for figure in figures for ext in ("png", "svg")), summary, report]:
            output_files.Output(path, "--out", output_files.REPLACE, follow_link=False)
    except output_files.OutputError as e:
        raise sc.InputError(str(e)) from None
    written: list[Path] = []
    notes = []
    fallbacks = sc.timing_fallbacks(df, args.timing)
    if fallbacks:
        other = next(t for t in sc.TIMINGS if t != args.timing)
        notes.append(f"no {args.timing} rows, drawn {other}: {', '.join(fallbacks)}")
    for figure in figures:
        notes.append(figure.draw(tables, out, written))
    try:
        output_files.replace_file(summary, (summary_markdown(tables, files, filters) + "\n").encode(), "--out")
    except output_files.OutputError as e:
        raise sc.InputError(str(e)) from None
    written.append(summary)
    write_report(df, report, ladder=None if args.backend else args.ladder)
    written.append(report)
    # A figure this run did not draw must not survive from an earlier run with other data.
    for figure in figures:
        for ext in ("png", "svg"):
            stale = out / f"{figure.NAME}.{ext}"
            if stale not in written and stale.exists():
                stale.unlink()
                notes.append(f"removed {stale}: not drawn from this data")
    for note in notes:
        if note:
            print(f"note: {note}", file=sys.stderr)
    print(f"read {len(raw)} rows from {len(files)} file(s); wrote {len(written)} files to {out}:")
    for path in written:
        print(f"  {path}")
    return 0


if __name__ == "__main__":
    output_files.run_stoppable(lambda: sc.run_cli(main))
