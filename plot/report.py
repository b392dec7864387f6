"""results/report.html: the measurements in one self-contained page (plotly.js and the data inlined:
nothing is fetched when it is viewed), drawn by plot/report.js.

It opens on one machine and device with the fastest reduction of each family (element type,
accumulator) against size and the device's ceiling as a line (on GPUs the roofline max(launch floor,
bytes / best read); elsewhere the read ceiling of the same bytes); launch floors and reference copies
are not drawn as backends. Views: speed against size, error against size, accuracy against speed at
one size, machine against machine (the speed ratio per size with its 95% interval and verdict, by
significance.py as compare.py takes them) and the summary table. Every choice (view, machine,
device, element type, timing, backends, input, size, the other machine) is in the URL's fragment,
so a link opens the same view.

Points follow the rules of shootout_csv: the newest row per measurement, the median over the inputs
and seeds, the largest thread, GPU and rank count of one device and process."""

from __future__ import annotations

import html
import json
import math
from pathlib import Path

import matplotlib.colors
import numpy as np
import pandas as pd
from plotly.offline import get_plotlyjs

import output_files
import shootout_csv as sc
import significance as sig
import style

HERE = Path(__file__).resolve().parent
# The noise columns, where the rows carry them, and how a point takes them from its rows: shown in
# the tooltips (results/README.md documents each).
NOISE = {"spread": "max", "reps": "min", "noisy": "max", "throttled": "sum", "sm_clock_mhz": "median",
         "mem_clock_mhz": "median", "load1": "max"}
# matplotlib's markers and dashes of style.make_styles() as plotly's symbols and dashes.
SYMBOLS = {"o": "circle", "s": "square", "^": "triangle-up", "D": "diamond", "v": "triangle-down",
           "X": "x", "P": "cross", "<": "triangle-left", ">": "triangle-right", "h": "hexagon", "*": "star"}
DASHES = {"-": "solid", "--": "dash", "-.": "dashdot", ":": "dot"}


def point_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The rows a speed point is the median of: the newest, of one device and process, at the
    point's largest counts (speed_table's rule)."""
    rows = sc.newest(sc.one_device(sc.speed_rows(df)))
    return sc.pick_threads(rows, sc.SERIES + sc.COUNTS + ["n"], None)


def speed_points(df: pd.DataFrame, rows: pd.DataFrame, ladder: str | None) -> pd.DataFrame:
    """One point per (machine, series, device, timing, n) of both timings, with its ceiling,
    whether it is its family's fastest (`best`, per timing; the backends matching the `ladder` glob
    never are, as in the figures) and its noise columns."""
    speed = sc.with_ceiling(sc.speed_table(sc.one_device(sc.speed_rows(df))))
    contend = speed[~sc.matches(speed["backend"], [ladder])] if ladder else speed
    best = pd.concat([sc.best_of_families(contend[contend["timing"] == t]) for t in sc.TIMINGS])
    speed["best"] = speed.set_index(sc.SERIES).index.isin(best.set_index(sc.SERIES).index)
    noise = {c: how for c, how in NOISE.items() if c in rows.columns}
    if noise:
        r = rows.assign(noisy=(rows["noisy"] == "yes").astype(int)) if "noisy" in noise else rows
        speed = speed.merge(r.groupby(sc.SERIES + ["n"])[list(noise)].agg(noise).reset_index(),
                            on=sc.SERIES + ["n"], how="left")
    return speed


def comparisons(rows: pd.DataFrame) -> pd.DataFrame:
    """Per pair of machines (a before b by label) and per series, device, timing and size both
    measured: ratio = b's speed over a's (a's median time per call over b's) with its 95% interval
    and verdict, by significance.judge() as compare.py takes them (each row the point is the median
    of is a sample; a point's noise is the median of its rows' row_se), and the sample counts."""
    key = [c for c in sc.SERIES if c != "machine"] + ["n"]
    reductions = rows[rows["role"] == "reduction"]
    reductions = reductions.assign(se=sig.row_se(reductions))
    samples = {m: {k: (g["time_ns_median"].to_numpy(dtype=float), float(g["se"].dropna().median()))
                   for k, g in r.groupby(key)}
               for m, r in reductions.groupby("machine")}
    order = [m for m in rows.drop_duplicates("machine").sort_values(["label", "machine"])["machine"] if m in samples]
    out = []
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            for k in sorted(samples[a].keys() & samples[b].keys()):
                (ta, se_a), (tb, se_b) = samples[a][k], samples[b][k]
                c = sig.judge(ta, se_a, tb, se_b)
                out.append(dict(a=a, b=b, **dict(zip(key, k)), ratio=c.ratio, lo=c.low, hi=c.high, verdict=c.verdict,
                                samples_a=len(ta), samples_b=len(tb)))
    return pd.DataFrame(out, columns=["a", "b", *key, "ratio", "lo", "hi", "verdict", "samples_a", "samples_b"])


def series_styles(df: pd.DataFrame) -> dict[str, dict]:
    """Per series its colour (by accumulator), symbol (by order) and dash, as the figures draw it."""
    styles = style.make_styles(sc.backend_traits(df))
    return {s: {"color": matplotlib.colors.to_hex(st["color"]), "symbol": SYMBOLS.get(st["marker"], "circle"),
                "dash": DASHES.get(st["linestyle"], "longdash") if isinstance(st["linestyle"], str) else "longdash"}
            for s, st in styles.items()}


def default_view(points: pd.DataFrame) -> dict[str, str]:
    """The view the page opens on: a GPU (CUDA) where there is one, else the first device, on the
    machine whose reduction there reached the most GB/s; its most measured element type; batched
    where it has that timing."""
    red = points[points["role"] == "reduction"]
    gpu = red[red["device"] == "cuda"]
    on = gpu if not gpu.empty else red[red["device"].map(sc.device_rank) == red["device"].map(sc.device_rank).min()]
    top = on.sort_values(["gbps", "machine", "device"], ascending=[False, True, True]).iloc[0]
    there = on[(on["machine"] == top["machine"]) & (on["device"] == top["device"])]
    dtype = there["dtype"].value_counts().sort_index().idxmax()
    timing = sc.DEFAULT_TIMING if (there["timing"] == sc.DEFAULT_TIMING).any() else there["timing"].iloc[0]
    return {"machine": top["machine"], "device": top["device"], "dtype": dtype, "timing": timing}


def json_value(v):
    """A value as JSON holds it: NaN (and a missing value) as null, an infinity (an overflowed sum's
    error) as the text "inf" (report.js reads it back), counts and flags as integers."""
    if v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return int(v) if isinstance(v, (np.integer, bool, np.bool_)) else v


def columns(df: pd.DataFrame, names: list[str]) -> dict[str, list]:
    """df's columns as lists (column-oriented JSON), each value by json_value()."""
    return {c: [json_value(v) for v in df[c].tolist()] for c in names}


def models(rows: pd.DataFrame) -> dict[str, str]:
    """Per device of one machine's rows, what it is: the CPU model for `cpu`, else the `gpu` column
    (a GPU, or the device an OpenCL or Vulkan implementation on the CPU names)."""
    out = {}
    for device, r in rows.groupby("device"):
        column = r["cpu"] if device == "cpu" else r["gpu"]
        out[device] = next((v for v in column if v), "")
    return out


def report_data(df: pd.DataFrame, ladder: str | None = None) -> dict:
    """What report.js draws: points, errors, comparisons, machines, styles and the default view;
    `ladder`: the glob of the backends left out of the families (speed_points)."""
    rows = point_rows(df)
    points = speed_points(df, rows, ladder)
    points = points[points["role"] == "reduction"]
    # Per timing as the summary takes them: the chosen timing's rows where a series has them.
    errors = pd.concat([sc.error_table(sc.select_timing(sc.one_device(df), t)).assign(timing=t) for t in sc.TIMINGS])
    machines = {m: {"label": r["label"].iloc[-1], "models": models(r)} for m, r in df.groupby("machine")}
    point_columns = ["machine", "series", "device", "dtype", "timing", "n", "bytes", "gbps", "time_ns", "threads",
                     "batch", "accumulator", "order", "version", "ceiling", "ceiling_kind", "pct_ceiling",
                     "peak_gbps", "best", "samples", *(c for c in NOISE if c in points.columns)]
    return {"machines": machines, "default": default_view(points), "styles": series_styles(df),
            "points": columns(points, point_columns),
            "errors": columns(errors, ["machine", "series", "device", "dtype", "timing", "input", "n", "rel_error"]),
            "compare": columns(comparisons(rows), ["a", "b", "series", "device", "dtype", "timing", "n", "ratio",
                                                   "lo", "hi", "verdict", "samples_a", "samples_b"]),
            "interval": 1 - sig.ALPHA}


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Accumulate Shootout — report</title>
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 16px 24px; color: #222; }}
h1 {{ font-size: 22px; margin: 0 0 4px; }}
#views button {{ font: inherit; padding: 6px 12px; margin-right: 4px; border: 1px solid #999; background: #f4f4f4;
  border-radius: 4px; cursor: pointer; }}
#views button.active {{ background: #1f4e99; color: white; border-color: #1f4e99; }}
#filters {{ display: flex; gap: 14px; flex-wrap: wrap; margin: 10px 0; align-items: center; }}
#filters label {{ white-space: nowrap; }}
#filters select {{ font: inherit; max-width: 420px; }}
#caption {{ margin: 6px 0; color: #333; }}
#summary-table table {{ border-collapse: collapse; }}
#summary-table th, #summary-table td {{ border: 1px solid #ccc; padding: 3px 8px; text-align: left; }}
#summary-table td.num {{ text-align: right; }}
#summary-table th {{ background: #f0f0f0; }}
</style>
</head>
<body>
<h1>Accumulate Shootout</h1>
<div>GB/s and the relative error against the exact sum of summing an array, per machine, device, element type
and size. {sources}</div>
<nav id="views"></nav>
<div id="filters"></div>
<div id="caption"></div>
<div id="shootout-report" style="height: 680px"></div>
<div id="summary-table"></div>
<script>{plotly}</script>
<script type="application/json" id="report-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""


def page(df: pd.DataFrame, ladder: str | None = None) -> str:
    """The whole page: plotly.js, the data and report.js inlined."""
    data = json.dumps(report_data(df, ladder), separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
    files = ", ".join(sorted(df["source"].unique()))
    return PAGE.format(sources=html.escape(f"From: {files}."), plotly=get_plotlyjs(), data=data,
                       script=(HERE / "report.js").read_text())


def write_report(df: pd.DataFrame, path: Path, ladder: str | None = None) -> None:
    """Writes the self-contained page to path; `ladder`: the glob of the backends that are no
    family's fastest (the ladder figure's, unless --backend asked for them)."""
    try:
        output_files.replace_file(path, page(df, ladder).encode(), "--out")
    except output_files.OutputError as e:
        raise sc.InputError(str(e)) from None
