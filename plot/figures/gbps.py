"""How fast is each way of summing, at each size? GB/s against size, a panel per machine and
device (the CPU and CUDA: OpenCL and Vulkan rows are in portable; one GPU or none: multi-GPU rows
are in scale_out; +h2d rows are in the report), one line per family (element type, accumulator):
its fastest series. With the ceiling (on GPUs the
roofline max(launch floor, bytes / best read)) and the theoretical peak."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import shootout_csv as sc
import style

NAME = "gbps"
ROW_HEIGHT = 3.3


def panels_of(speed) -> list[tuple[str, str]]:
    """(machine, device) of every panel, in order: machines by label, devices in sc.DEVICES order."""
    panels = []
    for machine in style.machines_of(speed):
        devs = set(speed.loc[speed["machine"] == machine, "device"]) & {d for d in sc.DEVICES if not d.endswith("+h2d")}
        panels += [(machine, d) for d in sorted(devs, key=sc.device_rank)]
    return panels


def draw(t, out: Path, written: list[Path]) -> str | None:
    speed = t.speed
    panels = panels_of(speed)
    if not panels:
        return "gbps: no rows of one device"
    beaten = t.beaten.loc[t.beaten["beaten"], sc.BEATEN_KEY]
    roofs = sc.rooflines(t.speed_all)
    fig, axes = style.figure(len(panels), 1, ROW_HEIGHT, "GB/s against size: the fastest backend of each "
                             "family (element type, accumulator)")
    for ax, (machine, device) in zip(axes[:, 0], panels):
        rows = speed[(speed["machine"] == machine) & (speed["device"] == device)]
        best = sc.best_of_families(rows)
        handles = []
        for b in sc.sort_backends(best["series"], t.traits):
            r = best[best["series"] == b].sort_values("n")
            h, = ax.plot(r["n"], r["gbps"], label=style.traits_label(b, device, t.traits), markersize=4.5,
                         linewidth=1.4, **t.styles[b])
            handles.append(h)
        timing = rows["timing"].iloc[0] if set(rows["timing"]) == {rows["timing"].iloc[0]} else t.timing
        roof = roofs[(roofs["machine"] == machine) & (roofs["device"] == device) & (roofs["timing"] == timing)]
        ceiling = rows[rows["role"] == "ceiling"].sort_values("n")
        if not roof.empty:
            nbytes = np.geomspace(rows["bytes"].min(), rows["bytes"].max(), 200)
            element = rows["bytes"].iloc[0] / rows["n"].iloc[0]
            h, = ax.plot(nbytes / element, sc.roofline_gbps(nbytes, roof["floor_ns"].iloc[0], roof["best_gbps"].iloc[0]),
                         label=f"ceiling: max(launch floor {roof['floor_ns'].iloc[0] / 1000:.2g} µs, "
                               f"bytes / {sc.fmt_gbps(roof['best_gbps'].iloc[0])} GB/s)", **style.ROOFLINE_STYLE)
            handles.append(h)
        elif not ceiling.empty:
            for b in sorted(set(ceiling["series"])):
                r = ceiling[ceiling["series"] == b]
                h, = ax.plot(r["n"], r["gbps"], label=f"ceiling: {b}", **style.CEILING_STYLE)
                handles.append(h)
                hit = r.merge(beaten, on=sc.BEATEN_KEY)
                if not hit.empty:
                    h, = ax.plot(hit["n"], hit["gbps"], label="hollow: a reduction with as many threads\n"
                                 "or fewer is > 2% faster: no ceiling", **style.BEATEN_CEILING_STYLE)
                    handles.append(h)
        for p in rows["peak_gbps"].dropna().unique():
            handles.append(ax.axhline(p, label=f"theoretical peak {p:g} GB/s", **style.PEAK_STYLE))
        threads = int(rows["threads"].max())
        ax.set_title(f"{style.machine_title(rows, machine, device)} — {style.DEVICE_TITLE.get(device, device)}"
                     + (f", up to {threads} threads" if device == "cpu" and threads > 1 else ""), loc="left")
        style.size_ticks(ax, rows)
        style.gbps_axis(ax)
        ax.set_xlabel(style.size_label(rows))
        style.legend_right(ax, handles, title=style.wrapped(f"{sc.timing_note(rows)}; {sc.cache_note(rows)}")
                           + "\nhue: accumulator, marker: order")
    style.save(fig, out, NAME, written)
    return None
