"""GPU time per call, isolated against batched: per machine, the ceiling and the
GPU_TIMING_BACKENDS reduction series with the most rows."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter

import shootout_csv as sc
import style

NAME = "gpu_timing"
ROW_HEIGHT = 3.4
GPU_TIMING_BACKENDS = 4  # reduction series in the gpu_timing plot, besides the ceiling


def draw(t, out: Path, written: list[Path]) -> str | None:
    return plot_gpu_timing(t.speed_all, t.traits, out, written)



def plot_gpu_timing(speed_all: pd.DataFrame, traits, out: Path, written: list[Path]) -> str | None:
    """µs per call against n, per machine: the ceiling and the GPU_TIMING_BACKENDS reduction
    backends with the most rows, each with its isolated (dashed) and batched (solid) curve."""
    g = speed_all[speed_all["device"] == "cuda"]
    both = g.groupby(["machine", "series"])["timing"].transform("nunique") == 2
    g = g[both]
    if g.empty:
        return "gpu_timing plot skipped: no CUDA backend measured with both timings"
    machines = style.machines_of(g)
    fig, axes = style.figure(len(machines), 1, ROW_HEIGHT, "GPU time per call: isolated (submission latency "
                             "in every call) against batched")
    for ax, machine in zip(axes[:, 0], machines):
        rows = g[g["machine"] == machine]
        counts = rows[rows["role"] == "reduction"].groupby("series")["samples"].sum()
        ranked = sorted(counts.index, key=lambda b: (-counts[b], sc.backend_sort_key(b, traits)))
        picked = sorted(rows.loc[rows["role"] == "ceiling", "series"].unique()) + \
            ranked[:GPU_TIMING_BACKENDS]
        handles = []
        for i, b in enumerate(picked):
            ceiling = (rows.loc[rows["series"] == b, "role"] == "ceiling").any()
            color = "black" if ceiling else plt.get_cmap("tab10")(i % 10)
            for timing, dash in [("batched", "-"), ("isolated", (0, (4, 2)))]:
                r = rows[(rows["series"] == b) & (rows["timing"] == timing)].sort_values("n")
                ax.plot(r["n"], r["time_ns"] / 1000, color=color, linestyle=dash,
                        marker="o", markersize=4.5, linewidth=2.0 if ceiling else 1.4,
                        markerfacecolor=color if timing == "batched" else "white")
            handles.append(Line2D([], [], color=color, marker="o", linewidth=1.4,
                                  label=("ceiling: " if ceiling else "") + b))
        style.size_ticks(ax, rows)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
        ax.set_ylabel("µs per call  (log scale)")
        ax.set_xlabel(style.size_label(rows))
        ax.set_title(f"{style.machine_title(rows, machine, 'cuda')}\n"
                     f"{sc.timing_short(rows[rows['timing'] == 'batched'])} and isolated", loc="left")
        keys = [Line2D([], [], color="gray", linestyle="-", marker="o",
                       label="batched: K calls back to back\nper timed region, time / K"),
                Line2D([], [], color="gray", linestyle=(0, (4, 2)), marker="o",
                       markerfacecolor="white", label="isolated: one call per timed region")]
        style.legend_right(ax, handles + keys, title="backend")
    style.save(fig, out, NAME, written)
    return None
