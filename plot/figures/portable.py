"""How close does portable code come to CUDA on the same card? Per machine whose GPU ran CUDA and
OpenCL or Vulkan: the time per call of each API's fastest reduction at each size, CUDA's among them
(left), and each portable API's speed against CUDA's (right), with their targets drawn as steps.
Exact sums are left out: they answer another question."""

from __future__ import annotations

from pathlib import Path

from matplotlib.lines import Line2D

import style

NAME = "portable"
ROW_HEIGHT = 3.0
REFERENCE = "cuda"
DTYPE = "f32"  # one element type: a size's fastest row of another would read other bytes
APIS = {"opencl": ("OpenCL", "tab:green"), "vulkan": ("Vulkan", "tab:red")}
# Speed against CUDA's fastest reduction that each size band aims at (time per call at most 1.2x CUDA's
# from 2^16, 1.03x from 2^26, where the bytes bound both): (first n, last n, least speed).
TARGETS = [(2**16, 2**24, 1 / 1.2), (2**26, 2**31, 1 / 1.03)]


def fastest_per_size(rows, device: str):
    """Per n, the device's fastest float32 reduction: (n, time_ns, series), sorted by n."""
    r = rows[(rows["device"] == device) & (rows["role"] == "reduction") & (rows["accumulator"] != "exact")
             & (rows["dtype"] == DTYPE)]
    best = r.loc[r.groupby("n")["time_ns"].idxmin()].sort_values("n")
    return list(zip(best["n"], best["time_ns"], best["series"]))


def draw(t, out: Path, written: list[Path]) -> str | None:
    s = t.speed
    machines = [m for m in style.machines_of(s)
                if fastest_per_size(s[s["machine"] == m], REFERENCE)
                and ((s["machine"] == m) & s["device"].isin(list(APIS))).any()]
    if not machines:
        return "portable plot skipped: no machine ran a CUDA reduction and an OpenCL or Vulkan one"
    fig, axes = style.figure(len(machines), 2, ROW_HEIGHT, "One card, three APIs: "
                             f"each API's fastest float32 reduction per size ({t.timing})",
                             extra=style.legend_height(4, 4))
    for (left, right), machine in zip(axes, machines):
        rows = s[s["machine"] == machine]
        cuda = fastest_per_size(rows, REFERENCE)
        left.plot([n for n, _, _ in cuda], [x / 1e3 for _, x, _ in cuda], color="black", marker="o", ms=3, lw=1.6)
        reference = {n: x for n, x, _ in cuda}
        for device, (api, color) in APIS.items():
            best = fastest_per_size(rows, device)
            if not best:
                continue
            ns, times, _ = zip(*best)
            left.plot(ns, [x / 1e3 for x in times], color=color, marker="s", ms=3, lw=1.2)
            shared = [(n, reference[n] / x) for n, x in zip(ns, times) if n in reference]
            if shared:
                right.plot(*zip(*shared), color=color, marker="s", ms=3, lw=1.2)
        for lo, hi, least in TARGETS:
            right.hlines(least, lo, hi, colors="gray", linestyles="--", lw=1)
        right.axhline(1.0, color="black", lw=0.8)
        left.set_yscale("log")
        left.set_ylabel("time per call [µs]  (log)")
        right.set_ylabel("speed against CUDA's fastest")
        right.set_ylim(0, max(1.25, right.get_ylim()[1]))
        for ax in (left, right):
            style.size_ticks(ax, rows, max_ticks=6)
        left.set_title(style.machine_title(rows, machine, "cuda"), loc="left", fontsize=9)
    handles = [Line2D([], [], color="black", marker="o", ms=3, label="CUDA: fastest reduction")] + \
              [Line2D([], [], color=color, marker="s", ms=3, label=f"{api}: fastest reduction")
               for api, color in APIS.values()] + \
              [Line2D([], [], color="gray", ls="--", label="target")]
    fig.legend(handles=handles, loc="outside lower center", ncols=4, frameon=False, fontsize=8)
    style.save(fig, out, NAME, written)
    return None
