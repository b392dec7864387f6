#!/usr/bin/env python3
"""Whether a reduction beats the read ceiling by more than 2%, judged over repeated runs.

    python plot/ceiling_verdict.py RUN.csv RUN.csv ... [--margin 0.02] [--confidence 0.95]
                                   [--min-n 65536] [--all] [--markdown]

Each file is one run: one accumulate_bench process, or several one after the other appending to
the same file. Within a run the cases of a size are measured interleaved (results/README.md, "How
a number is taken"), so a reduction's GB/s over the ceiling's is a side-by-side ratio. On a shared
machine that one ratio moves by several per cent from run to run (cpu/PERFORMANCE.md), more than
the 2% that decides whether the ceiling holds, so one run cannot decide it; many can. Per
(machine, device, timing, n, ceiling threads, reduction, its threads), over the runs that measured
both:

  ratio      the median of the runs' gbps(reduction) / gbps(ceiling at T threads), for every
             reduction at T threads or fewer (the plots' rule: shootout_csv.ceiling_rivals)
  interval   a distribution-free confidence interval of that median: two order statistics of the
             ratios, chosen by the binomial sign test (6 runs or more at 95%)
  verdict    beaten     the whole interval above 1 + margin
             holds      the whole interval at or below 1 + margin
             undecided  the interval holds 1 + margin (or there are too few runs): more runs narrow it

Only sizes of --min-n elements or more are judged (by default from 2^16, the sizes the ceiling is
claimed for in cpu/PERFORMANCE.md). Every pair is
tested on its own, so with many pairs at 95% a pair whose true ratio is exactly 1 + margin is
called beaten about once in 40; a pair called beaten is worth running again.

Exit status: 0 no reduction beats the ceiling, 1 one does (listed), 2 bad input.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd  # noqa: E402

import shootout_csv as sc  # noqa: E402

PAIR_KEY = ["label", "machine", "device", "timing", "n", "gpus", "ranks", "threads", "rival",
            "rival_threads"]


def median_interval(values: list[float], confidence: float) -> tuple[float, float]:
    """The sign test's confidence interval for the median of values: (x_(j), x_(K+1-j)) of the
    sorted values, j the largest with P(Binomial(K, 1/2) < j) <= (1 - confidence) / 2; it covers
    the median with probability at least `confidence`. (nan, nan) when K is too small for any j."""
    x = sorted(values)
    k = len(x)
    tail = (1 - confidence) / 2
    below, j = 0.0, 0  # below = P(B < j + 1) as j grows
    while j < k // 2:
        below += math.comb(k, j) / 2**k
        if below > tail:
            break
        j += 1
    if j == 0:
        return math.nan, math.nan
    return x[j - 1], x[k - j]


def verdict(low: float, high: float, margin: float) -> str:
    if math.isnan(low):
        return "undecided"
    if low > 1 + margin:
        return "beaten"
    if high <= 1 + margin:
        return "holds"
    return "undecided"


def run_ratios(paths: list[str], min_n: int) -> pd.DataFrame:
    """The ceiling_rivals() pairs of each run (file), with `run`, the file's position."""
    frames = []
    for run, path in enumerate(sc.expand_paths(paths)):
        df = sc.read_csvs([str(path)])
        speed = sc.speed_table(sc.speed_rows(df), all_threads=True)
        pairs = sc.ceiling_rivals(speed)
        pairs = pairs[pairs["n"] >= min_n]
        if pairs.empty:
            continue
        labels = speed.drop_duplicates("machine").set_index("machine")["label"]
        frames.append(pairs.assign(run=run, label=pairs["machine"].map(labels)))
    if not frames:
        raise sc.InputError(f"no file has a ceiling and a reduction measured side by side at "
                            f"{min_n} elements or more")
    return pd.concat(frames, ignore_index=True)


def judge(ratios: pd.DataFrame, margin: float, confidence: float) -> pd.DataFrame:
    rows = []
    for key, group in ratios.groupby(PAIR_KEY, sort=True):
        values = group["ratio"].tolist()
        low, high = median_interval(values, confidence)
        rows.append(dict(zip(PAIR_KEY, key), runs=len(values),
                         ratio=float(pd.Series(values).median()), low=low, high=high,
                         verdict=verdict(low, high, margin)))
    return pd.DataFrame(rows)


def fmt_ratio(v: float) -> str:
    return "-" if math.isnan(v) else f"{v:.3f}"


def report(judged: pd.DataFrame, runs: int, args) -> str:
    lines = []
    for (label, device, timing), rows in judged.groupby(["label", "device", "timing"], sort=True):
        counts = rows["verdict"].value_counts()
        lines.append(f"{label} ({device}, {timing}): {runs} runs, {len(rows)} (ceiling, reduction) "
                     f"pairs at n >= {args.min_n}: {counts.get('holds', 0)} hold, "
                     f"{counts.get('undecided', 0)} undecided, {counts.get('beaten', 0)} beaten "
                     f"(margin {args.margin:.0%}, {args.confidence:.0%} intervals of the median "
                     "ratio)")
        shown = rows if args.all else rows[rows["verdict"] != "holds"]
        if shown.empty:
            lines.append("")
            continue
        shown = shown.sort_values(["n", "threads", "ratio"], ascending=[True, True, False])
        header = ["n", "threads", "reduction", "its threads", "runs", "median ratio", "interval",
                  "verdict"]
        table = [[sc.fmt_n(int(r.n)), str(r.threads), r.rival, str(r.rival_threads), str(r.runs),
                  fmt_ratio(r.ratio), f"{fmt_ratio(r.low)}..{fmt_ratio(r.high)}", r.verdict]
                 for r in shown.itertuples()]
        if args.markdown:
            lines += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            lines += ["| " + " | ".join(row) + " |" for row in table]
        else:
            widths = [max(len(h), *(len(row[i]) for row in table)) for i, h in enumerate(header)]
            for row in [header] + table:
                lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n\n".join(__doc__.split("\n\n")[2:]))
    p.add_argument("runs", nargs="+", metavar="RUN.csv", help="one file per run")
    p.add_argument("--margin", type=float, default=sc.CEILING_MARGIN,
                   help="how much faster than the ceiling beats it (default 0.02)")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="of the interval of the median ratio (default 0.95)")
    p.add_argument("--min-n", type=int, default=2**16, metavar="N",
                   help="judge sizes of N elements or more (default 65536)")
    p.add_argument("--all", action="store_true", help="list every pair, not only those that do "
                   "not hold")
    p.add_argument("--markdown", action="store_true", help="markdown tables")
    args = p.parse_args(argv)
    if not 0 < args.confidence < 1:
        raise sc.InputError(f"--confidence {args.confidence}: must be between 0 and 1")
    if args.margin < 0:
        raise sc.InputError(f"--margin {args.margin}: must be 0 or more")
    if len(set(map(str, sc.expand_paths(args.runs)))) != len(args.runs):
        raise sc.InputError("a file is named twice: each file is one run")
    judged = judge(run_ratios(args.runs, args.min_n), args.margin, args.confidence)
    fewest = next(k for k in range(1, 64) if not math.isnan(median_interval([0.0] * k, args.confidence)[0]))
    if judged["runs"].max() < fewest:
        print(f"note: {judged['runs'].max()} run(s) of each pair at most: a {args.confidence:.0%} interval "
              f"needs {fewest} or more, so every pair is undecided", file=sys.stderr)
    print(report(judged, len(args.runs), args))
    return 1 if (judged["verdict"] == "beaten").any() else 0


if __name__ == "__main__":
    sc.run_cli(main)
