"""Accuracy against speed per element type: for each machine and input, one panel per element type
(float32, float64, float16, bfloat16, those present) at one size; x: GB/s (log), y: relative error
(log, an exact zero drawn in a band at the floor); one point per backend, coloured by what it
accumulates in. In float16 the panel sets a 16-bit running total, float accumulation and the exact
sum side by side: what each costs in error and buys in speed.

Rules: accuracy_speed's points() (newest rows of the chosen timing at the largest GPU, rank and
thread count; medians over seeds; reductions only, no `+h2d` rows). Drawn only when the rows hold
more than one element type."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

import shootout_csv as sc
import style
from figures.accuracy_speed import DEFAULT_INPUTS, DEFAULT_N, points


NAME = "dtypes"


def draw(t, out: Path, written: list[Path], inputs: list[str] = DEFAULT_INPUTS, n: int = DEFAULT_N) -> str | None:
    pts = points(sc.select_timing(sc.one_device(t.rows), t.timing), inputs, n)
    dtypes = [t for t in sc.DTYPE_BYTES if t in set(pts["dtype"])]
    if len(dtypes) < 2:
        return f"dtypes: the rows at n={n} hold one element type or none ({', '.join(dtypes) or 'none'})"
    panels = [(m, i) for m in sorted(pts["machine"].unique()) for i in inputs
              if ((pts["machine"] == m) & (pts["input"] == i)).any()]
    positive = pts["rel_error"][(pts["rel_error"] > 0) & np.isfinite(pts["rel_error"])]
    floor = 10.0 ** (math.floor(math.log10(positive.min())) - 1) if not positive.empty else 1e-18
    top = max(1.0, float(positive.max()) * 3) if not positive.empty else 1.0
    spare = iter(style.SPARE_COLORS * 10)
    colors = {acc: style.ACCUMULATOR_COLORS.get(acc) or next(spare) for acc in sorted(set(pts["accumulator"]))}
    fig, axes = style.figure(len(panels), len(dtypes), 3.2,
                             f"Accuracy against speed per element type, n = 2^{n.bit_length() - 1}: one point per "
                             "backend, coloured by its accumulator (green band: exact)", sharey=True)
    for r, (machine, inp) in enumerate(panels):
        for c, dtype in enumerate(dtypes):
            ax = axes[r][c]
            group = pts[(pts["machine"] == machine) & (pts["input"] == inp) & (pts["dtype"] == dtype)]
            ax.set_title(f"{style.DTYPE_TITLE.get(dtype, dtype)}: {inp}", fontsize=9, loc="left")
            if group.empty:
                ax.text(0.5, 0.5, "no rows", ha="center", va="center", transform=ax.transAxes, color="grey")
                continue
            # Overflowed (inf) and NaN errors at the top edge, exact zeros in the floor's band.
            y = group["rel_error"].where(group["rel_error"] > 0, floor).fillna(top).clip(upper=top)
            for (_, p), yy in zip(group.iterrows(), y):
                ax.scatter(p["gbps"], yy, s=30, color=colors[p["accumulator"]], zorder=3,
                           label=p["accumulator"])
                ax.annotate(p["backend"], (p["gbps"], yy), fontsize=6, xytext=(3, 3), textcoords="offset points")
            ax.axhspan(floor / 3, floor * 3, color="tab:green", alpha=0.12)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_ylim(floor / 3, top * 3)
            ax.set_xlabel("GB/s (log)")
            if c == 0:
                ax.set_ylabel(f"{group['label'].iloc[0]}\nrelative error (log)", fontsize=8)
            ax.grid(True, which="both", alpha=0.2)
            handles, labels = ax.get_legend_handles_labels()
            unique = dict(zip(labels, handles))
            ax.legend(unique.values(), [f"accumulator {a}" for a in unique], fontsize=6, loc="upper right")
    style.save(fig, out, "dtypes", written)
    return None
