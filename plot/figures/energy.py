"""How many bytes does a joule sum? GB per joule of the GPU's energy (NVML's counter, batched
calls), per backend, at the largest size measured with energy by at least half as many backends as
the best-covered size (so that a size only one or two backends reached does not stand for the
machine), and at 2^20 elements, a panel per machine and device with energy."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

import shootout_csv as sc
import style

NAME = "energy"
SIZES = [2**20]  # beside the largest size measured
ROW_HEIGHT_PER_BAR = 0.22


def panels_of(speed) -> list[tuple[str, str, list[int]]]:
    with_energy = speed[speed["gb_per_j"].notna() & (speed["role"] != "launch_floor")]
    panels = []
    for machine in style.machines_of(with_energy):
        on = with_energy[with_energy["machine"] == machine]
        for device in sorted(set(on["device"]), key=lambda d: (sc.device_rank(d), d)):
            counts = on[on["device"] == device].groupby("n")["series"].nunique()
            largest = max(n for n, c in counts.items() if 2 * c >= counts.max())
            panels.append((machine, device, sorted({n for n in SIZES if n in counts.index} | {largest})))
    return panels


def row_height(bars: int) -> float:
    return ROW_HEIGHT_PER_BAR * bars + 1.2


def draw(t, out: Path, written: list[Path]) -> str | None:
    speed = t.speed[t.speed["gb_per_j"].notna() & (t.speed["role"] != "launch_floor")]
    panels = panels_of(t.speed)
    if not panels:
        return "energy plot skipped: no rows with energy (NVIDIA GPUs, batched)"
    bars = max(speed.groupby(["machine", "device"])["series"].nunique())
    cols = max(len(ns) for _, _, ns in panels)
    fig, axes = style.figure(len(panels), cols, row_height(bars), "Energy: GB of input summed per joule of "
                             "the GPU's energy (batched calls), per backend")
    for row, (machine, device, ns) in enumerate(panels):
        for col in range(cols):
            ax = axes[row, col]
            if col >= len(ns):
                ax.set_visible(False)
                continue
            n = ns[col]
            r = speed[(speed["machine"] == machine) & (speed["device"] == device) & (speed["n"] == n)]
            r = r.sort_values(["gb_per_j", "series"], ascending=[True, True])
            ys = np.arange(len(r))
            colors = ["black" if role == "ceiling" else t.styles[b]["color"] for b, role in zip(r["series"], r["role"])]
            ax.barh(ys, r["gb_per_j"], color=colors, height=0.7, zorder=2)
            ax.set_yticks(ys, [("ceiling: " if role == "ceiling" else "") + b for b, role in zip(r["series"], r["role"])],
                          fontsize=8)
            for y, v in zip(ys, r["gb_per_j"]):
                ax.text(v, y, f" {v:.3g}", va="center", fontsize=7.5)
            ax.set_xlim(0, float(r["gb_per_j"].max()) * 1.18)
            ax.grid(axis="y", visible=False)
            ax.set_xlabel("GB per joule (linear)")
            ax.set_title(f"{style.machine_title(r, machine, device)}\nn = $2^{{{round(math.log2(n))}}}$ "
                         f"({style.bytes_text(r['bytes'])})", loc="left", fontsize=9)
    style.save(fig, out, NAME, written)
    return None
