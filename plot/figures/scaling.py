"""Thread scaling: GB/s against threads, for the sizes measured with several thread counts."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

import shootout_csv as sc
import style


def plot_scaling(all_threads: pd.DataFrame, styles, traits, out: Path,
                 written: list[Path]) -> str | None:
    s = all_threads[(all_threads["device"] == "cpu") & (all_threads["ranks"] == 1)]
    counts = s.groupby(["machine", "series", "n"])["threads"].nunique()
    sweeps = counts[counts >= 2]
    if sweeps.empty:
        return None
    # Per machine, the sizes with a sweep: one panel each (at most the two largest, to stay readable).
    panels = []
    for machine in style.machines_of(s):
        ns = sorted({n for m, _, n in sweeps.index if m == machine})[-2:]
        panels += [(machine, n) for n in ns]
    ncol = min(2, len(panels))
    nrow = math.ceil(len(panels) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(6.3 * ncol + 2.2, 4.2 * nrow), squeeze=False)
    handles = {}
    for ax, (machine, n) in zip(axes.flat, panels):
        bs = [b for (m, b, k) in sweeps.index if m == machine and k == n]
        tmax = 1
        for b in sc.sort_backends(bs, traits):
            r = s[(s["machine"] == machine) & (s["series"] == b) & (s["n"] == n)].sort_values("threads")
            tmax = max(tmax, int(r["threads"].max()))
            ceiling = traits.loc[b, "role"] == "ceiling"
            st = style.CEILING_STYLE if ceiling else dict(markersize=5, linewidth=1.4, **styles[b])
            h, = ax.plot(r["threads"], r["gbps"], **st)
            handles[b] = h
        style.count_axis(ax, tmax, "threads (log₂ scale)")
        style.gbps_axis(ax)
        at = s[(s["machine"] == machine) & s["series"].isin(bs) & (s["n"] == n)]
        ax.set_title(f"{style.machine_title(s, machine, 'cpu')}\n{style.size_title(n, at)}", loc="left")
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    order = sc.sort_backends(handles, traits)
    labels = [f"ceiling: {b}" if traits.loc[b, "role"] == "ceiling" else style.traits_label(b, "cpu", traits)
              for b in order]
    fig.suptitle("Thread scaling: GB/s against threads, for the sizes measured with several "
                 "thread counts", x=0.01, ha="left", fontweight="bold")
    fig.tight_layout()
    fig.legend([handles[b] for b in order], labels, loc="upper left",
               bbox_to_anchor=(1.0, 0.95), frameon=False, title=style.LEGEND_TITLE)
    style.save(fig, out, "scaling", written)
    return None
