"""Thread scaling: GB/s against threads, per machine at the largest size measured with several
thread counts, one line per series swept."""

from __future__ import annotations

from pathlib import Path

import shootout_csv as sc
import style

NAME = "scaling"
ROW_HEIGHT = 3.3


def draw(t, out: Path, written: list[Path]) -> str | None:
    all_threads = t.all_counts
    s = all_threads[(all_threads["device"] == "cpu") & (all_threads["ranks"] == 1)]
    counts = s.groupby(["machine", "series", "n"])["threads"].nunique()
    sweeps = counts[counts >= 2]
    if sweeps.empty:
        return None
    panels = []  # per machine, the largest size with a sweep
    for machine in style.machines_of(s):
        ns = sorted({n for m, _, n in sweeps.index if m == machine})
        if ns:
            panels.append((machine, ns[-1]))
    fig, axes = style.figure(len(panels), 1, ROW_HEIGHT, "Thread scaling: GB/s against threads, at the "
                             "largest size measured with several thread counts")
    for ax, (machine, n) in zip(axes[:, 0], panels):
        bs = [b for (m, b, k) in sweeps.index if m == machine and k == n]
        tmax = 1
        handles = []
        for b in sc.sort_backends(bs, t.traits):
            r = s[(s["machine"] == machine) & (s["series"] == b) & (s["n"] == n)].sort_values("threads")
            tmax = max(tmax, int(r["threads"].max()))
            ceiling = t.traits.loc[b, "role"] == "ceiling"
            st = style.CEILING_STYLE if ceiling else dict(markersize=4.5, linewidth=1.4, **t.styles[b])
            h, = ax.plot(r["threads"], r["gbps"], label=f"ceiling: {b}" if ceiling
                         else style.traits_label(b, "cpu", t.traits), **st)
            handles.append(h)
        style.count_axis(ax, tmax, "threads (log₂ scale)")
        style.gbps_axis(ax)
        at = s[(s["machine"] == machine) & s["series"].isin(bs) & (s["n"] == n)]
        ax.set_title(f"{style.machine_title(s, machine, 'cpu')}: {style.size_title(n, at)}", loc="left")
        style.legend_right(ax, handles, title=style.LEGEND_TITLE)
    style.save(fig, out, NAME, written)
    return None
