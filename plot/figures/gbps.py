"""GB/s against size: a panel per machine and device, one line per series, with the ceiling, any
reference copy and the theoretical peak."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

import shootout_csv as sc
import style


def plot_gbps(speed: pd.DataFrame, beaten: pd.DataFrame, styles, traits, out: Path,
              written: list[Path]):
    """beaten: sc.beaten_ceilings() of the rows; the ceiling's beaten points are drawn hollow."""
    beaten = beaten.loc[beaten["beaten"], sc.BEATEN_KEY]
    panels = []  # (machine, device)
    for machine in style.machines_of(speed):
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
        for b in sc.sort_backends(rows["series"], traits):
            r = rows[rows["series"] == b].sort_values("n")
            suffix = " (isolated)" if mixed and (r["timing"] == "isolated").all() else ""
            role = r["role"].iloc[-1]
            if role == "ceiling":
                h, = ax.plot(r["n"], r["gbps"], label=f"ceiling: {sc.series_label(b, device)}"
                             + suffix, **style.CEILING_STYLE)
                hit = r.merge(beaten, on=sc.BEATEN_KEY)
                if not hit.empty:
                    handles.append(h)
                    h, = ax.plot(hit["n"], hit["gbps"], label="hollow: a reduction with as many "
                                 "threads or fewer is > 2% faster:\nno ceiling there",
                                 **style.BEATEN_CEILING_STYLE)
            elif role != "reduction":
                h, = ax.plot(r["n"], r["gbps"], label=f"reference: {sc.series_label(b, device)}"
                             + suffix, **style.COPY_STYLE)
            else:
                h, = ax.plot(r["n"], r["gbps"], label=style.traits_label(b, device, traits) + suffix
                             + style.counts_suffix(r), markersize=5, linewidth=1.4, **styles[b])
            handles.append(h)
        # The device's memory peak says nothing about a PCIe-bound host->device series.
        peaks = rows["peak_gbps"].dropna().unique() if not device.endswith("+h2d") else []
        for p in peaks:
            h = ax.axhline(p, label=f"theoretical peak {p:g} GB/s", **style.PEAK_STYLE)
            handles.append(h)
        threads = int(rows["threads"].max())
        ax.set_title(f"{style.machine_title(rows, machine, device)} — "
                     f"{style.DEVICE_TITLE.get(device, device)}"
                     + (f" (up to {threads} thread{'s' if threads > 1 else ''})"
                        if device == "cpu" else "")
                     + f"\n{sc.timing_note(rows)}; {sc.cache_note(rows)}", loc="left")
        style.size_ticks(ax, rows)
        style.gbps_axis(ax)
        ax.set_xlabel(style.size_label(rows))
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
                  ncol=1 if len(handles) <= 22 else 2, title=style.LEGEND_TITLE, alignment="left")
    fig.tight_layout()
    style.save(fig, out, "gbps", written)
