"""The reduction ladder: the series matching a glob as bars at LADDER_SIZES, in name order, with
each step's speed-up over the one before."""

from __future__ import annotations

import math
import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import shootout_csv as sc
import style

NAME = "ladder"
LADDER_SIZES = [2**20, 2**30]
DEFAULT_LADDER = "cuda/ladder/*"  # a selection of backends for the ladder plot, not a property


def row_height(steps: int) -> float:
    """Inches per row of panels: a bar per step, and the title and legend."""
    return 0.28 * steps + 1.9


def draw(t, out: Path, written: list[Path]) -> str | None:
    return plot_ladder(t.ladder_speed, t.ladder_speed_all, t.ladder, out, written)


def plot_ladder(speed: pd.DataFrame, speed_all: pd.DataFrame, ladder: str, out: Path,
                written: list[Path]) -> str | None:
    """The backends matching the glob `ladder` as bars, in name order, per machine and device,
    with the ceiling of the same timing (from speed_all, which holds every timing)."""
    lad = speed[sc.matches(speed["backend"], [ladder]) & (speed["role"] == "reduction")]
    lad = lad[lad["n"].isin(LADDER_SIZES)]
    if lad.empty:
        return f"ladder plot skipped: no {ladder} rows at 2^20 or 2^30 elements"
    panels = [(m, d) for m in style.machines_of(lad)
              for d in sorted(set(lad.loc[lad["machine"] == m, "device"]), key=sc.device_rank)]
    sizes = [n for n in LADDER_SIZES if (lad["n"] == n).any()]
    steps = sorted(lad["series"].unique())
    # The steps' names without the folder they all share, e.g. "cuda/ladder/".
    common = os.path.commonprefix(steps)
    prefix = common[:common.rfind("/") + 1]
    fig, axes = style.figure(len(panels), len(sizes), row_height(len(steps)),
                             f"Reduction ladder ({ladder}): GB/s of each step; ×: speed-up over the step before")
    cmap = plt.get_cmap("viridis")
    for row, (machine, device) in enumerate(panels):
        for col, n in enumerate(sizes):
            ax = axes[row, col]
            rows = lad[(lad["machine"] == machine) & (lad["device"] == device) & (lad["n"] == n)]
            base = speed_all[(speed_all["machine"] == machine) & (speed_all["device"] == device)
                             & speed_all["bytes"].isin(rows["bytes"]) & (speed_all["role"] == "ceiling")
                             & speed_all["timing"].isin(rows["timing"])]
            present = [b for b in steps if (rows["series"] == b).any()]
            ys = np.arange(len(present))
            vals = [float(rows.loc[rows["series"] == b, "gbps"].iloc[0]) for b in present]
            colors = [cmap(0.15 + 0.7 * steps.index(b) / max(1, len(steps) - 1)) for b in present]
            ax.barh(ys, vals, color=colors, height=0.72, zorder=2)
            ax.set_yticks(ys, [b.removeprefix(prefix) for b in present])
            ax.invert_yaxis()
            xmax = max(vals) if vals else 1.0
            handles = []
            for _, c in base.iterrows():
                handles.append(ax.axvline(c["gbps"], label=f"ceiling {c['series']} "
                                          f"{c['gbps']:.0f} GB/s", **style.CEILING_STYLE))
                xmax = max(xmax, c["gbps"])
            peak = rows["peak_gbps"].dropna()
            if not peak.empty:
                p = float(peak.iloc[0])
                handles.append(ax.axvline(p, label=f"theoretical peak {p:g} GB/s", **style.PEAK_STYLE))
                xmax = max(xmax, p)
            # Values and speed-ups as labels on the right edge: they never cross bars or lines.
            texts = []
            for i, v in enumerate(vals):
                text = f"{sc.fmt_gbps(v):>5} GB/s"
                text += f"  ×{v / vals[i - 1]:.2f}" if i > 0 else " " * 8
                texts.append(text)
            ax.set_xlim(0, xmax * 1.06)
            right = ax.twinx()
            right.set_ylim(ax.get_ylim())
            right.set_yticks(ys, texts, fontfamily="monospace", fontsize=7.5)
            right.tick_params(axis="y", length=0)
            right.grid(False)
            ax.grid(axis="y", visible=False)
            ax.set_xlabel("throughput [GB/s]  (linear)")
            ax.set_title(f"{style.machine_title(rows, machine, device)}\nn = $2^{{{round(math.log2(n))}}}$ "
                         f"({style.bytes_text(rows['bytes'])}), {sc.timing_short(rows)}", loc="left", fontsize=9)
            if handles:
                ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.22),
                          frameon=False, ncol=1)
    style.save(fig, out, NAME, written)
    return None
