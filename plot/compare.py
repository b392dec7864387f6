#!/usr/bin/env python3
"""Two machines side by side, per backend and size: GB/s, the ratio B/A with its 95% interval, and
whether B is faster, slower or the same within noise (plot/README.md, "compare.py").

    python plot/compare.py A B [--machine-a ID] [--machine-b ID] [--backend GLOB ...]
                           [--input NAME ...] [--device DEV ...] [--threads N]
                           [--timing batched|isolated] [--margin FRACTION] [--json-a JSON] [--json-b JSON]
                           [--markdown] [--plot DIR]
    python plot/compare.py --references THIS.csv [REFERENCE.csv ...]

A and B are each a CSV file, a folder of CSV files (one run each: every run's row is a sample), or a
machine value or host name found in results/*.csv; --json-a/-b name accumulate_bench --json documents
whose per-repetition times are then the samples. Each GB/s follows the plot rules (plot/README.md):
newest row per repeat, median over inputs and seeds, largest thread count, GPU rows batched unless
--timing isolated. A side holding several machines needs --machine-a / --machine-b.
--references prints "this machine against the reference machines": per reference machine in
results/*.csv (or the files named), the ratio per size band over the backends both measured.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import markdown as md  # noqa: E402
import shootout_csv as sc  # noqa: E402
import significance as sig  # noqa: E402

KEY = sc.SERIES + sc.COUNTS + ["n"]  # one point of a speed table
PAIR = ["series", "device", "timing", "n"]  # what pairs a point of A with one of B
# Size bands of "this machine against the reference machines", by bytes read per call: call
# overhead and the first caches, the last-level caches, memory.
BANDS = [(0, 256 * 2**10, "up to 256 KiB"), (256 * 2**10, 16 * 2**20, "256 KiB to 16 MiB"),
         (16 * 2**20, math.inf, "above 16 MiB")]


def side_paths(spec: str) -> tuple[list[str], bool]:
    """The files of one side (a file, a folder of files, or nothing when spec names a machine of
    results/*.csv), and whether spec was a path."""
    path = Path(spec)
    if path.is_dir():
        files = sorted(str(p) for p in path.glob("*.csv"))
        if not files:
            raise sc.InputError(f"{spec}: a folder without CSV files")
        return files, True
    if path.exists() or spec.endswith(".csv"):
        return [spec], True
    return [str(p) for p in sc.expand_paths([])], False


def one_machine(spec: str, pick: list[str] | None, flag: str, args) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """One side: its speed table, the rows it came from (every input, seed and repeat of each
    point: its samples) and its label."""
    paths, is_path = side_paths(spec)
    df = sc.read_csvs(paths)
    if not is_path:
        pick = (pick or []) + [spec]
    if pick:
        refuse_ambiguous_names(df, pick, spec, flag)
        chosen = df["machine"].isin(pick) | df["host"].isin(pick)
        if not chosen.any():
            raise sc.InputError(f"{spec}: no rows match {flag} {' '.join(pick)} (machines present: "
                                f"{', '.join(describe_machines(df))})")
        df = df[chosen]
    machines = sorted(df["machine"].unique())
    if len(machines) > 1:
        raise sc.InputError(f"{spec}: rows from several machines ({', '.join(describe_machines(df))}); "
                            f"pick one with {flag} MACHINE")
    rows = sc.speed_rows(sc.apply_filters(df, backend=args.backend, input=args.input, device=args.device),
                         explicit_input=bool(args.input))
    speed = sc.select_timing(sc.speed_table(rows, threads=args.threads), args.timing)
    if speed.empty:
        raise sc.InputError(f"{spec}: no rows match the filter --threads {args.threads}")
    cpu = next((c for c in df["cpu"] if c), "")
    gpu = next((g for g in df["gpu"] if g), "")
    host = df["host"].iloc[-1]
    files = (Path(spec).name if len(paths) == 1 else f"{spec} ({len(paths)} files)") if is_path else sc.DEFAULT_GLOB
    label = f"{files}: machine {machines[0]} (host {host})" + (f", {cpu}" if cpu else "") + (f", {gpu}" if gpu else "")
    return speed, rows.merge(speed[KEY], on=KEY), label


def refuse_ambiguous_names(df: pd.DataFrame, names: list[str], path: str, flag: str) -> None:
    """A name given that is the host name of several machines picks none of them: says so, and lists
    them with their machine values."""
    for name in names:
        named = df[(df["machine"] == name) | (df["host"] == name)]
        if named["machine"].nunique() > 1:
            raise sc.InputError(f"{path}: {flag} {name} is ambiguous: it is the host name of "
                                f"{named['machine'].nunique()} machines ({', '.join(describe_machines(named))}); "
                                f"give one's machine value")


def describe_machines(df: pd.DataFrame) -> list[str]:
    """'machine (host host)' for each machine in df."""
    host = df.groupby("machine")["host"].last()
    return [f"{m} (host {h})" for m, h in host.items()]


# What names a row in a JSON document as in a CSV file.
ROW_KEY = ["backend", "dtype", "device", "timing", "threads", "gpus", "ranks", "input", "seed", "n"]


def row_names(table: pd.DataFrame) -> pd.Series:
    """Per row, its ROW_KEY as one string, numbers written as whole numbers (seed empty for files)."""
    def text(v) -> str:
        if isinstance(v, str):
            return v
        return "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(int(v))
    return table[ROW_KEY].apply(lambda r: "|".join(text(v) for v in r), axis=1)


def repetitions(path: Path | None) -> dict[str, list[float]]:
    """Per row name, the times per call of its repetitions from an accumulate_bench --json document
    (`repetitions_ns`; the last measurement of a name wins, as the newest row does)."""
    if path is None:
        return {}
    try:
        measurements = json.loads(path.read_text())["measurements"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise sc.InputError(f"{path}: not an accumulate_bench --json document ({e})") from None
    table = pd.DataFrame(measurements)
    if table.empty or "repetitions_ns" not in table:
        raise sc.InputError(f"{path}: no measurement has repetitions_ns (written by an older accumulate_bench)")
    if "dtype" not in table:
        table["dtype"] = sc.DEFAULT_DTYPE
    return {name: [float(t) for t in reps] for name, reps in zip(row_names(table), table["repetitions_ns"])
            if isinstance(reps, list) and reps}


def samples(rows: pd.DataFrame, reps: dict[str, list[float]]) -> pd.DataFrame:
    """Per point of a speed table: its times per call (each row's repetitions where `reps` has
    them, else its median) and the median relative standard error of one row's median."""
    names = row_names(rows) if reps else pd.Series("", index=rows.index)
    times = [reps.get(name) or [t] for name, t in zip(names, rows["time_ns_median"])]
    rows = rows.assign(se=sig.row_se(rows), times=times)
    return rows.groupby(PAIR).agg(times=("times", lambda s: [t for row in s for t in row]),
                                 se=("se", "median")).reset_index()


def table(a: pd.DataFrame, b: pd.DataFrame, rows_a: pd.DataFrame, rows_b: pd.DataFrame,
          margin: float, reps_a: dict | None = None, reps_b: dict | None = None) -> pd.DataFrame:
    cols = PAIR + ["bytes", "gbps", "threads", "batch"]
    t = a[cols].merge(b[cols], on=PAIR + ["bytes"], how="outer", suffixes=("_a", "_b"))
    t = t.merge(samples(rows_a, reps_a or {}), on=PAIR, how="left").merge(
        samples(rows_b, reps_b or {}), on=PAIR, how="left", suffixes=("_a", "_b"))
    for side in ("a", "b"):  # the GB/s of the median time of every sample, as the ratio takes it
        measured = t[f"times_{side}"].map(lambda x: isinstance(x, list))
        t.loc[measured, f"gbps_{side}"] = t["bytes"][measured] / t[f"times_{side}"][measured].map(np.median)
    both = t["gbps_a"].notna() & t["gbps_b"].notna()
    results = [sig.judge(r.times_a, r.se_a, r.times_b, r.se_b, margin) if ok else None
               for r, ok in zip(t.itertuples(index=False), both)]
    for field in ("ratio", "low", "high", "p", "method", "verdict"):
        t[field] = [getattr(c, field) if c else (math.nan if field not in ("method", "verdict") else "")
                    for c in results]
    t["samples_a"] = [len(x) if isinstance(x, list) else 0 for x in t["times_a"]]
    t["samples_b"] = [len(x) if isinstance(x, list) else 0 for x in t["times_b"]]
    traits = sc.backend_traits(pd.concat([a, b]))
    t["order"] = [(sc.device_rank(d), sc.backend_sort_key(be, traits), tm, n)
                  for be, d, tm, n in zip(t["series"], t["device"], t["timing"], t["n"])]
    return t.sort_values("order").drop(columns=["order", "times_a", "times_b"]).reset_index(drop=True)


def fmt_ratio(r: float) -> str:
    return f"{r:.2f}x" if isinstance(r, float) and math.isfinite(r) else "—"


def fmt_interval(low: float, high: float) -> str:
    return f"{low:.3f}..{high:.3f}" if math.isfinite(low) and math.isfinite(high) else "—"


def fmt_threads(ta, tb) -> str:
    vals = [int(t) for t in (ta, tb) if isinstance(t, (int, float)) and math.isfinite(t)]
    if not vals:
        return ""
    return str(vals[0]) if len(set(vals)) == 1 else f"{int(ta)}/{int(tb)}"


def fmt_timing(timing: str, ka, kb) -> str:
    """'isolated', or 'batched ×K' (×Ka/Kb where the two files batched differently)."""
    if timing != "batched":
        return timing
    ks = [int(k) for k in (ka, kb) if isinstance(k, (int, float)) and math.isfinite(k)]
    return "batched ×" + (str(ks[0]) if len(set(ks)) == 1 else "/".join(map(str, ks)))


METHOD_NOTE = (f"interval: 95%; with {sig.MIN_SAMPLES}+ samples a side (repetitions from --json-a/-b, rows of inputs, seeds, runs), "
               "the Mann-Whitney U test and a bootstrap of the ratio of medians; else from each row's "
               "noise (spread and reps, or the gap between median and minimum of 5 repetitions)")


def render_lines(header: list[str], rows: list[list[str]], left: int, markdown: bool, preamble: list[str]) -> str:
    if markdown:  # every field read from the files as text that stays text
        lines = [md.text(p) if p else "" for p in preamble]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join("---" if i < left or i == len(header) - 1 else "---:"
                                    for i in range(len(header))) + "|")
        lines += ["| " + " | ".join(md.text(cell) for cell in r) + " |" for r in rows]
        return "\n".join(lines)
    lines = list(preamble)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]

    def line(cells):  # text columns left-aligned, numbers right-aligned
        return "  ".join(c.ljust(w) if i < left or i == len(cells) - 1 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    lines.append(line(header))
    lines.append(line(["-" * w for w in widths]))
    previous = None
    for r in rows:
        if previous is not None and r[0] != previous:
            lines.append("")
        lines.append(line(r))
        previous = r[0]
    return "\n".join(lines)


def render(t: pd.DataFrame, label_a: str, label_b: str, markdown: bool) -> str:
    header = ["backend", "n", "bytes", "threads", "timing", "A GB/s", "B GB/s", "B/A", "95% interval",
              "samples", "verdict"]
    rows = []
    for r in t.itertuples(index=False):
        rows.append([sc.series_label(r.series, r.device), sc.fmt_n(r.n), sc.fmt_bytes(r.bytes),
                     fmt_threads(r.threads_a, r.threads_b),
                     fmt_timing(r.timing, r.batch_a, r.batch_b), sc.fmt_gbps(r.gbps_a),
                     sc.fmt_gbps(r.gbps_b), fmt_ratio(r.ratio), fmt_interval(r.low, r.high),
                     f"{r.samples_a}/{r.samples_b}", r.verdict])
    meaning = {"batched": "batched ×K = K calls back to back per timed region, time / K",
               "isolated": "isolated = one call per timed region"}
    present = [meaning[m] for m in sc.TIMINGS[::-1] if (t["timing"] == m).any()]
    preamble = [f"A = {label_a}", f"B = {label_b}", "timing: " + "; ".join(present), METHOD_NOTE, ""]
    return render_lines(header, rows, 5, markdown, preamble)


def verdict_counts(t: pd.DataFrame) -> str:
    counts = t["verdict"].value_counts()
    return ", ".join(f"{counts[v]} {v}" for v in (sig.FASTER, sig.SLOWER, sig.SAME, sig.UNKNOWN) if v in counts)


def geometric_mean(ratios) -> float:
    ratios = [r for r in ratios if r > 0]
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


def draw(t: pd.DataFrame, traits: pd.DataFrame, title: str, out: Path) -> list[Path]:
    """compare.png and compare.svg in out: B/A per size with its 95% interval, a panel per device,
    a line per backend (and timing), styled by its traits as in every figure; × where the noise is
    unknown."""
    import style  # matplotlib only where a picture is asked for
    from matplotlib.ticker import FuncFormatter

    both = t.dropna(subset=["ratio"])
    if both.empty:
        raise sc.InputError("no backend and size was measured in both: nothing to draw")
    styles = style.make_styles(traits)
    devices = sorted(both["device"].unique(), key=sc.device_rank)
    fig, axes = style.figure(len(devices), 1, 3.4, style.wrapped(title, 95))  # the README's width in bold
    for ax, device in zip(axes[:, 0], devices):
        rows = both[both["device"] == device]
        for (series, timing), s in rows.groupby(["series", "timing"], sort=False):
            s = s.sort_values("n")
            known = s["low"].notna()
            look = styles[series]
            ax.errorbar(s["n"][known], s["ratio"][known],
                        yerr=[s["ratio"][known] - s["low"][known], s["high"][known] - s["ratio"][known]],
                        color=look["color"], marker=look["marker"], linestyle=look["linestyle"],
                        markersize=4, linewidth=1, capsize=2,
                        label=sc.series_label(series, device) + (f" ({timing})" if device != "cpu" else ""))
            ax.plot(s["n"][~known], s["ratio"][~known], linestyle="none", marker="x", color=look["color"])
        ax.axhline(1.0, color="black", linewidth=1.2)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
        style.size_ticks(ax, rows)
        ax.set_title(style.DEVICE_TITLE.get(device, device), loc="left")
        ax.set_ylabel("B/A speed (log)")
        style.legend_right(ax, ax.get_legend_handles_labels()[0], fontsize=6.5,
                           title="bars: 95% interval\n×: noise unknown")
    written: list[Path] = []
    out.mkdir(parents=True, exist_ok=True)
    style.save(fig, out, "compare", written)
    return written


def band_of(nbytes: float) -> str:
    return next(name for lo, hi, name in BANDS if lo < nbytes <= hi)


def bands(t: pd.DataFrame) -> pd.DataFrame:
    """Per device and size band of a comparison: the backends and pairs measured in both, the
    geometric mean of B/A and its range, and the verdicts."""
    both = t.dropna(subset=["ratio"]).assign(band=lambda d: d["bytes"].map(band_of))
    out = []
    for device in sorted(both["device"].unique(), key=sc.device_rank):
        for _, _, name in BANDS:
            rows = both[(both["device"] == device) & (both["band"] == name)]
            if rows.empty:
                continue
            out.append({"device": device, "band": name, "backends": rows["series"].nunique(), "pairs": len(rows),
                        "ratio": geometric_mean(rows["ratio"]), "lo": rows["ratio"].min(),
                        "hi": rows["ratio"].max(), "verdicts": verdict_counts(rows)})
    return pd.DataFrame(out)


def hardware(rows: pd.DataFrame) -> str:
    """What each device of a machine's rows ran on: 'cpu: MODEL; opencl: DEVICE; ...'."""
    named = []
    for device, of in rows.groupby("device", sort=False):
        model = next((m for m in of["cpu" if device == "cpu" else "gpu"] if m), "")
        named.append((sc.device_rank(device), f"{device}: {model or '?'}"))
    return "; ".join(text for _, text in sorted(named))


def references(args) -> int:
    """This machine (the one machine of args.references[0]) against each other machine of the
    reference files: the ratio per size band over the backends both measured."""
    this_path, *others = args.references
    speed_b, rows_b, label_b = one_machine(this_path, args.machine_b, "--machine-b", args)
    this = speed_b["machine"].iloc[0]
    reference = sc.read_csvs([str(p) for p in sc.expand_paths(others)])
    machines = [m for m in reference["machine"].unique() if m != this]
    print(f"this machine against the reference machines (B/A: this machine's speed over theirs, "
          f"the geometric mean over the backends and sizes both measured in a band; {METHOD_NOTE})")
    print(f"this machine = {label_b}\n  ({hardware(rows_b)})")
    shown = 0
    for machine in sorted(machines):
        rows = reference[reference["machine"] == machine]
        rows = sc.speed_rows(sc.apply_filters(rows, backend=args.backend, input=args.input,
                                              device=args.device), explicit_input=bool(args.input))
        # The timing this machine has for each backend (isolated only, where OpenCL runs on PoCL).
        speed_a = sc.speed_table(rows, threads=args.threads).merge(
            speed_b[["series", "device", "timing"]].drop_duplicates(), on=["series", "device", "timing"])
        t = table(speed_a, speed_b, rows.merge(speed_a[KEY], on=KEY), rows_b, args.margin)
        per_band = bands(t)
        if per_band.empty:
            continue
        shown += 1
        host = rows["host"].iloc[-1]
        lines = [[r.device, r.band, str(r.backends), str(r.pairs), f"{r.ratio:.3g}x", f"{r.lo:.3g}..{r.hi:.3g}",
                  r.verdicts] for r in per_band.itertuples(index=False)]
        print()
        print(render_lines(["device", "size band", "backends", "pairs", "B/A", "range", "verdicts"], lines, 2,
                           args.markdown, [f"A = machine {machine} (host {host})", f"  ({hardware(rows)})"]))
    if not shown:
        print("\nno reference machine measured a backend and size this machine measured", file=sys.stderr)
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        description="Two Accumulate Shootout machines side by side: GB/s, the ratio B/A with its 95%% "
                    "interval, and whether B is faster, slower or the same within noise.")
    p.add_argument("a", metavar="A", nargs="?",
                   help="a CSV file, a folder of CSV files (one run each), or a machine in results/*.csv")
    p.add_argument("b", metavar="B", nargs="?", help="the same, for B")
    p.add_argument("--references", nargs="+", metavar="CSV",
                   help="THIS.csv [REFERENCE.csv ...]: this machine against each other machine of the "
                        "reference files (default results/*.csv), the ratio per size band")
    p.add_argument("--machine-a", action="append", metavar="MACHINE",
                   help="the machine to take from A when it holds several: its machine value, or "
                        "a host name that only one machine in A has")
    p.add_argument("--machine-b", action="append", metavar="MACHINE",
                   help="the machine to take from B when it holds several")
    p.add_argument("--backend", action="append", metavar="GLOB",
                   help="only backends matching this glob (repeatable)")
    p.add_argument("--input", action="append", metavar="NAME", help="only this input (repeatable)")
    p.add_argument("--device", action="append", help="only this device (cpu, cuda, cuda+h2d, ...)")
    p.add_argument("--threads", type=int, metavar="N",
                   help="use the largest thread count not above N (default: the largest)")
    p.add_argument("--timing", choices=sc.TIMINGS, default=sc.DEFAULT_TIMING,
                   help="GPU timing: batched (K calls back to back per timed region, time / K; "
                        "the default) or isolated (one call per timed region); a backend without "
                        "rows of it keeps the timing it has; CPU rows are always isolated")
    p.add_argument("--margin", type=float, default=sig.MARGIN, metavar="FRACTION",
                   help="call B faster or slower only where its 95%% interval excludes 1 and the "
                        "ratio is beyond 1 + FRACTION or 1 / (1 + FRACTION) (default %(default)s)")
    p.add_argument("--json-a", type=Path, metavar="JSON",
                   help="A's accumulate_bench --json document: each row's repetitions are its samples")
    p.add_argument("--json-b", type=Path, metavar="JSON", help="the same for B")
    p.add_argument("--markdown", action="store_true", help="print markdown tables")
    p.add_argument("--plot", metavar="DIR", type=Path,
                   help="also draw DIR/compare.png and .svg: B/A per size with its interval, a panel per device")
    args = p.parse_args(argv)
    if args.margin < 0 or not math.isfinite(args.margin):
        p.error("--margin must be a fraction of at least 0")
    if args.references:
        if args.a or args.b:
            p.error("--references takes the files itself: no A and B")
        return references(args)
    if not (args.a and args.b):
        p.error("A and B are required (or --references)")
    speed_a, rows_a, label_a = one_machine(args.a, args.machine_a, "--machine-a", args)
    speed_b, rows_b, label_b = one_machine(args.b, args.machine_b, "--machine-b", args)
    t = table(speed_a, speed_b, rows_a, rows_b, args.margin, repetitions(args.json_a), repetitions(args.json_b))
    print(render(t, label_a, label_b, args.markdown))
    both = t.dropna(subset=["ratio"])
    if both.empty:
        print("\nno backend and size was measured in both files", file=sys.stderr)
    else:
        print(f"\n{len(both)} backend/size pairs in both: {verdict_counts(both)}; "
              f"geometric mean of B/A: {geometric_mean(both['ratio']):.2f}x")
    if args.plot:
        traits = sc.backend_traits(pd.concat([speed_a, speed_b]))
        for path in draw(t, traits, f"B/A: B = {label_b}; A = {label_a}", args.plot):
            print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sc.run_cli(main)
