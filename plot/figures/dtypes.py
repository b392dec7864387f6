"""What does each element type cost and keep? Relative error (log) against GB/s (log) at one size,
per machine and input, one panel per element type (float32, float64, float16, bfloat16: those
present): one point per reduction backend, coloured by what it accumulates in, an exact zero in a
green band at the floor. In float16 and bfloat16 the panel sets a 16-bit running total, float
accumulation and the exact sum side by side.

Rules: accuracy_speed's points() (the rows of the chosen timing, newest per point, one GPU or none
and one rank, at the largest thread count; medians over seeds; reductions only, no `+h2d` rows).
A machine and input get a row of panels where they hold more than one element type; labelled are
each panel's Pareto front and its 16-bit totals."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

import shootout_csv as sc
import style
from figures.accuracy_speed import DEFAULT_INPUTS, DEFAULT_N, pareto, points

NAME = "dtypes"
ROW_HEIGHT = 3.2


def draw(t, out: Path, written: list[Path], inputs: list[str] = DEFAULT_INPUTS, n: int = DEFAULT_N) -> str | None:
    pts = points(sc.select_timing(sc.one_device(t.rows), t.timing), inputs, n)
    panels = [(m, i) for m in style.machines_of(pts) for i in inputs
              if pts[(pts["machine"] == m) & (pts["input"] == i)]["dtype"].nunique() > 1]
    if not panels:
        return f"dtypes: no machine and input at n={n} hold more than one element type"
    pts = pts[pts.apply(lambda p: (p["machine"], p["input"]) in panels, axis=1)]
    dtypes = [d for d in sc.DTYPE_BYTES if d in set(pts["dtype"])]
    positive = pts["rel_error"][(pts["rel_error"] > 0) & np.isfinite(pts["rel_error"])]
    floor = 10.0 ** (math.floor(math.log10(positive.min())) - 1) if not positive.empty else 1e-18
    top = max(1.0, float(positive.max()) * 3) if not positive.empty else 1.0
    fig, axes = style.figure(len(panels), len(dtypes), ROW_HEIGHT,
                             f"Accuracy against speed per element type, n = 2^{n.bit_length() - 1}", sharey=True)
    accumulators = set()
    for r, (machine, inp) in enumerate(panels):
        for c, dtype in enumerate(dtypes):
            ax = axes[r][c]
            group = pts[(pts["machine"] == machine) & (pts["input"] == inp) & (pts["dtype"] == dtype)].reset_index(drop=True)
            ax.set_title(f"{style.DTYPE_TITLE.get(dtype, dtype)}, input {inp}", loc="left", fontsize=8)
            if c == 0:
                ax.set_ylabel(f"{group['label'].iloc[0] if not group.empty else machine}\nrelative error (log)", fontsize=7)
            if group.empty:
                ax.text(0.5, 0.5, "no rows", ha="center", va="center", transform=ax.transAxes, color="grey")
                continue
            # Exact zeros in the floor's band; an overflowed or NaN sum at the top edge.
            y = group["rel_error"].where(group["rel_error"] > 0, floor).fillna(top).clip(upper=top)
            for (_, p), yy in zip(group.iterrows(), y):
                accumulators.add(p["accumulator"])
                ax.scatter(p["gbps"], yy, s=20, zorder=3, color=style.ACCUMULATOR_COLORS.get(p["accumulator"], "grey"))
            ax.axhspan(floor / 3, floor * 3, color="tab:green", alpha=0.12)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_ylim(floor / 3, top * 3)
            # Plain numbers: the decades, or across a narrow GB/s range three ticks of two digits.
            lo, hi = group["gbps"].min(), group["gbps"].max()
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
            if hi / lo < 20:
                ax.xaxis.set_major_locator(FixedLocator(sorted({float(f"{v:.2g}") for v in np.geomspace(lo, hi, 3)})))
                ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel("GB/s (log)", fontsize=7)
            ax.tick_params(labelsize=6)
            ax.grid(True, which="both", alpha=0.2)
            labelled = pareto(group) | group["accumulator"].isin(["f16", "bf16"])
            texts = [ax.text(p["gbps"], yy, p["backend"], fontsize=5)
                     for (_, p), yy, shown_label in zip(group.iterrows(), y, labelled) if shown_label]
            style.place_labels(ax, texts, group["gbps"], y)
    handles = [Line2D([], [], linestyle="none", marker="o", color=style.ACCUMULATOR_COLORS.get(a, "grey"), label=a)
               for a in sc.ACCUMULATORS if a in accumulators]
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), frameon=False,
               title="accumulator (green band: exact)")
    style.save(fig, out, NAME, written)
    return None
