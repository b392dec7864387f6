#!/usr/bin/env python3
"""Side-by-side GB/s of two benchmark CSVs, per backend and size, with the ratio B/A.

    python plot/compare.py A.csv B.csv [--host-a NAME] [--host-b NAME] [--backend GLOB ...]
                           [--input NAME ...] [--device DEV ...] [--threads N] [--markdown]

Each number follows the plot rules (plot/README.md): newest row per repeat, median over inputs and
seeds, largest thread count. A file holding several hosts needs --host-a / --host-b.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd  # noqa: E402

import shootout_csv as sc  # noqa: E402


def one_machine(path: str, host: list[str] | None, flag: str, args) -> tuple[pd.DataFrame, str]:
    df = sc.read_csvs([path])
    if host:
        df = sc.apply_filters(df, host=host)
    hosts = sorted(df["host"].unique())
    if len(hosts) > 1:
        raise sc.InputError(f"{path}: rows from several hosts ({', '.join(hosts)}); "
                            f"pick one with {flag} NAME")
    df = sc.apply_filters(df, backend=args.backend, input=args.input, device=args.device)
    speed = sc.speed_table(sc.speed_rows(df, explicit_input=bool(args.input)),
                           threads=args.threads)
    if speed.empty:
        raise sc.InputError(f"{path}: no rows match the filter --threads {args.threads}")
    cpu = next((c for c in df["cpu"] if c), "")
    gpu = next((g for g in df["gpu"] if g), "")
    label = f"{Path(path).name}: host {hosts[0]}" + (f", {cpu}" if cpu else "") + \
        (f", {gpu}" if gpu else "")
    return speed, label


def table(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    key = ["backend", "device", "n"]
    cols = key + ["gbps", "threads"]
    t = a[cols].merge(b[cols], on=key, how="outer", suffixes=("_a", "_b"))
    t["ratio"] = t["gbps_b"] / t["gbps_a"]
    t["order"] = [(sc.DEVICES.index(d) if d in sc.DEVICES else 9, sc.backend_sort_key(be), n)
                  for be, d, n in zip(t["backend"], t["device"], t["n"])]
    return t.sort_values("order").drop(columns="order").reset_index(drop=True)


def fmt_ratio(r: float) -> str:
    return f"{r:.2f}x" if isinstance(r, float) and math.isfinite(r) else "—"


def fmt_threads(ta, tb) -> str:
    vals = [int(t) for t in (ta, tb) if isinstance(t, (int, float)) and math.isfinite(t)]
    if not vals:
        return ""
    return str(vals[0]) if len(set(vals)) == 1 else f"{int(ta)}/{int(tb)}"


def render(t: pd.DataFrame, label_a: str, label_b: str, markdown: bool) -> str:
    header = ["backend", "n", "bytes", "threads", "A GB/s", "B GB/s", "B/A"]
    rows = []
    for r in t.itertuples(index=False):
        rows.append([sc.series_label(r.backend, r.device), sc.fmt_n(r.n), sc.fmt_bytes(4 * r.n),
                     fmt_threads(r.threads_a, r.threads_b), sc.fmt_gbps(r.gbps_a),
                     sc.fmt_gbps(r.gbps_b), fmt_ratio(r.ratio)])
    lines = [f"A = {label_a}", f"B = {label_b}", ""]
    if markdown:
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join("---" if i < 4 else "---:" for i in range(len(header))) + "|")
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    left = 4  # text columns left-aligned, numbers right-aligned

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
    p.add_argument("--host-a", action="append", metavar="NAME",
                   help="the host to take from A when it holds several")
    p.add_argument("--host-b", action="append", metavar="NAME",
                   help="the host to take from B when it holds several")
    p.add_argument("--backend", action="append", metavar="GLOB",
                   help="only backends matching this glob (repeatable)")
    p.add_argument("--input", action="append", metavar="NAME", help="only this input (repeatable)")
    p.add_argument("--device", action="append", choices=sc.DEVICES, help="only this device")
    p.add_argument("--threads", type=int, metavar="N",
                   help="use the largest thread count not above N (default: the largest)")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args(argv)
    speed_a, label_a = one_machine(args.a, args.host_a, "--host-a", args)
    speed_b, label_b = one_machine(args.b, args.host_b, "--host-b", args)
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
