"""What does accuracy cost in speed? Relative error (log) against GB/s (log) at one size: per machine
and input, one point per reduction series, coloured by its accumulator; the Pareto front (the series
no other beats on both) outlined and labelled (labels placed apart by adjustText), an exact zero in
a green band at the floor.

Rules: the rows of the chosen timing (select_timing), newest per point, one GPU or none and one
rank, at the largest thread count; GB/s and error are the medians over seeds. `cuda+h2d` rows and
non-reductions are left out (the same kernels; nothing to judge)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

import shootout_csv as sc
import style

NAME = "accuracy_speed"
ROW_HEIGHT = 3.6
DEFAULT_INPUTS = ["uniform", "ill:1e16"]
DEFAULT_N = 1 << 24
KEY = ["machine", *sc.IDENTITY, "device", "input", "n"]


def points(df: pd.DataFrame, inputs: list[str], n: int) -> pd.DataFrame:
    """One (GB/s, rel_error) per (machine, series, device, input) at n."""
    rows = sc.newest(df)
    rows = rows[(rows["role"] == "reduction") & (~rows["device"].str.endswith("+h2d"))
                & rows["input"].isin(inputs) & (rows["n"] == n)]
    rows = sc.pick_threads(rows, KEY, None)
    if rows.empty:
        return rows.assign(rel_error=[])
    return rows.groupby(KEY, sort=False).agg(
        gbps=("gbps", "median"), rel_error=("rel_error", "median"),
        accumulator=("accumulator", "last"), label=("label", "last")).reset_index()


def pareto(group: pd.DataFrame) -> pd.Series:
    """True for the points that no other point beats on both GB/s (higher) and error (lower)."""
    error = group["rel_error"].fillna(math.inf)
    return group.apply(lambda p: not ((group["gbps"] >= p["gbps"]) & (error <= error[p.name])
                                      & ((group["gbps"] > p["gbps"]) | (error < error[p.name]))).any(),
                       axis=1)


def draw(t, out: Path, written: list[Path], inputs: list[str] = DEFAULT_INPUTS, n: int = DEFAULT_N) -> str | None:
    pts = points(sc.select_timing(sc.one_device(t.rows), t.timing), inputs, n)
    if pts.empty:
        return f"accuracy_speed: no reduction rows at n={n} for inputs {', '.join(inputs)}"
    panels = [(m, i) for m in style.machines_of(pts) for i in inputs
              if not pts[(pts["machine"] == m) & (pts["input"] == i)].empty]
    positive = pts["rel_error"][(pts["rel_error"] > 0) & np.isfinite(pts["rel_error"])]
    floor = 10.0 ** (math.floor(math.log10(positive.min())) - 1) if not positive.empty else 1e-18
    cols = 2 if len(panels) > 1 else 1
    rows = math.ceil(len(panels) / cols)
    fig, axes = style.figure(rows, cols, ROW_HEIGHT, f"Accuracy against speed at n = 2^{n.bit_length() - 1}: "
                             "one point per backend, the Pareto front labelled")
    accumulators = set()
    for ax, (machine, inp) in zip(axes.flat, panels):
        group = pts[(pts["machine"] == machine) & (pts["input"] == inp)].reset_index(drop=True)
        y = group["rel_error"].where(group["rel_error"] > 0, floor).fillna(floor)
        # An infinite error (a sum that overflowed, as a float16 total does) at the panel's top edge.
        finite = y[np.isfinite(y)]
        top = max(1.0, float(finite.max()) * 3) if not finite.empty else 1.0
        y = y.clip(upper=top)
        front = pareto(group)
        for (_, p), yy, on_front in zip(group.iterrows(), y, front):
            accumulators.add(p["accumulator"])
            ax.scatter(p["gbps"], yy, s=46 if on_front else 18, zorder=3,
                       color=style.ACCUMULATOR_COLORS.get(p["accumulator"], "grey"),
                       edgecolors="black" if on_front else "none")
        line = group[front].assign(y=y[front]).sort_values("gbps")
        ax.step(line["gbps"], line["y"], where="post", color="black", linewidth=1, alpha=0.6)
        ax.axhspan(floor / 3, floor * 3, color="tab:green", alpha=0.12)
        ax.set_xscale("log")
        ax.set_yscale("log")
        low, high = round(math.log10(floor)), math.ceil(math.log10(top))
        step = max(1, math.ceil((high - low - 1) / 6))
        ticks = [floor] + [10.0**k for k in range(high, low + 1, -step)][::-1]
        ax.yaxis.set_major_locator(FixedLocator(ticks))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "0 (exact)" if v == floor else f"$10^{{{round(math.log10(v))}}}$"))
        ax.yaxis.set_minor_locator(NullLocator())
        lo, hi = group["gbps"].min(), group["gbps"].max()
        ax.set_xlim(lo / 1.6, hi * 1.6)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
        ax.xaxis.set_minor_formatter(FuncFormatter(lambda x, _: f"{x:g}" if hi / lo < 20 and str(x)[0] in "25" else ""))
        ax.set_ylim(floor / 3, top)
        ax.set_xlabel("GB/s (log)")
        ax.set_ylabel("relative error (log)")
        ax.set_title(f"{group['label'].iloc[0]}: input {inp}", loc="left")
        ax.grid(True, which="both", alpha=0.2)
        texts = [ax.text(p["gbps"], yy, sc.series_label(p["series"], p["device"]), fontsize=7)
                 for (_, p), yy in zip(group[front].iterrows(), y[front])]
        style.place_labels(ax, texts, group["gbps"], y)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    handles = [Line2D([], [], linestyle="none", marker="o", color=style.ACCUMULATOR_COLORS.get(a, "grey"), label=a)
               for a in sc.ACCUMULATORS if a in accumulators]
    handles.append(Line2D([], [], color="black", alpha=0.6, label="Pareto front (outlined points)"))
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), frameon=False,
               title="accumulator")
    style.save(fig, out, NAME, written)
    return None
