"""The look shared by every figure: colours, markers and dashes per series, fonts, titles, the
size and GB/s axes, and saving.

A series' hue comes from its `accumulator` trait and its marker from its `order`; series sharing
both differ in shade and dash. Nothing here reads a backend's name."""

from __future__ import annotations

import io
import math
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator  # noqa: E402

import output_files  # noqa: E402
import shootout_csv as sc  # noqa: E402

DEVICE_TITLE = {"cpu": "CPU", "cuda": "GPU (CUDA, device memory)",
                "cuda+h2d": "GPU incl. host→device copy"}
DTYPE_TITLE = {"f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16"}
ACCUMULATOR_COLORS = {"f32": "#1f77b4", "compensated_f32": "#2ca02c", "f64": "#ff7f0e",
                      "compensated_f64": "#8c6d31", "exact": "#9467bd", "none": "#7f7f7f",
                      "tf32": "#d62728", "tf32_split": "#ff9896", "f16": "#e7ba52", "bf16": "#17becf"}
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
BEATEN_CEILING_STYLE = dict(linestyle="none", marker="o", markersize=9, markerfacecolor="white",
                            markeredgecolor="black", markeredgewidth=1.6, zorder=4)
IDEAL_STYLE = dict(linestyle=(0, (1, 2)), linewidth=1.3, marker="")
LEGEND_TITLE = "backend · accumulator, order\n(hue: accumulator, marker: order)"
ROOFLINE_STYLE = dict(color="black", linestyle=(0, (6, 3)), linewidth=2.0, zorder=1)

# Every figure is FIGURE_WIDTH inches wide at DPI: 990 pixels, the width the README shows it at
# (GitHub's column), so that its text is read at the size it was set in. Its height is a header
# plus its rows of panels (figure_height), fixed: no tight bounding box that changes the size.
DPI = 110
FIGURE_WIDTH = 9.0
HEADER_HEIGHT = 0.45  # the figure's title

plt.rcParams.update({
    "figure.dpi": DPI, "savefig.dpi": DPI, "font.size": 10, "axes.titlesize": 10,
    "axes.labelsize": 9.5, "xtick.labelsize": 8.5, "ytick.labelsize": 8.5,
    "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.6, "legend.fontsize": 8,
    "legend.title_fontsize": 8, "svg.hashsalt": "accumulate-shootout", "axes.titleweight": "bold",
    "figure.titlesize": 11.5, "figure.titleweight": "bold",
    "svg.fonttype": "none",  # text stays text in the SVG: smaller, searchable, testable
})


def figure_height(rows: int, row_height: float, extra: float = 0.0) -> float:
    """Inches: the title's header, `rows` rows of panels `row_height` high, and `extra` below them
    (a legend under the panels, legend_height())."""
    return HEADER_HEIGHT + rows * row_height + extra


def figure_pixels(rows: int, row_height: float, extra: float = 0.0) -> tuple[int, int]:
    """The PNG's (width, height) in pixels of such a figure."""
    return int(FIGURE_WIDTH * DPI), int(figure_height(rows, row_height, extra) * DPI)  # as Agg truncates


def legend_height(entries: int, columns: int) -> float:
    """Inches that a legend of `entries` in `columns` columns, with a title, takes under the panels."""
    return 0.45 + 0.19 * math.ceil(entries / columns)


def figure(rows: int, cols: int, row_height: float, title: str, extra: float = 0.0, **subplots):
    """A figure of rows x cols panels at the README's width, and `extra` inches for a legend under
    them, laid out by matplotlib's constrained layout (titles, labels and legends outside the axes
    are kept inside the figure), with its title on the left."""
    fig, axes = plt.subplots(rows, cols, figsize=(FIGURE_WIDTH, figure_height(rows, row_height, extra)),
                             squeeze=False, layout="constrained", **subplots)
    fig.suptitle(title, x=0.01, ha="left")
    return fig, axes


def legend_right(ax, handles, title=None, **kw):
    """The panel's legend beside it, on the right, in a small font: constrained layout narrows the
    panel to make room."""
    return ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
                     borderaxespad=0, title=title, alignment="left", **kw)


def wrapped(text: str, width: int = 48) -> str:
    """text broken into lines of at most `width` characters, for a legend's title."""
    return textwrap.fill(text, width)


def place_labels(ax, texts, points_x, points_y):
    """Moves overlapping point labels apart (adjustText), with a thin line to their point."""
    from adjustText import adjust_text
    if texts:
        adjust_text(texts, x=list(points_x), y=list(points_y), ax=ax, expand=(1.15, 1.4),
                    arrowprops=dict(arrowstyle="-", color="gray", lw=0.5))


def shade(color: str, amount: float):
    rgb = np.array(matplotlib.colors.to_rgb(color))
    target = np.ones(3) if amount > 0 else np.zeros(3)
    return tuple(rgb + (target - rgb) * abs(amount))


def make_styles(traits: pd.DataFrame) -> dict[str, dict]:
    """A style per series, from its traits: hue by accumulator, marker by order; members of one
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


def traits_label(series: str, device: str, traits: pd.DataFrame) -> str:
    """The legend entry: name, accumulator and order, e.g. 'cpu/avx2/f32 · f32, lanes'."""
    t = traits.loc[series]
    return f"{sc.series_label(series, device)} · {t['accumulator']}, {t['order']}"


def element_bytes(rows: pd.DataFrame) -> int | None:
    """The bytes per element of rows (their `bytes` / `n`), or None where they hold several."""
    sizes = set((rows["bytes"] // rows["n"]).astype(int))
    return sizes.pop() if len(sizes) == 1 else None


def size_label(rows: pd.DataFrame) -> str:
    """The size axis' label: what the bytes under each 2^k are of, or that they differ."""
    names = "/".join(DTYPE_TITLE.get(d, d) for d in sorted(set(rows["dtype"])))
    if element_bytes(rows) is None:
        return "array size: elements $2^k$ (log₂; bytes differ by element type)"
    return f"array size: elements $2^k$ (top) and bytes of {names} (bottom)  (log₂ scale)"


def bytes_text(nbytes) -> str:
    """'4 MiB', or '4 MiB / 8 MiB' for byte counts of several element types."""
    return " / ".join(sc.fmt_bytes(b) for b in sorted(set(nbytes)))


def size_title(n: int, rows: pd.DataFrame) -> str:
    """'n = 2^k (bytes)' for a panel of size n; rows: those at n, whose `bytes` are shown."""
    return f"n = $2^{{{round(math.log2(n))}}}$ ({bytes_text(rows['bytes'])})"


def size_ticks(ax, rows: pd.DataFrame, max_ticks=8, bytes_line=True):
    """log2 x axis over rows' `n`: ticks at 2^k with the bytes under each, from the rows' `bytes`
    (none where the rows' element sizes differ)."""
    ks = [math.log2(n) for n in rows["n"] if n > 0]
    lo, hi = math.floor(min(ks)), math.ceil(max(ks))
    if hi == lo:
        lo, hi = lo - 1, hi + 1
    # Ticks at multiples of a round step, so that 2^20 and 2^30 are labelled when in range.
    for step in (1, 2, 5, 10, 20):
        ticks = [k for k in range(lo, hi + 1) if k % step == 0]
        if len(ticks) <= max_ticks:
            break
    size = element_bytes(rows) if bytes_line else None
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator([2.0**k for k in ticks]))
    ax.xaxis.set_minor_locator(FixedLocator([2.0**k for k in range(lo, hi + 1)]))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.xaxis.set_major_formatter(FuncFormatter(
        lambda x, _: f"$2^{{{round(math.log2(x))}}}$" + (f"\n{sc.fmt_bytes(size * x)}" if size else "")))
    pad = 0.35
    ax.set_xlim(2.0 ** (lo - pad), 2.0 ** (hi + pad))


def count_axis(ax, most: int, label: str):
    """log2 x axis of a count (threads, GPUs, ranks), a tick at each power of two up to `most`."""
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator([2.0**k for k in range(0, int(math.log2(most)) + 1)]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel(label)


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


def save(fig, out: Path, name: str, written: list[Path]):
    """Writes fig as out/name.png and out/name.svg (reproducible: no date, fixed hash salt), at the
    figure's own size."""
    for ext in ("png", "svg"):
        path = out / f"{name}.{ext}"
        image = io.BytesIO()
        fig.savefig(image, format=ext, metadata={"Date": None} if ext == "svg" else None)
        try:
            output_files.replace_file(path, image.getvalue(), "--out")
        except output_files.OutputError as e:
            raise sc.InputError(str(e)) from None
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
