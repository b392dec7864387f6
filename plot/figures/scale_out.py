"""Scaling out: GB/s against GPUs (nccl/*) and against MPI ranks (mpi/*) at SCALE_OUT_SIZES, with
the ideal line (linear from the 1-GPU, 1-rank point)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.lines import Line2D

import style

NAME = "scale_out"
ROW_HEIGHT = 3.0
SCALE_OUT_SIZES = [2**24, 2**28, 2**31]  # the scale_out plot's panels, where measured
SCALE_OUT_AXES = {"gpus": "GPUs (one process, NCCL)", "ranks": "MPI ranks (mpirun -np)"}


def scale_out_sizes(series: pd.DataFrame) -> list[int]:
    """SCALE_OUT_SIZES that were measured, or else the largest size measured."""
    measured = set(series["n"])
    sizes = [n for n in SCALE_OUT_SIZES if n in measured]
    return sizes or [max(measured)]


def draw(t, out: Path, written: list[Path]) -> str | None:
    return plot_scale_out(t.scale_out, t.styles, t.traits, out, written)


def plot_scale_out(series: pd.DataFrame, styles, traits, out: Path,
                   written: list[Path]) -> str | None:
    """GB/s against the GPU count and against the rank count (rows), per size (columns), one
    line per backend (and timing, where both were measured), each with its ideal line: the
    1-GPU (1-rank) GB/s times the count."""
    if series.empty:
        return "scale_out plot skipped: no backend was measured at several GPU or rank counts"
    axes_kinds = [a for a in SCALE_OUT_AXES if (series["axis"] == a).any()]
    sizes = scale_out_sizes(series)
    fig, axes = style.figure(len(axes_kinds), len(sizes), ROW_HEIGHT, "Scaling out: GB/s (the whole input's "
                             "bytes / time) against GPUs and MPI ranks")
    handles = {}
    for row, kind in enumerate(axes_kinds):
        for col, n in enumerate(sizes):
            ax = axes[row, col]
            s = series[(series["axis"] == kind) & (series["n"] == n)]
            most = 1
            machines = style.machines_of(s) if not s.empty else []
            for machine in machines:
                for (b, timing), r in s[s["machine"] == machine].groupby(["series", "timing"]):
                    r = r.sort_values("count")
                    most = max(most, int(r["count"].max()))
                    label = f"{b} ({timing})" + (f" — {r['label'].iloc[0]}" if len(machines) > 1 else "")
                    st = dict(markersize=5, linewidth=1.4, **styles[b])
                    if timing == "isolated":
                        st["linestyle"] = "--"
                    h, = ax.plot(r["count"], r["gbps"], **st)
                    handles[label] = h
                    if r["ideal"].notna().any():
                        ax.plot(r["count"], r["ideal"], color=h.get_color(), **style.IDEAL_STYLE)
            if s.empty:
                ax.text(0.5, 0.5, "not measured at this size", ha="center", va="center",
                        transform=ax.transAxes, color="gray")
            style.count_axis(ax, most, SCALE_OUT_AXES[kind])
            style.gbps_axis(ax)
            ax.set_title(style.size_title(n, series[series["n"] == n]), loc="left")
    handles["ideal: the 1-GPU (1-rank) GB/s × count"] = Line2D([], [], color="gray", **style.IDEAL_STYLE)
    fig.legend(list(handles.values()), list(handles), loc="outside lower left", ncol=2, frameon=False)
    style.save(fig, out, NAME, written)
    return None
