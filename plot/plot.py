#!/usr/bin/env python3
"""Plots and a markdown summary from the benchmark's CSV files (see plot/README.md).

    python plot/plot.py [CSV ...] [--out DIR] [--backend GLOB ...] [--input NAME ...]
                        [--host NAME ...] [--machine ID ...] [--device DEV ...] [--threads N]
                        [--timing batched|isolated] [--ladder GLOB]
                        [--latency-csv CSV ...] [--latency-floats N]

Writes under DIR (default results/plots), each plot as PNG and SVG:
    gbps       GB/s against size, one line per backend; CPU, GPU (and GPU incl. host->device copy)
               panels per machine, with the role=ceiling backend and the theoretical peak
    error      relative error against size, one panel per input distribution, per machine
    hardware   each backend across machines: one line per machine
    ladder     the backends matching --ladder (default cuda/ladder/*) at 2^20 and 2^30 elements,
               with each step's speed-up
    gpu_timing GPU microseconds per call, isolated against batched, for the ceiling and the four
               reduction backends with the most rows
    scaling    GB/s against thread count (only when a backend was run with several)
    dispatch_latency
               nanoseconds per call against threads on tiny inputs (--latency-floats per thread),
               for the parallel CPU backends, from the --latency-csv files (default
               results/latency/*.csv, written by accumulate_bench --sizes=per-thread:16)
    scale_out  GB/s against GPUs (nccl/*) and against MPI ranks (mpi/*) at 2^24, 2^28 and 2^31
               elements, with the ideal line (linear from the 1-GPU, 1-rank point); only when a
               backend was run at several GPU or rank counts
    accuracy_speed  relative error against GB/s, one labelled point per reduction backend, the Pareto
               front outlined, per machine, for uniform and ill:1e16 at 2^24 elements
    summary.md fastest and most accurate backend per machine, device and size, and the scale-out
               GB/s per count with the efficiency
GPU rows use the batched timing (K calls back to back per timed region) unless --timing isolated.
A ceiling point that a reduction with as many threads or fewer beats by more than 2% is drawn
hollow in gbps: the read there is no ceiling.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import (FixedLocator, FuncFormatter, LogLocator, NullFormatter,  # noqa: E402
                               NullLocator)

import shootout_csv as sc  # noqa: E402
from accuracy_speed import plot_accuracy_speed  # noqa: E402

DEVICE_TITLE = {"cpu": "CPU", "cuda": "GPU (CUDA, device memory)",
                "cuda+h2d": "GPU incl. host→device copy"}
LADDER_SIZES = [2**20, 2**30]
DEFAULT_LADDER = "cuda/ladder/*"  # a selection of backends for the ladder plot, not a property
GPU_TIMING_BACKENDS = 4  # reduction backends in the gpu_timing plot, besides the ceiling
LATENCY_FLOATS = 16  # floats per thread of the dispatch_latency rows: one cache line
DEFAULT_LATENCY_GLOB = "results/latency/*.csv"
# A hue per accumulator (the backends' `accumulator` trait), a marker per order (`order`); backends
# sharing both differ in shade and dash.
ACCUMULATOR_COLORS = {"f32": "#1f77b4", "compensated_f32": "#2ca02c", "f64": "#ff7f0e",
                      "exact": "#9467bd", "none": "#7f7f7f"}
SPARE_COLORS = ["#8c564b", "#e377c2", "#17becf", "#bcbd22", "#637939", "#843c39"]
ORDER_MARKERS = {"sequential": "o", "lanes": "s", "pairwise": "^", "thread_chunks": "D",
                 "tree": "v", "unordered": "X"}
SPARE_MARKERS = ["P", "<", ">", "h", "*"]
SHADES = [0.0, -0.35, 0.35, -0.55, 0.2, 0.5, -0.2]  # <0 darker, >0 lighter
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "h"]
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (8, 2))]
CEILING_STYLE = dict(color="black", linestyle=(0, (6, 3)), linewidth=2.2, zorder=1)
COPY_STYLE = dict(color="dimgray", linestyle=(0, (2, 2)), linewidth=1.6, zorder=1)
PEAK_STYLE = dict(color="crimson", linestyle=(0, (1, 1.5)), linewidth=1.8, zorder=1)

plt.rcParams.update({
    "figure.dpi": 110, "savefig.dpi": 110, "font.size": 9.5, "axes.titlesize": 10.5,
    "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.6, "legend.fontsize": 8.5,
    "svg.hashsalt": "accumulate-shootout", "axes.titleweight": "bold",
    "svg.fonttype": "none",  # text stays text in the SVG: smaller, searchable, testable
})
PLOT_NAMES = ["gbps", "error", "hardware", "ladder", "gpu_timing", "scaling", "dispatch_latency", "scale_out",
              "accuracy_speed"]
BEATEN_CEILING_STYLE = dict(linestyle="none", marker="o", markersize=9, markerfacecolor="white",
                            markeredgecolor="black", markeredgewidth=1.6, zorder=4)
SCALE_OUT_SIZES = [2**24, 2**28, 2**31]  # the scale_out plot's panels, where measured
SCALE_OUT_AXES = {"gpus": "GPUs (one process, NCCL)", "ranks": "MPI ranks (mpirun -np)"}
IDEAL_STYLE = dict(linestyle=(0, (1, 2)), linewidth=1.3, marker="")


# ---------------------------------------------------------------------------------------------
# Styles and axes


def shade(color: str, amount: float):
    rgb = np.array(matplotlib.colors.to_rgb(color))
    target = np.ones(3) if amount > 0 else np.zeros(3)
    return tuple(rgb + (target - rgb) * abs(amount))


def make_styles(traits: pd.DataFrame) -> dict[str, dict]:
    """A style per backend, from its traits: hue by accumulator, marker by order; members of one
    accumulator differ in shade and dash."""
    styles = {}
    by_acc: dict[str, list[str]] = {}
    for b in sc.sort_backends(traits.index, traits):
        by_acc.setdefault(traits.loc[b, "accumulator"], []).append(b)
    spare_colors = iter(SPARE_COLORS * 10)
    spare_markers = {}
    for acc, members in by_acc.items():
        hue = ACCUMULATOR_COLORS.get(acc) or next(spare_colors)
        for mi, b in enumerate(members):
            order = traits.loc[b, "order"]
            marker = ORDER_MARKERS.get(order) or spare_markers.setdefault(
                order, SPARE_MARKERS[len(spare_markers) % len(SPARE_MARKERS)])
            styles[b] = dict(color=shade(hue, SHADES[mi % len(SHADES)]), marker=marker,
                             linestyle=LINESTYLES[mi % len(LINESTYLES)])
    return styles


def traits_label(backend: str, device: str, traits: pd.DataFrame) -> str:
    """The legend entry: name, accumulator and order, e.g. 'cpu/avx2/f32 · f32, lanes'."""
    t = traits.loc[backend]
    return f"{sc.series_label(backend, device)} · {t['accumulator']}, {t['order']}"


LEGEND_TITLE = "backend · accumulator, order\n(hue: accumulator, marker: order)"


def size_ticks(ax, ns, max_ticks=8, bytes_line=True):
    """log2 x axis: ticks at 2^k with the byte size (float32) under each."""
    ks = [math.log2(n) for n in ns if n > 0]
    lo, hi = math.floor(min(ks)), math.ceil(max(ks))
    if hi == lo:
        lo, hi = lo - 1, hi + 1
    # Ticks at multiples of a round step, so that 2^20 and 2^30 are labelled when in range.
    for step in (1, 2, 5, 10, 20):
        ticks = [k for k in range(lo, hi + 1) if k % step == 0]
        if len(ticks) <= max_ticks:
            break
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator([2.0**k for k in ticks]))
    ax.xaxis.set_minor_locator(FixedLocator([2.0**k for k in range(lo, hi + 1)]))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.xaxis.set_major_formatter(FuncFormatter(
        lambda x, _: f"$2^{{{round(math.log2(x))}}}$" + (f"\n{sc.fmt_bytes(4 * x)}" if bytes_line else "")))
    pad = 0.35
    ax.set_xlim(2.0 ** (lo - pad), 2.0 ** (hi + pad))


def gbps_axis(ax, label=True):
    """Log GB/s axis with plain-number ticks; call after plotting (it reads the data range)."""
    ax.set_yscale("log")
    lo, hi = ax.get_ylim()
    if hi / lo < 10**0.7:  # a flat line: widen so that some round values get labels
        mid = math.sqrt(lo * hi)
        lo, hi = mid / 10**0.35, mid * 10**0.35
        ax.set_ylim(lo, hi)
    decades = math.log10(hi / lo)
    subs = (1.0,) if decades >= 2.5 else (1.0, 2.0, 5.0) if decades >= 1.2 else \
        (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs))
    ax.yaxis.set_minor_locator(LogLocator(base=10, subs=np.arange(1, 10)))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
    if label:
        ax.set_ylabel("throughput [GB/s]  (log scale)")


SIZE_LABEL = "array size: elements $2^k$ (top) and bytes of float32 (bottom)  (log₂ scale)"


def save(fig, out: Path, name: str, written: list[Path]):
    for ext in ("png", "svg"):
        path = out / f"{name}.{ext}"
        try:
            fig.savefig(path, bbox_inches="tight",
                        metadata={"Date": None} if ext == "svg" else None)
        except OSError as e:
            raise sc.InputError(f"{path}: cannot write: {e.strerror}") from None
        written.append(path)
    plt.close(fig)


def machine_title(speed_or_rows: pd.DataFrame, machine: str, device: str) -> str:
    """'label: model' for a machine's CPU or GPU."""
    rows = speed_or_rows[speed_or_rows["machine"] == machine]
    label = rows["label"].iloc[0] if not rows.empty else machine
    if device == "cpu":
        model = next((c for c in rows["cpu"] if c), "")
    else:
        model = next((g for g in rows["gpu"] if g), "")
    return f"{label}: {model}" if model else label


def machines_of(df: pd.DataFrame) -> list[str]:
    """The machines in df, ordered by label."""
    m = df[["machine", "label"]].drop_duplicates("machine").sort_values(["label", "machine"])
    return m["machine"].tolist()


def counts_suffix(rows: pd.DataFrame) -> str:
    """' (8 GPUs)', ' (4 ranks)': a series measured on more than one GPU or rank, whose GB/s is
    theirs together (the ceiling and peak lines are one device's)."""
    parts = [f"{int(rows[c].max())} {name}" for c, name in [("gpus", "GPUs"), ("ranks", "ranks")]
             if rows[c].max() > 1]
    return f" ({', '.join(parts)})" if parts else ""


# ---------------------------------------------------------------------------------------------
# 1. GB/s against size


def plot_gbps(speed: pd.DataFrame, beaten: pd.DataFrame, styles, traits, out: Path,
              written: list[Path]):
    """beaten: sc.beaten_ceilings() of the rows; the ceiling's beaten points are drawn hollow."""
    beaten = beaten.loc[beaten["beaten"], sc.BEATEN_KEY]
    panels = []  # (machine, device)
    for machine in machines_of(speed):
        devs = set(speed.loc[speed["machine"] == machine, "device"])
        panels += [(machine, d) for d in sc.DEVICES if d in devs]
        panels += [(machine, d) for d in sorted(devs - set(sc.DEVICES))]
    if not panels:
        return
    fig, axes = plt.subplots(len(panels), 1, figsize=(11, 4.8 * len(panels)), squeeze=False)
    for ax, (machine, device) in zip(axes[:, 0], panels):
        rows = speed[(speed["machine"] == machine) & (speed["device"] == device)]
        mixed = set(rows["timing"]) == {"isolated", "batched"}
        handles = []
        for b in sc.sort_backends(rows["backend"], traits):
            r = rows[rows["backend"] == b].sort_values("n")
            suffix = " (isolated)" if mixed and (r["timing"] == "isolated").all() else ""
            role = r["role"].iloc[-1]
            if role == "ceiling":
                h, = ax.plot(r["n"], r["gbps"], label=f"ceiling: {sc.series_label(b, device)}"
                             + suffix, **CEILING_STYLE)
                hit = r.merge(beaten, on=sc.BEATEN_KEY)
                if not hit.empty:
                    handles.append(h)
                    h, = ax.plot(hit["n"], hit["gbps"], label="hollow: a reduction with as many "
                                 "threads or fewer is > 2% faster:\nno ceiling there",
                                 **BEATEN_CEILING_STYLE)
            elif role != "reduction":
                h, = ax.plot(r["n"], r["gbps"], label=f"reference: {sc.series_label(b, device)}"
                             + suffix, **COPY_STYLE)
            else:
                h, = ax.plot(r["n"], r["gbps"], label=traits_label(b, device, traits) + suffix
                             + counts_suffix(r), markersize=5, linewidth=1.4, **styles[b])
            handles.append(h)
        # The device's memory peak says nothing about a PCIe-bound host->device series.
        peaks = rows["peak_gbps"].dropna().unique() if device != "cuda+h2d" else []
        for p in peaks:
            h = ax.axhline(p, label=f"theoretical peak {p:g} GB/s", **PEAK_STYLE)
            handles.append(h)
        threads = int(rows["threads"].max())
        ax.set_title(f"{machine_title(rows, machine, device)} — {DEVICE_TITLE.get(device, device)}"
                     + (f" (up to {threads} thread{'s' if threads > 1 else ''})"
                        if device == "cpu" else "")
                     + f"\n{sc.timing_note(rows)}; {sc.cache_note(rows)}", loc="left")
        size_ticks(ax, rows["n"])
        gbps_axis(ax)
        ax.set_xlabel(SIZE_LABEL)
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
                  ncol=1 if len(handles) <= 22 else 2, title=LEGEND_TITLE, alignment="left")
    fig.tight_layout()
    save(fig, out, "gbps", written)


# ---------------------------------------------------------------------------------------------
# 2. Relative error against size


def input_order(inp: str):
    return ({"ones": 0, "uniform": 1, "normal": 2}.get(inp, 3), inp)


def plot_error(err: pd.DataFrame, styles, traits, out: Path, written: list[Path]):
    if err.empty:
        return
    machines = machines_of(err)
    inputs = sorted(err["input"].unique(), key=input_order)
    vals = err["rel_error"]
    pos = vals[(vals > 0) & np.isfinite(vals)]
    has_zero = (vals == 0).any()
    has_nan = (~np.isfinite(vals)).any()  # nan, or inf when a backend overflowed
    has_inf = np.isinf(vals).any()
    lo_dec = math.floor(math.log10(pos.min())) if not pos.empty else -8
    hi_dec = math.ceil(math.log10(pos.max())) if not pos.empty else 0
    hi_dec = max(hi_dec, lo_dec + 1)
    # Exact zeros and NaNs get bands of their own below and above the log range; each backend has
    # its own lane in a band so that coinciding points stay visible.
    backends = sc.sort_backends(err["backend"], traits)
    # Decades either side of a band's centre: room for one lane per backend.
    band = max(0.5, 0.06 * (hi_dec - lo_dec), 0.09 * len(backends))
    zero_y = 10.0 ** (lo_dec - 2.6 * band)
    nan_y = 10.0 ** (hi_dec + 2.6 * band)
    spacing = min(0.45 * band, 1.5 * band / max(1, len(backends) - 1))
    lane = {b: (i - (len(backends) - 1) / 2) * spacing for i, b in enumerate(backends)}

    ncol = len(inputs)
    fig, axes = plt.subplots(len(machines), ncol, figsize=(3.6 * ncol + 0.6, (4.4 + 0.04 * len(backends)) * len(machines)),
                             squeeze=False, sharey=True)
    for row, machine in enumerate(machines):
        label = err.loc[err["machine"] == machine, "label"].iloc[0]
        for col, inp in enumerate(inputs):
            ax = axes[row, col]
            rows = err[(err["machine"] == machine) & (err["input"] == inp)]
            for b in backends:
                r = rows[rows["backend"] == b].sort_values("n")
                if r.empty:
                    continue
                st = styles[b]
                e = r["rel_error"].to_numpy(dtype=float)
                n = r["n"].to_numpy()
                finite = np.isfinite(e)
                y = np.where(e == 0, zero_y * 10 ** lane[b], e)
                ax.plot(n[finite], y[finite], color=st["color"], linestyle=st["linestyle"],
                        linewidth=1.2, zorder=2)
                nz = finite & (e > 0)
                ax.plot(n[nz], y[nz], linestyle="none", marker=st["marker"], color=st["color"],
                        markersize=5, zorder=3)
                z = e == 0
                ax.plot(n[z], y[z], linestyle="none", marker=st["marker"], markersize=6,
                        markerfacecolor="white", markeredgecolor=st["color"], markeredgewidth=1.5,
                        zorder=3)
                nn = ~finite
                ax.plot(n[nn], np.full(nn.sum(), nan_y * 10 ** lane[b]), linestyle="none",
                        marker="x", color=st["color"], markersize=6, markeredgewidth=1.5, zorder=3)
            ax.set_yscale("log")
            # The bands sit apart from the log range, with a rule between: a broken axis.
            if has_zero:
                ax.axhspan(zero_y / 10**band, zero_y * 10**band, color="#e8f4e8", zorder=0)
                ax.axhline(zero_y * 10**(1.5 * band), color="gray", linewidth=0.8,
                           linestyle=(0, (4, 2)), zorder=1)
            if has_nan:
                ax.axhspan(nan_y / 10**band, nan_y * 10**band, color="#f8e4e4", zorder=0)
                ax.axhline(nan_y / 10**(1.5 * band), color="gray", linewidth=0.8,
                           linestyle=(0, (4, 2)), zorder=1)
            bottom = zero_y / 10**(1.15 * band) if has_zero else 10.0 ** (lo_dec - 0.3)
            top = nan_y * 10**(1.15 * band) if has_nan else 10.0 ** (hi_dec + 0.3)
            ax.set_ylim(bottom, top)
            step = max(1, math.ceil((hi_dec - lo_dec) / 7))
            ticks = [10.0**d for d in range(lo_dec, hi_dec + 1, step)]
            labels = [f"$10^{{{d}}}$" for d in range(lo_dec, hi_dec + 1, step)]
            if has_zero:
                ticks.insert(0, zero_y)
                labels.insert(0, "0 (exact)")
            if has_nan:
                ticks.append(nan_y)
                labels.append("nan/inf" if has_inf else "nan")
            ax.yaxis.set_major_locator(FixedLocator(ticks))
            ax.yaxis.set_major_formatter(FuncFormatter(
                lambda y, i, t=ticks, lab=labels: lab[t.index(y)] if y in t else ""))
            ax.yaxis.set_minor_locator(NullLocator())
            ns = rows["n"] if not rows.empty else err["n"]
            size_ticks(ax, ns, max_ticks=5)
            ax.set_title(f"input: {inp}" + (f"\n{label}" if len(machines) > 1 else ""), loc="left")
            if col == 0:
                ax.set_ylabel("relative error |result−exact| / |exact|  (log scale)")
            if row == len(machines) - 1:
                ax.set_xlabel("elements / bytes (log₂)")
            if rows.empty:
                ax.text(0.5, 0.5, "no rows", transform=ax.transAxes, ha="center", color="gray")
    handles = [Line2D([], [], label=traits_label(b, "cuda", traits), linewidth=1.2, markersize=5,
                      **styles[b]) for b in backends]
    notes = [Line2D([], [], linestyle="none", marker="o", markerfacecolor="white",
                    markeredgecolor="black", label="hollow marker: error exactly 0")]
    if has_nan:
        notes.append(Line2D([], [], linestyle="none", marker="x", color="black",
                            label="x: nan (input held NaN/Inf)" + (" or inf" if has_inf else "")))
    fig.suptitle("Relative error against size, per input distribution (role=reduction backends)"
                 + (f" — {err['label'].iloc[0]}" if len(machines) == 1 else ""), x=0.01,
                 ha="left", fontweight="bold")
    fig.tight_layout()
    fig.legend(handles=handles + notes, loc="upper left", bbox_to_anchor=(1.0, 0.95),
               frameon=False, title=LEGEND_TITLE)
    save(fig, out, "error", written)


# ---------------------------------------------------------------------------------------------
# 3. Hardware comparison


def machine_label(rows: pd.DataFrame, machine: str) -> str:
    r = rows[rows["machine"] == machine]
    cpu = next((c for c in r["cpu"] if c), "")
    gpu = next((g for g in r["gpu"] if g), "")
    models = " / ".join(m for m in (cpu, gpu) if m)
    return r["label"].iloc[0] + (f" ({models})" if models else "")


def plot_hardware(speed: pd.DataFrame, traits, out: Path, written: list[Path]) -> str | None:
    s = speed
    machines = machines_of(s)
    if len(machines) < 2:
        return "hardware comparison skipped: the CSVs hold only one machine"
    s = s.assign(series=s["backend"] + "|" + s["device"])
    counts = s.groupby("series")["machine"].nunique()
    series = [k for k, v in counts.items() if v >= 2]
    if not series:
        return "hardware comparison skipped: no backend was measured on two machines"
    series.sort(key=lambda k: (sc.DEVICES.index(k.split("|")[1]) if k.split("|")[1] in sc.DEVICES
                               else 9, sc.backend_sort_key(k.split("|")[0], traits)))
    ncol = min(4, len(series))
    nrow = math.ceil(len(series) / ncol)
    top_in = 0.45 + 0.2 * len(machines)  # title and legend above the panels, in inches
    height = 3.1 * nrow + top_in
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.9 * ncol, height), squeeze=False)
    colors = {m: plt.get_cmap("tab10")(i % 10) for i, m in enumerate(machines)}
    markers = {m: MARKERS[i % len(MARKERS)] for i, m in enumerate(machines)}
    widths = {m: max(1.2, 3.2 - 0.8 * i) for i, m in enumerate(machines)}
    for ax, key in zip(axes.flat, series):
        b, device = key.split("|")
        rows = s[s["series"] == key]
        for m in machines:
            r = rows[rows["machine"] == m].sort_values("n")
            if not r.empty:  # earlier machines drawn wider, so that coinciding lines both show
                ax.plot(r["n"], r["gbps"], color=colors[m], marker=markers[m],
                        markersize=widths[m] + 3, linewidth=widths[m])
        ax.set_title(sc.series_label(b, device) + ("" if device == "cpu" else
                                                   f" ({sc.timing_short(rows, k=False)})"),
                     loc="left", fontsize=9.5)
        size_ticks(ax, s["n"], max_ticks=4)  # the same x range in every panel
        gbps_axis(ax, label=False)
        ax.tick_params(labelsize=8)
    for ax in axes.flat[len(series):]:
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
    save(fig, out, "hardware", written)
    return None


# ---------------------------------------------------------------------------------------------
# 4. The CUDA ladder


def plot_ladder(speed: pd.DataFrame, speed_all: pd.DataFrame, ladder: str, out: Path,
                written: list[Path]) -> str | None:
    """The backends matching the glob `ladder` as bars, in name order, per machine and device,
    with the ceiling of the same timing (from speed_all, which holds every timing)."""
    lad = speed[sc.matches(speed["backend"], [ladder]) & (speed["role"] == "reduction")]
    lad = lad[lad["n"].isin(LADDER_SIZES)]
    if lad.empty:
        return f"ladder plot skipped: no {ladder} rows at 2^20 or 2^30 elements"
    panels = [(m, d) for m in machines_of(lad)
              for d in sorted(set(lad.loc[lad["machine"] == m, "device"]), key=sc.device_rank)]
    sizes = [n for n in LADDER_SIZES if (lad["n"] == n).any()]
    steps = sorted(lad["backend"].unique())
    # The steps' names without the folder they all share, e.g. "cuda/ladder/".
    common = os.path.commonprefix(steps)
    prefix = common[:common.rfind("/") + 1]
    fig, axes = plt.subplots(len(panels), len(sizes), figsize=(7.2 * len(sizes), 0.42 * len(steps) * len(panels) + 2.0 * len(panels)),
                             squeeze=False)
    cmap = plt.get_cmap("viridis")
    for row, (machine, device) in enumerate(panels):
        for col, n in enumerate(sizes):
            ax = axes[row, col]
            rows = lad[(lad["machine"] == machine) & (lad["device"] == device) & (lad["n"] == n)]
            base = speed_all[(speed_all["machine"] == machine) & (speed_all["device"] == device)
                             & (speed_all["n"] == n) & (speed_all["role"] == "ceiling")
                             & speed_all["timing"].isin(rows["timing"])]
            present = [b for b in steps if (rows["backend"] == b).any()]
            ys = np.arange(len(present))
            vals = [float(rows.loc[rows["backend"] == b, "gbps"].iloc[0]) for b in present]
            colors = [cmap(0.15 + 0.7 * steps.index(b) / max(1, len(steps) - 1)) for b in present]
            ax.barh(ys, vals, color=colors, height=0.72, zorder=2)
            ax.set_yticks(ys, [b.removeprefix(prefix) for b in present])
            ax.invert_yaxis()
            xmax = max(vals) if vals else 1.0
            handles = []
            for _, c in base.iterrows():
                handles.append(ax.axvline(c["gbps"], label=f"ceiling {c['backend']} "
                                          f"{c['gbps']:.0f} GB/s", **CEILING_STYLE))
                xmax = max(xmax, c["gbps"])
            peak = rows["peak_gbps"].dropna()
            if not peak.empty:
                p = float(peak.iloc[0])
                handles.append(ax.axvline(p, label=f"theoretical peak {p:g} GB/s", **PEAK_STYLE))
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
            right.set_yticks(ys, texts, fontfamily="monospace", fontsize=8.5)
            right.tick_params(axis="y", length=0)
            right.grid(False)
            ax.grid(axis="y", visible=False)
            ax.set_xlabel("throughput [GB/s]  (linear)")
            ax.set_title(f"{machine_title(rows, machine, device)}\nn = $2^{{{round(math.log2(n))}}}$ "
                         f"elements ({sc.fmt_bytes(4 * n)}), {sc.timing_short(rows)}", loc="left")
            if handles:
                ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16),
                          frameon=False, ncol=2)
    fig.suptitle(f"Reduction ladder ({ladder}): GB/s of each step; ×: speed-up over the step before",
                 x=0.01, ha="left", fontweight="bold")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    save(fig, out, "ladder", written)
    return None


# ---------------------------------------------------------------------------------------------
# 5. GPU time per call: isolated against batched


def plot_gpu_timing(speed_all: pd.DataFrame, traits, out: Path, written: list[Path]) -> str | None:
    """µs per call against n, per machine: the ceiling and the GPU_TIMING_BACKENDS reduction
    backends with the most rows, each with its isolated (dashed) and batched (solid) curve."""
    g = speed_all[speed_all["device"] == "cuda"]
    both = g.groupby(["machine", "backend"])["timing"].transform("nunique") == 2
    g = g[both]
    if g.empty:
        return "gpu_timing plot skipped: no CUDA backend measured with both timings"
    machines = machines_of(g)
    fig, axes = plt.subplots(len(machines), 1, figsize=(11, 4.6 * len(machines)), squeeze=False)
    for ax, machine in zip(axes[:, 0], machines):
        rows = g[g["machine"] == machine]
        counts = rows[rows["role"] == "reduction"].groupby("backend")["samples"].sum()
        ranked = sorted(counts.index, key=lambda b: (-counts[b], sc.backend_sort_key(b, traits)))
        picked = sorted(rows.loc[rows["role"] == "ceiling", "backend"].unique()) + \
            ranked[:GPU_TIMING_BACKENDS]
        handles = []
        for i, b in enumerate(picked):
            ceiling = (rows.loc[rows["backend"] == b, "role"] == "ceiling").any()
            color = "black" if ceiling else plt.get_cmap("tab10")(i % 10)
            for timing, style in [("batched", "-"), ("isolated", (0, (4, 2)))]:
                r = rows[(rows["backend"] == b) & (rows["timing"] == timing)].sort_values("n")
                ax.plot(r["n"], r["time_ns"] / 1000, color=color, linestyle=style,
                        marker="o", markersize=4.5, linewidth=2.0 if ceiling else 1.4,
                        markerfacecolor=color if timing == "batched" else "white")
            handles.append(Line2D([], [], color=color, marker="o", linewidth=1.4,
                                  label=("ceiling: " if ceiling else "") + b))
        size_ticks(ax, rows["n"])
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
        ax.set_ylabel("µs per call  (log scale)")
        ax.set_xlabel(SIZE_LABEL)
        ax.set_title(f"{machine_title(rows, machine, 'cuda')}: time per call, "
                     f"{sc.timing_short(rows[rows['timing'] == 'batched'])} and isolated",
                     loc="left")
        keys = [Line2D([], [], color="gray", linestyle="-", marker="o",
                       label="batched: K calls back to back per timed region, time / K"),
                Line2D([], [], color="gray", linestyle=(0, (4, 2)), marker="o",
                       markerfacecolor="white", label="isolated: one call per timed region")]
        ax.legend(handles=handles + keys, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  frameon=False, title="backend", alignment="left")
    fig.suptitle("GPU time per call: isolated (submission latency in every call) against batched",
                 x=0.01, ha="left", fontweight="bold")
    fig.tight_layout()
    save(fig, out, "gpu_timing", written)
    return None


# ---------------------------------------------------------------------------------------------
# Optional: thread scaling


def plot_scaling(all_threads: pd.DataFrame, styles, traits, out: Path,
                 written: list[Path]) -> str | None:
    s = all_threads[(all_threads["device"] == "cpu") & (all_threads["ranks"] == 1)]
    counts = s.groupby(["machine", "backend", "n"])["threads"].nunique()
    sweeps = counts[counts >= 2]
    if sweeps.empty:
        return None
    # Per machine, the sizes with a sweep: one panel each (at most the two largest, to stay readable).
    panels = []
    for machine in machines_of(s):
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
            r = s[(s["machine"] == machine) & (s["backend"] == b) & (s["n"] == n)].sort_values("threads")
            tmax = max(tmax, int(r["threads"].max()))
            ceiling = traits.loc[b, "role"] == "ceiling"
            st = CEILING_STYLE if ceiling else dict(markersize=5, linewidth=1.4, **styles[b])
            h, = ax.plot(r["threads"], r["gbps"], **st)
            handles[b] = h
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator([2.0**k for k in range(0, int(math.log2(tmax)) + 1)]))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
        ax.xaxis.set_minor_locator(NullLocator())
        gbps_axis(ax)
        ax.set_xlabel("threads (log₂ scale)")
        ax.set_title(f"{machine_title(s, machine, 'cpu')}\nn = $2^{{{round(math.log2(n))}}}$ "
                     f"({sc.fmt_bytes(4 * n)})", loc="left")
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    order = sc.sort_backends(handles, traits)
    labels = [f"ceiling: {b}" if traits.loc[b, "role"] == "ceiling" else traits_label(b, "cpu", traits)
              for b in order]
    fig.suptitle("Thread scaling: GB/s against threads, for the sizes measured with several "
                 "thread counts", x=0.01, ha="left", fontweight="bold")
    fig.tight_layout()
    fig.legend([handles[b] for b in order], labels, loc="upper left",
               bbox_to_anchor=(1.0, 0.95), frameon=False, title=LEGEND_TITLE)
    save(fig, out, "scaling", written)
    return None


# ---------------------------------------------------------------------------------------------
# Optional: dispatch latency


def latency_rows(lat: pd.DataFrame, floats: int) -> pd.DataFrame:
    """The dispatch-latency points: CPU reduction rows of `floats` elements per thread, of the
    backends that ran with more than one thread on that machine (parallel ones, by their rows),
    one time per (machine, backend, threads): the newest rows, median over inputs."""
    r = lat[(lat["device"] == "cpu") & (lat["role"] == "reduction") & (lat["n"] == floats * lat["threads"])]
    parallel = r.groupby(["machine", "backend"])["threads"].transform("max") > 1
    return sc.speed_table(r[parallel], all_threads=True)


def plot_dispatch_latency(lat: pd.DataFrame, floats: int, styles, traits, out: Path,
                          written: list[Path]) -> str | None:
    """ns per call against threads at `floats` floats a thread: the cost of starting parallel
    work and collecting its partial sums, next to which summing one cache line is nothing."""
    rows = latency_rows(lat, floats) if not lat.empty else lat
    if rows.empty:
        return (f"dispatch_latency plot skipped: no parallel CPU rows of {floats} floats per thread "
                "(run accumulate_bench --sizes=per-thread:16 into results/latency/)")
    machines = machines_of(rows)
    fig, axes = plt.subplots(len(machines), 1, figsize=(10, 4.4 * len(machines)), squeeze=False)
    for ax, machine in zip(axes[:, 0], machines):
        m = rows[rows["machine"] == machine]
        handles = []
        for b in sc.sort_backends(m["backend"], traits):
            r = m[m["backend"] == b].sort_values("threads")
            h, = ax.plot(r["threads"], r["time_ns"], label=traits_label(b, "cpu", traits),
                         markersize=5, linewidth=1.4, **styles[b])
            handles.append(h)
        tmax = int(m["threads"].max())
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator([2.0**k for k in range(0, int(math.log2(tmax)) + 1)]))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
        ax.xaxis.set_minor_locator(NullLocator())
        gbps_axis(ax, label=False)  # a log axis with plain-number ticks, whatever it measures
        ax.set_xlabel("threads (log₂ scale)")
        ax.set_ylabel("ns per call  (log scale)")
        ax.set_title(f"{machine_title(m, machine, 'cpu')}\n{floats} floats ({sc.fmt_bytes(4 * floats)}) "
                     "per thread; isolated, warm cache", loc="left")
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
                  title=LEGEND_TITLE, alignment="left")
    fig.suptitle("Dispatch latency: time per call on tiny inputs against threads (parallel CPU "
                 "backends)", x=0.01, ha="left", fontweight="bold")
    fig.tight_layout()
    save(fig, out, "dispatch_latency", written)
    return None


# ---------------------------------------------------------------------------------------------
# Optional: scaling over GPUs and MPI ranks


def scale_out_sizes(series: pd.DataFrame) -> list[int]:
    """SCALE_OUT_SIZES that were measured, or else the largest size measured."""
    measured = set(series["n"])
    sizes = [n for n in SCALE_OUT_SIZES if n in measured]
    return sizes or [max(measured)]


def plot_scale_out(series: pd.DataFrame, styles, traits, out: Path,
                   written: list[Path]) -> str | None:
    """GB/s against the GPU count and against the rank count (rows), per size (columns), one
    line per backend (and timing, where both were measured), each with its ideal line: the
    1-GPU (1-rank) GB/s times the count."""
    if series.empty:
        return "scale_out plot skipped: no backend was measured at several GPU or rank counts"
    axes_kinds = [a for a in SCALE_OUT_AXES if (series["axis"] == a).any()]
    sizes = scale_out_sizes(series)
    fig, axes = plt.subplots(len(axes_kinds), len(sizes), figsize=(4.6 * len(sizes) + 2.6,
                             4.0 * len(axes_kinds)), squeeze=False)
    handles = {}
    for row, kind in enumerate(axes_kinds):
        for col, n in enumerate(sizes):
            ax = axes[row, col]
            s = series[(series["axis"] == kind) & (series["n"] == n)]
            most = 1
            machines = machines_of(s) if not s.empty else []
            for machine in machines:
                for (b, timing), r in s[s["machine"] == machine].groupby(["backend", "timing"]):
                    r = r.sort_values("count")
                    most = max(most, int(r["count"].max()))
                    label = f"{b} ({timing})" + (f" — {r['label'].iloc[0]}" if len(machines) > 1 else "")
                    st = dict(markersize=5, linewidth=1.4, **styles[b])
                    if timing == "isolated":
                        st["linestyle"] = "--"
                    h, = ax.plot(r["count"], r["gbps"], **st)
                    handles[label] = h
                    if r["ideal"].notna().any():
                        ax.plot(r["count"], r["ideal"], color=h.get_color(), **IDEAL_STYLE)
            if s.empty:
                ax.text(0.5, 0.5, "not measured at this size", ha="center", va="center",
                        transform=ax.transAxes, color="gray")
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_locator(FixedLocator([2.0**k for k in range(0, int(math.log2(most)) + 1)]))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
            ax.xaxis.set_minor_locator(NullLocator())
            gbps_axis(ax)
            ax.set_xlabel(SCALE_OUT_AXES[kind])
            ax.set_title(f"n = $2^{{{round(math.log2(n))}}}$ ({sc.fmt_bytes(4 * n)})", loc="left")
    handles["ideal: the 1-GPU (1-rank) GB/s × count"] = Line2D([], [], color="gray", **IDEAL_STYLE)
    fig.suptitle("Scaling out: GB/s (the whole input's bytes / time) against GPUs and MPI ranks",
                 x=0.01, ha="left", fontweight="bold")
    fig.tight_layout()
    fig.legend(list(handles.values()), list(handles), loc="upper left", bbox_to_anchor=(1.0, 0.95),
               frameon=False, title=LEGEND_TITLE)
    save(fig, out, "scale_out", written)
    return None


def scale_out_markdown(series: pd.DataFrame) -> list[str]:
    """The summary's section: GB/s per GPU and rank count, with the efficiency against ideal."""
    if series.empty:
        return []
    lines = ["## Scaling out: GB/s per GPU count and per rank count", "",
             "Efficiency = GB/s / (the 1-GPU or 1-rank GB/s × count).", "",
             "| machine | backend | timing | axis | n | GB/s by count (efficiency) |", "|---|---|---|---|---|---|"]
    for (machine, backend, timing, axis, n), r in series.groupby(
            ["machine", "backend", "timing", "axis", "n"], sort=True):
        cells = [f"{int(c)}: {sc.fmt_gbps(g)}" + (f" ({e:.0%})" if c > 1 and math.isfinite(e) else "")
                 for c, g, e in zip(r["count"], r["gbps"], r["efficiency"])]
        lines.append(f"| {r['label'].iloc[0]} | `{backend}` | {timing} | {axis} | {sc.fmt_n(n)} | "
                     f"{'; '.join(cells)} |")
    return lines + [""]


# ---------------------------------------------------------------------------------------------
# 6. Markdown summary


def summary_markdown(speed: pd.DataFrame, speed_all: pd.DataFrame, err: pd.DataFrame,
                     files: list[str], filters: str, timing: str,
                     scale_out: pd.DataFrame | None = None) -> str:
    sp = sc.with_ceiling(speed, reference=speed_all)
    lines = ["# Accumulate shootout — summary", ""]
    lines.append(f"From: {', '.join(files)}" + (f"  \nFilter: `{filters}`" if filters else ""))
    lines += ["",
              "Rules: machines are told apart by the `machine` column; repeated measurements → "
              "the newest row; GB/s is the median over the inputs and seeds measured, at the "
              f"largest thread count; GPU rows use the {timing} timing where a backend has it "
              "(CPU rows are isolated); the ceiling is the backend with role `ceiling` at the same "
              "machine, device, timing and size. Only role `reduction` backends contend. "
              "Most accurate = the smallest worst-case relative error over the input "
              "distributions (NaN inputs left out), among the backends measured on all of them; "
              "ties go to the faster one.", ""]
    for machine in machines_of(sp):
        devices = sorted(set(sp.loc[sp["machine"] == machine, "device"]), key=sc.device_rank)
        for device in devices:
            rows = sp[(sp["machine"] == machine) & (sp["device"] == device)]
            lines.append(f"## {machine_title(rows, machine, device)} — {device}")
            lines.append("")
            lines.append(f"Machine `{machine}`; {sc.timing_note(rows)}; {sc.cache_note(rows)}.")
            lines.append("")
            lines.append("| n | bytes | fastest backend | GB/s | % of ceiling | threads | timing "
                         "| most accurate | worst rel. error |")
            lines.append("|---|---|---|---|---|---|---|---|---|")
            for n in sorted(rows["n"].unique()):
                at = rows[(rows["n"] == n) & (rows["role"] == "reduction")]
                if at.empty:
                    continue
                best = at.sort_values(["gbps", "backend"], ascending=[False, True]).iloc[0]
                pct = best["pct_ceiling"]
                pct_text = f"{pct:.0f}%" if math.isfinite(pct) else "— (no ceiling)"
                acc, acc_err = most_accurate(err, at.set_index("backend")["gbps"], machine,
                                             device, n)
                lines.append(
                    f"| {sc.fmt_n(n)} | {sc.fmt_bytes(4 * n)} | `{best['backend']}` | "
                    f"{sc.fmt_gbps(best['gbps'])} | {pct_text} | {int(best['threads'])} | "
                    f"{sc.timing_short(at[at['backend'] == best['backend']])} | "
                    f"{acc} | {acc_err} |")
            lines.append("")
    if scale_out is not None:
        lines += scale_out_markdown(scale_out)
    return "\n".join(lines)


def most_accurate(err: pd.DataFrame, gbps: pd.Series, machine: str, device: str, n: int):
    """The backend with the smallest worst-case error over the inputs, as markdown, and that error.
    Only backends measured on as many inputs as the best-covered one compete; ties go to the
    faster one (by `gbps`) and are named."""
    if device == "cuda+h2d":
        device = "cuda"  # the same kernels: their accuracy is in the cuda rows
    e = err[(err["machine"] == machine) & (err["device"] == device) & (err["n"] == n)]
    e = e[e["rel_error"].notna()]
    if e.empty:
        return "—", "—"
    per = e.groupby("backend").agg(worst=("rel_error", "max"), inputs=("input", "nunique"))
    per = per[per["inputs"] == per["inputs"].max()]
    per["neg_gbps"] = [-float(gbps.get(b, 0.0)) for b in per.index]
    per = per.sort_values(["worst", "neg_gbps"])
    top = per.iloc[0]
    ties = per[per["worst"] == top["worst"]].index.tolist()
    if len(ties) == 1:
        name = f"`{ties[0]}`"
    elif len(ties) <= 3:
        name = ", ".join(f"`{b}`" for b in ties) + " (tied)"
    else:
        name = f"`{ties[0]}` (+{len(ties) - 1} tied)"
    return name, sc.fmt_error(float(top["worst"]))


# ---------------------------------------------------------------------------------------------


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description="Plots and a markdown summary from Accumulate Shootout CSV files.")
    p.add_argument("csv", nargs="*", help="CSV files (default: results/*.csv)")
    p.add_argument("--out", type=Path, default=sc.default_out_dir(),
                   help="output directory (default: results/plots)")
    p.add_argument("--backend", action="append", metavar="GLOB",
                   help="only backends matching this glob, e.g. 'cpu/avx2/*' (repeatable); "
                        "role=ceiling rows are always kept as the ceiling")
    p.add_argument("--input", action="append", metavar="NAME",
                   help="only this input distribution: ones, uniform, normal, file:NAME (repeatable)")
    p.add_argument("--host", action="append", metavar="NAME",
                   help="only machines with this host name (repeatable)")
    p.add_argument("--machine", action="append", metavar="ID",
                   help="only this machine, as in the CSV's machine column (repeatable)")
    p.add_argument("--device", action="append", choices=sc.DEVICES, help="only this device (repeatable)")
    p.add_argument("--threads", type=int, metavar="N",
                   help="use the largest thread count not above N (default: the largest)")
    p.add_argument("--timing", choices=sc.TIMINGS, default=sc.DEFAULT_TIMING,
                   help="GPU timing to plot: batched (K calls back to back per timed region, "
                        "time / K; the default) or isolated (one call per timed region); CPU rows "
                        "are always isolated")
    p.add_argument("--ladder", metavar="GLOB", default=DEFAULT_LADDER,
                   help=f"backends for the ladder plot (default: {DEFAULT_LADDER}); they are left "
                        "out of the other plots unless --backend names them")
    p.add_argument("--latency-csv", action="append", metavar="CSV",
                   help="CSV files of the dispatch-latency runs (--sizes=per-thread:N; default, "
                        f"when no CSV is named: {DEFAULT_LATENCY_GLOB}); repeatable")
    p.add_argument("--latency-floats", type=int, default=LATENCY_FLOATS, metavar="N",
                   help=f"floats per thread of the dispatch_latency plot (default {LATENCY_FLOATS})")
    return p.parse_args(argv)


def read_latency(args) -> pd.DataFrame:
    """The dispatch-latency rows: --latency-csv's files, or by default (no CSV named at all) the
    ones under results/latency/; empty when there are none."""
    if args.latency_csv:
        return sc.read_csvs(args.latency_csv)
    found = sorted(sc.REPO_ROOT.glob(DEFAULT_LATENCY_GLOB)) if not args.csv else []
    return sc.read_csvs([str(p) for p in found]) if found else pd.DataFrame()


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.threads is not None and args.threads < 1:
        raise sc.InputError("--threads must be at least 1")
    raw = sc.read_csvs(args.csv)
    files = sorted(raw["source"].unique())
    df = sc.apply_filters(raw, backend=args.backend, input=args.input, host=args.host,
                          machine=args.machine, device=args.device, keep_ceilings=True)
    if args.threads is not None and not (df["threads"] <= args.threads).any():
        raise sc.InputError(f"no rows match the filter --threads {args.threads} "
                            f"(fewest threads present: {int(df['threads'].min())})")
    filters = sc.describe_filters(backend=args.backend, input=args.input, host=args.host,
                                  machine=args.machine, device=args.device)
    if args.threads is not None:
        filters = (filters + f" --threads {args.threads}").strip()
    latency = read_latency(args)
    traits = sc.backend_traits(pd.concat([raw, latency]) if not latency.empty else raw)
    styles = make_styles(traits)
    timed = sc.speed_rows(df, explicit_input=bool(args.input))
    speed_all = sc.speed_table(timed, threads=args.threads)  # both timings
    speed = sc.select_timing(speed_all, args.timing)
    err = sc.error_table(sc.select_timing(df, args.timing), threads=args.threads)
    # The ladder's backends have their own plot unless --backend asks for them.
    if not args.backend:
        speed_main = speed[~(sc.matches(speed["backend"], [args.ladder])
                             & (speed["role"] == "reduction"))]
        err = err[~sc.matches(err["backend"], [args.ladder])]
        timed_main = timed[~(sc.matches(timed["backend"], [args.ladder])
                             & (timed["role"] == "reduction"))]
        speed_all_main = sc.speed_table(timed_main, threads=args.threads)
    else:
        speed_main, speed_all_main = speed, speed_all

    out = args.out
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise sc.InputError(f"{out}: cannot create the output directory: {e.strerror}") from None
    written: list[Path] = []
    notes = []
    fallbacks = sc.timing_fallbacks(df, args.timing)
    if fallbacks:
        other = next(t for t in sc.TIMINGS if t != args.timing)
        notes.append(f"no {args.timing} rows, drawn {other}: {', '.join(fallbacks)}")
    all_counts = sc.speed_table(timed, all_threads=True)
    beaten = sc.beaten_ceilings(all_counts)
    plot_gbps(speed_main, beaten, styles, traits, out, written)
    plot_error(err, styles, traits, out, written)
    notes.append(plot_hardware(speed_main, traits, out, written))
    notes.append(plot_ladder(speed, speed_all, args.ladder, out, written))
    notes.append(plot_gpu_timing(speed_all_main, traits, out, written))
    notes.append(plot_scaling(all_counts, styles, traits, out, written))
    notes.append(plot_dispatch_latency(latency, args.latency_floats, styles, traits, out, written))
    scale_out = sc.scale_out(all_counts)
    notes.append(plot_scale_out(scale_out, styles, traits, out, written))
    notes.append(plot_accuracy_speed(sc.select_timing(df, args.timing), styles, out, written, save))
    summary = out / "summary.md"
    summary.write_text(summary_markdown(speed_main, speed_all, err, files, filters, args.timing,
                                        scale_out) + "\n")
    written.append(summary)
    # A plot this run did not draw must not survive from an earlier run with other data.
    for name in PLOT_NAMES:
        for ext in ("png", "svg"):
            stale = out / f"{name}.{ext}"
            if stale not in written and stale.exists():
                stale.unlink()
                notes.append(f"removed {stale}: not drawn from this data")
    for note in notes:
        if note:
            print(f"note: {note}", file=sys.stderr)
    print(f"read {len(raw)} rows from {len(files)} file(s); wrote {len(written)} files to {out}:")
    for path in written:
        print(f"  {path}")
    return 0


if __name__ == "__main__":
    sc.run_cli(main)
