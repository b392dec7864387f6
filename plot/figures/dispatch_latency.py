"""Dispatch latency: ns per call against threads on tiny inputs, for the parallel CPU reduction
series."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

import shootout_csv as sc
import style

NAME = "dispatch_latency"
ROW_HEIGHT = 3.4
LATENCY_FLOATS = 16  # elements per thread of the dispatch_latency rows: one cache line of floats


def draw(t, out: Path, written: list[Path]) -> str | None:
    return plot_dispatch_latency(t.latency, t.latency_floats, t.styles, t.traits, out, written)



def latency_rows(lat: pd.DataFrame, floats: int) -> pd.DataFrame:
    """The dispatch-latency points: CPU reduction rows of `floats` elements per thread, of the
    backends that ran with more than one thread on that machine (parallel ones, by their rows),
    one time per (machine, backend, threads): the newest rows, median over inputs."""
    r = lat[(lat["device"] == "cpu") & (lat["role"] == "reduction") & (lat["n"] == floats * lat["threads"])]
    parallel = r.groupby(["machine", "series"])["threads"].transform("max") > 1
    return sc.speed_table(r[parallel], all_threads=True)


def per_thread(rows: pd.DataFrame, elements: int) -> str:
    """'16 floats (64 B)': the elements each thread sums, and their bytes (from `bytes`)."""
    word = "floats" if set(rows["dtype"]) == {"f32"} else "elements"
    return f"{elements} {word} ({style.bytes_text(rows['bytes'] // rows['threads'])})"


def plot_dispatch_latency(lat: pd.DataFrame, floats: int, styles, traits, out: Path,
                          written: list[Path]) -> str | None:
    """ns per call against threads at `floats` floats a thread: the cost of starting parallel
    work and collecting its partial sums, next to which summing one cache line is nothing."""
    rows = latency_rows(lat, floats) if not lat.empty else lat
    if rows.empty:
        return (f"dispatch_latency plot skipped: no parallel CPU rows of {floats} floats per thread "
                "(run accumulate_bench --sizes=per-thread:16 into results/latency/)")
    machines = style.machines_of(rows)
    fig, axes = style.figure(len(machines), 1, ROW_HEIGHT, "Dispatch latency: time per call on tiny inputs "
                             "against threads (parallel CPU backends)")
    for ax, machine in zip(axes[:, 0], machines):
        m = rows[rows["machine"] == machine]
        handles = []
        for b in sc.sort_backends(m["series"], traits):
            r = m[m["series"] == b].sort_values("threads")
            h, = ax.plot(r["threads"], r["time_ns"], label=style.traits_label(b, "cpu", traits),
                         markersize=5, linewidth=1.4, **styles[b])
            handles.append(h)
        tmax = int(m["threads"].max())
        style.count_axis(ax, tmax, "threads (log₂ scale)")
        style.gbps_axis(ax, label=False)  # a log axis with plain-number ticks, whatever it measures
        ax.set_ylabel("ns per call  (log scale)")
        ax.set_title(f"{style.machine_title(m, machine, 'cpu')}\n{per_thread(m, floats)} per thread; "
                     "isolated, warm cache", loc="left")
        style.legend_right(ax, handles, title=style.LEGEND_TITLE)
    style.save(fig, out, NAME, written)
    return None
