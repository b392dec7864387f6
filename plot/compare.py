#!/usr/bin/env python3
"""Side-by-side GB/s of two benchmark CSVs, per backend and size, with the ratio B/A.

    python plot/compare.py A.csv B.csv [--machine-a ID] [--machine-b ID] [--backend GLOB ...]
                           [--input NAME ...] [--device DEV ...] [--threads N]
                           [--timing batched|isolated] [--markdown]

Each number follows the plot rules (plot/README.md): newest row per repeat, median over inputs and
seeds, largest thread count, GPU rows batched unless --timing isolated. A file holding several
machines needs --machine-a / --machine-b (a machine value or a host name that names one machine).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd  # noqa: E402

import markdown as md  # noqa: E402
import shootout_csv as sc  # noqa: E402


def one_machine(path: str, pick: list[str] | None, flag: str, args) -> tuple[pd.DataFrame, str]:
    df = sc.read_csvs([path])
    if pick:
        refuse_ambiguous_names(df, pick, path, flag)
        chosen = df["machine"].isin(pick) | df["host"].isin(pick)
        if not chosen.any():
            raise sc.InputError(f"{path}: no rows match {flag} {' '.join(pick)} (machines present: "
                                f"{', '.join(describe_machines(df))})")
        df = df[chosen]
    machines = sorted(df["machine"].unique())
    if len(machines) > 1:
        raise sc.InputError(f"{path}: rows from several machines ({', '.join(describe_machines(df))}); "
                            f"pick one with {flag} MACHINE")
    df = sc.apply_filters(df, backend=args.backend, input=args.input, device=args.device)
    speed = sc.select_timing(sc.speed_table(sc.speed_rows(df, explicit_input=bool(args.input)),
                                            threads=args.threads), args.timing)
    if speed.empty:
        raise sc.InputError(f"{path}: no rows match the filter --threads {args.threads}")
    cpu = next((c for c in df["cpu"] if c), "")
    gpu = next((g for g in df["gpu"] if g), "")
    host = df["host"].iloc[-1]
    label = f"{Path(path).name}: machine {machines[0]} (host {host})" + \
        (f", {cpu}" if cpu else "") + (f", {gpu}" if gpu else "")
    return speed, label


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


def table(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    key = ["series", "device", "timing", "n"]
    cols = key + ["bytes", "gbps", "threads", "batch"]
    t = a[cols].merge(b[cols], on=key + ["bytes"], how="outer", suffixes=("_a", "_b"))
    t["ratio"] = t["gbps_b"] / t["gbps_a"]
    traits = sc.backend_traits(pd.concat([a, b]))
    t["order"] = [(sc.device_rank(d), sc.backend_sort_key(be, traits), tm, n)
                  for be, d, tm, n in zip(t["series"], t["device"], t["timing"], t["n"])]
    return t.sort_values("order").drop(columns="order").reset_index(drop=True)


def fmt_ratio(r: float) -> str:
    return f"{r:.2f}x" if isinstance(r, float) and math.isfinite(r) else "—"


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


def render(t: pd.DataFrame, label_a: str, label_b: str, markdown: bool) -> str:
    header = ["backend", "n", "bytes", "threads", "timing", "A GB/s", "B GB/s", "B/A"]
    rows = []
    for r in t.itertuples(index=False):
        rows.append([sc.series_label(r.series, r.device), sc.fmt_n(r.n), sc.fmt_bytes(r.bytes),
                     fmt_threads(r.threads_a, r.threads_b),
                     fmt_timing(r.timing, r.batch_a, r.batch_b), sc.fmt_gbps(r.gbps_a),
                     sc.fmt_gbps(r.gbps_b), fmt_ratio(r.ratio)])
    meaning = {"batched": "batched ×K = K calls back to back per timed region, time / K",
               "isolated": "isolated = one call per timed region"}
    present = [meaning[m] for m in sc.TIMINGS[::-1] if (t["timing"] == m).any()]
    if markdown:  # every field read from the files as text that stays text
        lines = [f"A = {md.text(label_a)}", f"B = {md.text(label_b)}", "timing: " + "; ".join(present), ""]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join("---" if i < 5 else "---:" for i in range(len(header))) + "|")
        lines += ["| " + " | ".join(md.text(cell) for cell in r) + " |" for r in rows]
        return "\n".join(lines)
    lines = [f"A = {label_a}", f"B = {label_b}", "timing: " + "; ".join(present), ""]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    left = 5  # text columns left-aligned, numbers right-aligned

    def line(cells):
        return "  ".join(c.ljust(w) if i < left else c.rjust(w)
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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        description="Side-by-side GB/s of two Accumulate Shootout CSV files, with the ratio B/A.")
    p.add_argument("a", metavar="A.csv")
    p.add_argument("b", metavar="B.csv")
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
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args(argv)
    speed_a, label_a = one_machine(args.a, args.machine_a, "--machine-a", args)
    speed_b, label_b = one_machine(args.b, args.machine_b, "--machine-b", args)
    t = table(speed_a, speed_b)
    print(render(t, label_a, label_b, args.markdown))
    both = t.dropna(subset=["ratio"])
    if both.empty:
        print("\nno backend and size was measured in both files", file=sys.stderr)
    else:
        geo = math.exp(sum(math.log(r) for r in both["ratio"] if r > 0) / len(both))
        print(f"\n{len(both)} backend/size pairs in both; geometric mean of B/A: {geo:.2f}x")
    return 0


if __name__ == "__main__":
    sc.run_cli(main)
