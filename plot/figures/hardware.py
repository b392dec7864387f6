"""How does one backend do on each machine? GB/s against size for the series measured on the most
machines (the ceilings first, then the reductions measured most widely, the faster first), a panel
each, one line per machine."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
from matplotlib.lines import Line2D

import shootout_csv as sc
import style

NAME = "hardware"
ROW_HEIGHT = 2.7
MOST_PANELS = 6


def machine_label(rows: pd.DataFrame, machine: str) -> str:
    r = rows[rows["machine"] == machine]
    cpu = next((c for c in r["cpu"] if c), "")
    gpu = next((g for g in r["gpu"] if g), "")
    models = " / ".join(m for m in (cpu, gpu) if m)
    return r["label"].iloc[0] + (f" ({models})" if models else "")


def chosen_panels(s: pd.DataFrame, traits) -> list[str]:
    """'series|device' keys measured on at least two machines: the ceilings, then the reductions
    on the most machines (the faster first), MOST_PANELS in all."""
    s = s[s["role"].isin(["ceiling", "reduction"])]
    per = s.groupby("panel").agg(machines=("machine", "nunique"), gbps=("gbps", "median"),
                                 ceiling=("role", lambda r: (r == "ceiling").any())).reset_index()
    per = per[per["machines"] >= 2].sort_values(["ceiling", "machines", "gbps"], ascending=False)
    keys = per["panel"].tolist()[:MOST_PANELS]
    return sorted(keys, key=lambda k: (sc.device_rank(k.split("|")[1]), sc.backend_sort_key(k.split("|")[0], traits)))


def draw(t, out: Path, written: list[Path]) -> str | None:
    s = t.speed[~t.speed["device"].str.endswith("+h2d")]
    machines = style.machines_of(s)
    if len(machines) < 2:
        return "hardware comparison skipped: the CSVs hold only one machine"
    s = s.assign(panel=s["series"] + "|" + s["device"])
    panels = chosen_panels(s, t.traits)
    if not panels:
        return "hardware comparison skipped: no backend was measured on two machines"
    shown = [m for m in machines if s[s["panel"].isin(panels)]["machine"].eq(m).any()]
    cols = 2 if len(panels) > 1 else 1
    rows = math.ceil(len(panels) / cols)
    fig, axes = style.figure(rows, cols, ROW_HEIGHT, "Same backend across machines: GB/s against size, "
                             "one line per machine", extra=style.legend_height(len(shown), 1))
    colors = {m: style.plt.get_cmap("tab10")(i % 10) for i, m in enumerate(shown)}
    markers = {m: style.MARKERS[i % len(style.MARKERS)] for i, m in enumerate(shown)}
    for ax, key in zip(axes.flat, panels):
        b, device = key.split("|")
        rows_ = s[s["panel"] == key]
        for m in shown:
            r = rows_[rows_["machine"] == m].sort_values("n")
            if not r.empty:
                ax.plot(r["n"], r["gbps"], color=colors[m], marker=markers[m], markersize=4, linewidth=1.5)
        ax.set_title(sc.series_label(b, device) + ("" if device == "cpu" else f" ({sc.timing_short(rows_, k=False)})"),
                     loc="left")
        style.size_ticks(ax, s, max_ticks=6)
        style.gbps_axis(ax, label=False)
        ax.set_ylabel("GB/s (log)")
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    handles = [Line2D([], [], color=colors[m], marker=markers[m], linewidth=1.5, label=machine_label(s, m))
               for m in shown]
    fig.legend(handles=handles, loc="outside lower left", ncol=1, frameon=False)
    style.save(fig, out, NAME, written)
    return None
