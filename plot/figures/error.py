"""How does each way of summing lose accuracy as the input grows? Relative error against size, a
panel per input distribution, one line per way of summing (element type, accumulator, order): the series of
it measured most widely, its error the median over the machines that measured it (an algorithm's
error depends on its order of additions, not on the machine). role=reduction series only. Exact
zeros and NaNs get bands of their own below and above the log range."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

import shootout_csv as sc
import style

NAME = "error"
ROW_HEIGHT = 2.9


def input_order(inp: str):
    return ({"ones": 0, "uniform": 1, "normal": 2}.get(inp, 3), inp)


def families(err: pd.DataFrame, traits: pd.DataFrame) -> pd.DataFrame:
    """err reduced to one series per family, machines merged (median; NaN where every machine's is)."""
    merged = err.groupby(["series", "dtype", "device", "input", "n"], sort=False).agg(
        rel_error=("rel_error", lambda s: s.median() if s.notna().any() else math.nan),
        bytes=("bytes", "last")).reset_index()
    merged = merged.join(traits[["accumulator", "order"]], on="series")
    points = merged.groupby(["series", "dtype", "accumulator", "order"]).size().rename("points").reset_index()
    best = points.sort_values(["points", "series"], ascending=[False, True]).drop_duplicates(sc.ERROR_FAMILY)
    return merged[merged["series"].isin(best["series"])]


def draw(t, out: Path, written: list[Path]) -> str | None:
    if t.errors.empty:
        return None
    plot_error(families(t.errors, t.traits), t.styles, t.traits, out, written)
    return None


def plot_error(err: pd.DataFrame, styles, traits, out: Path, written: list[Path]):
    if err.empty:
        return
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
    backends = sc.sort_backends(err["series"], traits)
    # Decades either side of a band's centre: room for one lane per backend.
    band = max(0.5, 0.06 * (hi_dec - lo_dec), 0.09 * len(backends))
    zero_y = 10.0 ** (lo_dec - 2.6 * band)
    nan_y = 10.0 ** (hi_dec + 2.6 * band)
    spacing = min(0.45 * band, 1.5 * band / max(1, len(backends) - 1))
    lane = {b: (i - (len(backends) - 1) / 2) * spacing for i, b in enumerate(backends)}

    ncol = 2 if len(inputs) > 1 else 1
    nrow = math.ceil(len(inputs) / ncol)
    has_nan_marker = (~np.isfinite(err["rel_error"])).any()
    fig, axes = style.figure(nrow, ncol, ROW_HEIGHT, "Relative error against size, per input: one line per "
                             "family, the median over the machines",
                             extra=style.legend_height(len(backends) + 1 + has_nan_marker, 2), sharey=True)
    for ax in axes.flat[len(inputs):]:
        ax.set_visible(False)
    if True:
        for col, (ax, inp) in enumerate(zip(axes.flat, inputs)):
            rows = err[err["input"] == inp]
            for b in backends:
                r = rows[rows["series"] == b].sort_values("n")
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
            ns = rows if not rows.empty else err
            style.size_ticks(ax, ns, max_ticks=5)
            ax.set_title(f"input: {inp}", loc="left")
            if col % ncol == 0:
                ax.set_ylabel("relative error (log)")
            ax.set_xlabel("elements / bytes (log₂)" if style.element_bytes(ns) else "elements (log₂)")
            if rows.empty:
                ax.text(0.5, 0.5, "no rows", transform=ax.transAxes, ha="center", color="gray")
    handles = [Line2D([], [], label=style.traits_label(b, "cuda", traits), linewidth=1.2, markersize=5,
                      **styles[b]) for b in backends]
    notes = [Line2D([], [], linestyle="none", marker="o", markerfacecolor="white",
                    markeredgecolor="black", label="hollow marker: error exactly 0")]
    if has_nan:
        notes.append(Line2D([], [], linestyle="none", marker="x", color="black",
                            label="x: nan (input held NaN/Inf)" + (" or inf" if has_inf else "")))
    fig.legend(handles=handles + notes, loc="outside lower left", ncol=2, frameon=False,
               title=style.LEGEND_TITLE)
    style.save(fig, out, NAME, written)
