"""Why does one backend win small inputs and another tie at large ones? The cost model
t(bytes) = t0 + bytes / r_inf (Hockney) against the measured time per call, per machine and device
(GPUs; the CPU when there is none): the points measured, the fitted line, and in the legend t0 and
r_inf. Drawn for the ceiling and the reductions of the fastest series' accumulator (the family
that contends for the top), at most MOST_SERIES of them (those that fit first, by r_inf), and the
launch floor. A fit is drawn over its band's sizes only where it is a model (sc.cost_model: within
its error bound); the legend says why the others do not fit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.ticker import FuncFormatter

import shootout_csv as sc
import style

NAME = "cost_model"
ROW_HEIGHT = 3.3
MOST_SERIES = 6


def panels_of(cost) -> list[tuple[str, str]]:
    devices = cost[cost["device"] != "cpu"] if (cost["device"] != "cpu").any() else cost
    devices = devices[~devices["device"].str.endswith("+h2d")]
    return [(m, d) for m in style.machines_of(devices)
            for d in sorted(set(devices.loc[devices["machine"] == m, "device"]), key=lambda d: (sc.device_rank(d), d))]


def chosen(fits, speed):
    """The ceiling and the reductions sharing the accumulator of the fastest reduction at the
    largest size, at most MOST_SERIES: those whose model fits first, by r_inf."""
    red = speed[speed["role"] == "reduction"]
    top = red[red["n"] == red["n"].max()].sort_values("gbps", ascending=False)
    accumulator = top["accumulator"].iloc[0] if not top.empty else "f32"
    contenders = fits[(fits["role"] == "reduction") & (fits["accumulator"] == accumulator)]
    contenders = contenders.sort_values(["fits", "r_inf", "series"], ascending=[False, False, True]).drop_duplicates("series")
    return [*fits.loc[fits["role"] == "ceiling", "series"].unique(), *contenders["series"].head(MOST_SERIES)]


def draw(t, out: Path, written: list[Path]) -> str | None:
    cost = t.cost[t.cost["sizes"] >= sc.COST_MODEL_MIN_SIZES]
    if cost.empty:
        return "cost_model: no series measured at enough sizes to fit"
    panels = panels_of(cost)
    fig, axes = style.figure(len(panels), 1, ROW_HEIGHT, "Cost model: time per call = t0 + bytes / r∞ "
                             "(lines, where it fits) against the measured times (points)")
    for ax, (machine, device) in zip(axes[:, 0], panels):
        fits = cost[(cost["machine"] == machine) & (cost["device"] == device)]
        speed = t.speed[(t.speed["machine"] == machine) & (t.speed["device"] == device)]
        handles = []
        # One accumulator's series share a hue in the other figures: here each has its own.
        for i, b in enumerate(chosen(fits, speed)):
            bands = fits[fits["series"] == b]
            r = speed[speed["series"] == b].sort_values("bytes")
            ceiling = bands["role"].iloc[0] == "ceiling"
            name = f"{'ceiling: ' if ceiling else ''}{b}"
            st = dict(color="black" if ceiling else style.plt.get_cmap("tab10")(i % 10))
            marker = "o" if ceiling else t.styles[b]["marker"]
            h, = ax.plot(r["bytes"], r["time_ns"] / 1000, linestyle="none", marker=marker, markersize=4.5,
                         label=f"{name}\ndoes not fit: {'; '.join(bands['reason'])}", **st)
            if not bands["fits"].any():
                handles.append(h)
            for _, fit in bands[bands["fits"]].iterrows():
                nbytes = np.geomspace(fit["bytes_lo"], fit["bytes_hi"], 100)
                where = "" if fit["band"] == sc.ALL_SIZES else f" in {fit['band']}"
                h, = ax.plot(nbytes, (fit["t0_ns"] + nbytes / fit["r_inf"]) / 1000, linewidth=1.3,
                             linestyle=(0, (5, 2)) if ceiling else "-", marker=marker, markevery=[],
                             label=f"{name}{where}\nt0 {fit['t0_ns'] / 1000:.3g} µs, r∞ {sc.fmt_gbps(fit['r_inf'])} GB/s, "
                                   f"n½ {sc.fmt_bytes(fit['n_half_bytes'])}", **st)
                handles.append(h)
        floor = speed[speed["role"] == "launch_floor"]
        if not floor.empty:
            handles.append(ax.axhline(floor["time_ns"].min() / 1000, color="gray", linestyle=":", linewidth=1.3,
                                      label=f"launch floor {floor['time_ns'].min() / 1000:.3g} µs"))
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: sc.fmt_bytes(x)))
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
        ax.set_xlabel("bytes per call (log₂)")
        ax.set_ylabel("µs per call (log)")
        ax.set_title(f"{style.machine_title(speed, machine, device)} — {style.DEVICE_TITLE.get(device, device)}, "
                     f"{sc.timing_short(speed, k=False)}", loc="left")
        style.legend_right(ax, handles, labelspacing=0.8)
    style.save(fig, out, NAME, written)
    return None
