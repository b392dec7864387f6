#!/usr/bin/env python3
"""Whether the GPU kernels read every element type as fast as float32, and the exact sum keeps up.

    python plot/dtype_targets.py RUN.csv ... --kernel BACKEND --exact BACKEND
                                 [--min-n 67108864] [--max-n 2147483648] [--timing batched]
                                 [--same-share 0.97] [--exact-share 0.9]

    e.g. --kernel cuda/single-pass --exact cuda/exact

A bandwidth-bound kernel reads the same fraction of the memory ceiling whatever it sums, so its
GB/s (bytes read over time) in float64, float16 and bfloat16 should match float32's: 16-bit inputs
then sum twice as many elements a second. Per (machine, device, n) from --min-n to --max-n, with
the rows of --timing (batched by default: a stream of calls, no host launch latency at the fixed
cost of each call), and per element type:

  type/f32     gbps(kernel, type) / gbps(kernel, f32)         target: >= --same-share
  exact/kernel gbps(exact, type) / gbps(kernel, type)         target: >= --exact-share

Each line ends in `ok` or `MISS`. The GB/s of a point is the shootout_csv rule's (the median over
the inputs and seeds, the newest of repeated rows).

Exit status: 0 every target met, 1 one missed (listed), 2 bad input or nothing to judge.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import shootout_csv as sc  # noqa: E402

BASE_TYPE = "f32"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", nargs="+", help="CSV files of accumulate_bench runs")
    p.add_argument("--kernel", required=True, help="the bandwidth-bound kernel's backend name")
    p.add_argument("--exact", required=True, help="the exact backend's name, judged against the kernel")
    p.add_argument("--min-n", type=int, default=2**26, help="smallest n judged (default 2^26)")
    p.add_argument("--max-n", type=int, default=2**31, help="largest n judged (default 2^31)")
    p.add_argument("--timing", choices=sc.TIMINGS, default=sc.DEFAULT_TIMING, help="rows of this timing (default batched)")
    p.add_argument("--same-share", type=float, default=0.97, help="least type/f32 GB/s ratio (default 0.97)")
    p.add_argument("--exact-share", type=float, default=0.9, help="least exact/kernel GB/s ratio (default 0.9)")
    return p.parse_args(argv)


def ratios(speed, args: argparse.Namespace) -> list[dict]:
    """One record per (machine, device, n, dtype) where the kernel was measured in that type: its
    ratio to f32 (for types other than f32) and the exact backend's ratio to it."""
    point = ["label", "device", "n"]
    kernel = speed[speed["backend"] == args.kernel].set_index(point + ["dtype"])["gbps"]
    exact = speed[speed["backend"] == args.exact].set_index(point + ["dtype"])["gbps"]
    out = []
    for (label, device, n, dtype), gbps in kernel.sort_index().items():
        record = {"machine": label, "device": device, "n": n, "dtype": dtype, "gbps": gbps}
        base = kernel.get((label, device, n, BASE_TYPE))
        if dtype != BASE_TYPE and base is not None:
            record["same"] = gbps / base
        if (label, device, n, dtype) in exact.index:
            record["exact"] = exact[(label, device, n, dtype)] / gbps
        out.append(record)
    return out


def main() -> int:
    args = parse_args()
    df = sc.read_csvs(args.csv)
    df = df[(df["n"] >= args.min_n) & (df["n"] <= args.max_n) & (df["timing"] == args.timing)]
    df = df[df["backend"].isin([args.kernel, args.exact])]
    if df.empty:
        raise sc.InputError(f"no {args.timing} rows of {args.kernel} or {args.exact} with n in "
                            f"[{args.min_n}, {args.max_n}]")
    records = ratios(sc.speed_table(df), args)
    misses = 0
    print(f"{args.timing} rows; type/f32: {args.kernel} GB/s over its f32 GB/s (target >= {args.same_share}); "
          f"exact/kernel: {args.exact} over {args.kernel} (target >= {args.exact_share})")
    print(f"{'machine':<16} {'device':<8} {'n':>12} {'dtype':<5} {'GB/s':>8} {'type/f32':>9} {'exact/kernel':>13}")
    for r in records:
        verdicts = []
        for key, target in [("same", args.same_share), ("exact", args.exact_share)]:
            if key in r:
                verdicts.append(r[key] >= target)
        missed = not all(verdicts)
        misses += missed
        same = f"{r['same']:.3f}" if "same" in r else "-"
        exact = f"{r['exact']:.3f}" if "exact" in r else "-"
        print(f"{r['machine']:<16} {r['device']:<8} {sc.fmt_n(int(r['n'])):>12} {r['dtype']:<5} {r['gbps']:8.0f} "
              f"{same:>9} {exact:>13}  {'MISS' if missed else 'ok'}")
    judged = sum(1 for r in records if "same" in r or "exact" in r)
    if judged == 0:
        raise sc.InputError(f"nothing to judge: {args.kernel} needs f32 rows beside the other types' "
                            f"(or {args.exact} rows beside its own) at the same sizes")
    print(f"{misses} of {len(records)} points miss a target")
    return 1 if misses else 0


if __name__ == "__main__":
    sc.run_cli(main)
