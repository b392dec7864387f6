"""The accuracy-against-speed picture: per machine and input, one labelled point per reduction
series at one size (x: GB/s, log; y: relative error, log, an exact zero drawn in a band at the
floor), and the Pareto front: the series no other series beats on both speed and error.

Rules: the rows of the chosen timing (select_timing), newest per point, at the largest GPU, rank and
thread count; GB/s and error are the medians over seeds. `cuda+h2d` rows and non-reductions are left
out (the same kernels; nothing to judge)."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import shootout_csv as sc
import style

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


def plot_accuracy_speed(df: pd.DataFrame, styles, out: Path, written: list[Path],
                        inputs: list[str] = DEFAULT_INPUTS, n: int = DEFAULT_N) -> str | None:
    pts = points(df, inputs, n)
    if pts.empty:
        return f"accuracy_speed: no reduction rows at n={n} for inputs {', '.join(inputs)}"
    machines = sorted(pts["machine"].unique())
    shown = [i for i in inputs if i in set(pts["input"])]
    positive = pts["rel_error"][(pts["rel_error"] > 0) & np.isfinite(pts["rel_error"])]
    floor = 10.0 ** (math.floor(math.log10(positive.min())) - 1) if not positive.empty else 1e-18
    fig, axes = plt.subplots(len(machines), len(shown), figsize=(7 * len(shown), 5.5 * len(machines)),
                             squeeze=False)
    for r, machine in enumerate(machines):
        for c, inp in enumerate(shown):
            ax = axes[r][c]
            group = pts[(pts["machine"] == machine) & (pts["input"] == inp)]
            if group.empty:
                ax.set_axis_off()
                continue
            y = group["rel_error"].where(group["rel_error"] > 0, floor).fillna(floor)
            front = pareto(group)
            for (_, p), yy, on_front in zip(group.iterrows(), y, front):
                st = styles.get(p["series"], {})
                ax.scatter(p["gbps"], yy, s=60 if on_front else 25, color=st.get("color", "grey"),
                           edgecolors="black" if on_front else "none", zorder=3)
                ax.annotate(p["series"], (p["gbps"], yy), fontsize=6, xytext=(3, 3), textcoords="offset points")
            line = group[front].assign(y=y[front]).sort_values("gbps")
            ax.step(line["gbps"], line["y"], where="post", color="black", linewidth=1, alpha=0.6,
                    label="Pareto front")
            ax.axhspan(floor / 3, floor * 3, color="tab:green", alpha=0.12, label="0 (exact)")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_ylim(floor / 3, max(1.0, float(y.max()) * 3))
            ax.set_xlabel("GB/s (log)")
            ax.set_ylabel("relative error (log)")
            ax.set_title(f"{group['label'].iloc[0]}: {inp}, n = 2^{n.bit_length() - 1}", fontsize=9,
                         loc="left")
            ax.grid(True, which="both", alpha=0.2)
            ax.legend(fontsize=7, loc="upper left")
    fig.suptitle("Accuracy against speed: one point per backend, the Pareto front outlined", x=0.01,
                 ha="left", fontweight="bold")
    fig.tight_layout()
    style.save(fig, out, "accuracy_speed", written)
    return None
