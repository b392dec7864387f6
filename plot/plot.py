#!/usr/bin/env python3
"""Plots and a markdown summary from the benchmark's CSV files (see plot/README.md).

    python plot/plot.py [CSV ...] [--out DIR] [--backend GLOB ...] [--input NAME ...]
                        [--host NAME ...] [--machine ID ...] [--device DEV ...] [--threads N]
                        [--timing batched|isolated] [--ladder GLOB]
                        [--latency-csv CSV ...] [--latency-floats N]

Writes under DIR (default results/plots), each plot as PNG and SVG:
    gbps       GB/s against size, one line per series; CPU, GPU (and GPU incl. host->device copy)
               panels per machine, with the role=ceiling backend and the theoretical peak
    error      relative error against size, one panel per input distribution, per machine
    hardware   each backend across machines: one line per machine
    ladder     the backends matching --ladder (default cuda/ladder/*) at 2^20 and 2^30 elements,
               with each step's speed-up
    gpu_timing GPU microseconds per call, isolated against batched, for the ceiling and the four
               reduction backends with the most rows
    scaling    GB/s against thread count (only when a backend was run with several)
    dispatch_latency
               nanoseconds per call against threads on tiny inputs (--latency-floats per thread),
               for the parallel CPU backends, from the --latency-csv files (default
               results/latency/*.csv, written by accumulate_bench --sizes=per-thread:16)
    scale_out  GB/s against GPUs (nccl/*) and against MPI ranks (mpi/*) at 2^24, 2^28 and 2^31
               elements, with the ideal line (linear from the 1-GPU, 1-rank point); only when a
               backend was run at several GPU or rank counts
    accuracy_speed  relative error against GB/s, one labelled point per reduction backend, the Pareto
               front outlined, per machine, for uniform and ill:1e16 at 2^24 elements
    summary.md fastest and most accurate backend per machine, device, element type and size, and
               the scale-out GB/s per count with the efficiency
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

import shootout_csv as sc  # noqa: E402
import style  # noqa: E402
from figures.accuracy_speed import plot_accuracy_speed  # noqa: E402
from figures.dispatch_latency import LATENCY_FLOATS, plot_dispatch_latency  # noqa: E402
from figures.dtypes import plot_dtypes  # noqa: E402
from figures.error import plot_error  # noqa: E402
from figures.gbps import plot_gbps  # noqa: E402
from figures.gpu_timing import plot_gpu_timing  # noqa: E402
from figures.hardware import plot_hardware  # noqa: E402
from figures.ladder import DEFAULT_LADDER, plot_ladder  # noqa: E402
from figures.scale_out import plot_scale_out  # noqa: E402
from figures.scaling import plot_scaling  # noqa: E402
from summary import summary_markdown  # noqa: E402

DEFAULT_LATENCY_GLOB = "results/latency/*.csv"
# Every plot's file name: one this run did not draw is removed from the output directory.
PLOT_NAMES = ["gbps", "error", "hardware", "ladder", "gpu_timing", "scaling", "dispatch_latency", "scale_out",
              "accuracy_speed", "dtypes"]


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
    traits = sc.backend_traits(pd.concat([raw, latency]) if not latency.empty else raw)
    styles = style.make_styles(traits)
    timed = sc.speed_rows(df, explicit_input=bool(args.input))
    speed_all = sc.speed_table(timed, threads=args.threads)  # both timings
    speed = sc.select_timing(speed_all, args.timing)
    err = sc.error_table(sc.select_timing(df, args.timing), threads=args.threads)
    # The ladder's backends have their own plot unless --backend asks for them.
    if not args.backend:
        speed_main = speed[~(sc.matches(speed["backend"], [args.ladder])
                             & (speed["role"] == "reduction"))]
        err = err[~sc.matches(err["backend"], [args.ladder])]
        timed_main = timed[~(sc.matches(timed["backend"], [args.ladder])
                             & (timed["role"] == "reduction"))]
        speed_all_main = sc.speed_table(timed_main, threads=args.threads)
    else:
        speed_main, speed_all_main = speed, speed_all

    out = args.out
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise sc.InputError(f"{out}: cannot create the output directory: {e.strerror}") from None
    written: list[Path] = []
    notes = []
    fallbacks = sc.timing_fallbacks(df, args.timing)
    if fallbacks:
        other = next(t for t in sc.TIMINGS if t != args.timing)
        notes.append(f"no {args.timing} rows, drawn {other}: {', '.join(fallbacks)}")
    all_counts = sc.speed_table(timed, all_threads=True)
    beaten = sc.beaten_ceilings(all_counts)
    plot_gbps(speed_main, beaten, styles, traits, out, written)
    plot_error(err, styles, traits, out, written)
    notes.append(plot_hardware(speed_main, traits, out, written))
    notes.append(plot_ladder(speed, speed_all, args.ladder, out, written))
    notes.append(plot_gpu_timing(speed_all_main, traits, out, written))
    notes.append(plot_scaling(all_counts, styles, traits, out, written))
    notes.append(plot_dispatch_latency(latency, args.latency_floats, styles, traits, out, written))
    scale_out = sc.scale_out(all_counts)
    notes.append(plot_scale_out(scale_out, styles, traits, out, written))
    notes.append(plot_accuracy_speed(sc.select_timing(df, args.timing), styles, out, written))
    notes.append(plot_dtypes(sc.select_timing(df, args.timing), out, written))
    summary = out / "summary.md"
    summary.write_text(summary_markdown(speed_main, speed_all, err, files, filters, args.timing,
                                        scale_out) + "\n")
    written.append(summary)
    # A plot this run did not draw must not survive from an earlier run with other data.
    for name in PLOT_NAMES:
        for ext in ("png", "svg"):
            stale = out / f"{name}.{ext}"
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
    sc.run_cli(main)
