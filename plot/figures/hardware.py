"""The same series across machines: a panel per series measured on at least two machines, one
line per machine."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.lines import Line2D

import shootout_csv as sc
import style


def machine_label(rows: pd.DataFrame, machine: str) -> str:
    r = rows[rows["machine"] == machine]
    cpu = next((c for c in r["cpu"] if c), "")
    gpu = next((g for g in r["gpu"] if g), "")
    models = " / ".join(m for m in (cpu, gpu) if m)
    return r["label"].iloc[0] + (f" ({models})" if models else "")


def plot_hardware(speed: pd.DataFrame, traits, out: Path, written: list[Path]) -> str | None:
    s = speed
    machines = style.machines_of(s)
    if len(machines) < 2:
        return "hardware comparison skipped: the CSVs hold only one machine"
    s = s.assign(panel=s["series"] + "|" + s["device"])
    counts = s.groupby("panel")["machine"].nunique()
    panels = [k for k, v in counts.items() if v >= 2]
    if not panels:
        return "hardware comparison skipped: no backend was measured on two machines"
    panels.sort(key=lambda k: (sc.DEVICES.index(k.split("|")[1]) if k.split("|")[1] in sc.DEVICES
                               else 9, sc.backend_sort_key(k.split("|")[0], traits)))
    ncol = min(4, len(panels))
    nrow = math.ceil(len(panels) / ncol)
    top_in = 0.45 + 0.2 * len(machines)  # title and legend above the panels, in inches
    height = 3.1 * nrow + top_in
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.9 * ncol, height), squeeze=False)
    colors = {m: plt.get_cmap("tab10")(i % 10) for i, m in enumerate(machines)}
    markers = {m: style.MARKERS[i % len(style.MARKERS)] for i, m in enumerate(machines)}
    widths = {m: max(1.2, 3.2 - 0.8 * i) for i, m in enumerate(machines)}
    for ax, key in zip(axes.flat, panels):
        b, device = key.split("|")
        rows = s[s["panel"] == key]
        for m in machines:
            r = rows[rows["machine"] == m].sort_values("n")
            if not r.empty:  # earlier machines drawn wider, so that coinciding lines both show
                ax.plot(r["n"], r["gbps"], color=colors[m], marker=markers[m],
                        markersize=widths[m] + 3, linewidth=widths[m])
        ax.set_title(sc.series_label(b, device) + ("" if device == "cpu" else
                                                   f" ({sc.timing_short(rows, k=False)})"),
                     loc="left", fontsize=9.5)
        style.size_ticks(ax, s, max_ticks=4)  # the same x range in every panel
        style.gbps_axis(ax, label=False)
        ax.tick_params(labelsize=8)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("GB/s (log)")
    fig.suptitle("Same backend across machines: GB/s (log) against elements and bytes (log₂), "
                 "one line per machine", x=0.01, y=1 - 0.1 / height, ha="left", va="top", fontweight="bold")
    handles = [Line2D([], [], color=colors[m], marker=markers[m], linewidth=widths[m],
                      markersize=widths[m] + 3, label=machine_label(s, m))
               for m in machines]
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.01, 1 - 0.38 / height),
               frameon=False, ncol=1, borderaxespad=0)
    fig.tight_layout(rect=(0, 0, 1, 1 - top_in / height))
    style.save(fig, out, "hardware", written)
    return None
