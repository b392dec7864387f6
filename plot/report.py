"""results/report.html: every measurement in one self-contained page (plotly.js inlined: nothing is
fetched when it is viewed). GB/s against size, one trace per (machine, device, element type, input,
series, timing, GPU and rank count); hovering a point shows its backend, size, GB/s, relative error,
version and machine; four menus filter the traces by machine, device, element type and input.

Points: the newest row per measurement (the rules of shootout_csv), at the largest thread count."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

import output_files
import shootout_csv as sc

# The trace's facets that the menus filter by: (meta key, menu label).
FILTERS = [("machine", "machine"), ("device", "device"), ("dtype", "element type"), ("input", "input")]
PLOT_ID = "shootout-report"

# Builds one menu per facet above the plot; a trace is shown when each menu is "all" or its value.
FILTER_SCRIPT = """
(function () {
  const plot = document.getElementById('%(plot)s');
  const filters = %(filters)s;
  const bar = document.createElement('div');
  bar.id = 'filters';
  bar.style.cssText = 'font: 14px sans-serif; margin: 8px 0; display: flex; gap: 16px; flex-wrap: wrap';
  const menus = {};
  for (const [key, label] of filters) {
    const values = [...new Set(plot.data.map(t => t.meta[key]))].sort();
    const select = document.createElement('select');
    select.id = 'filter-' + key;
    for (const value of ['all', ...values]) select.add(new Option(value, value));
    const wrap = document.createElement('label');
    wrap.append(label + ': ', select);
    bar.append(wrap);
    menus[key] = select;
    select.addEventListener('change', apply);
  }
  plot.parentNode.insertBefore(bar, plot);
  function apply() {
    const visible = plot.data.map(t => filters.every(([key]) => menus[key].value === 'all' || t.meta[key] === menus[key].value));
    Plotly.restyle(plot, {visible: visible});
  }
})();
"""


def points(df: pd.DataFrame) -> pd.DataFrame:
    """The newest row per measurement, at the largest thread count of each (series, size, GPUs,
    ranks); `file:` inputs too."""
    rows = sc.newest(df)
    return sc.pick_threads(rows, sc.POINT_KEY, None, counts=["threads"])


def trace_name(r: pd.Series) -> str:
    counts = "".join(f", {int(r[c])} {name}" for c, name in [("gpus", "GPUs"), ("ranks", "ranks")] if r[c] > 1)
    return f"{sc.series_label(r['series'], r['device'])} ({r['timing']}{counts}) — {r['label']}, {r['input']}"


def error_text(e: float) -> str:
    return sc.fmt_error(e) if not (isinstance(e, float) and math.isfinite(e) and e > 0) else f"{e:.3g}"


def figure(df: pd.DataFrame) -> go.Figure:
    pts = points(df)
    fig = go.Figure()
    keys = ["label", "device", "dtype", "input", "series", "timing", "gpus", "ranks"]
    for _, r in pts.sort_values(keys + ["n"]).groupby(keys, sort=False):
        first = r.iloc[0]
        custom = list(zip(r["backend"], [f"{sc.fmt_n(n)} ({sc.fmt_bytes(b)})" for n, b in zip(r["n"], r["bytes"])],
                          [sc.fmt_gbps(g) for g in r["gbps"]], [error_text(e) for e in r["rel_error"]],
                          r["version"].replace("", "—"), r["label"], r["threads"]))
        fig.add_trace(go.Scatter(
            x=r["n"].tolist(), y=r["gbps"].tolist(), mode="lines+markers", name=trace_name(first),
            customdata=custom,
            meta={"machine": first["label"], "device": first["device"], "dtype": first["dtype"], "input": first["input"],
                  "backend": first["backend"], "role": first["role"]},
            line={"dash": "dash" if first["role"] != "reduction" else "solid", "width": 1.5},
            hovertemplate="<b>%{customdata[0]}</b><br>size %{customdata[1]}<br>%{customdata[2]} GB/s<br>"
                          "relative error %{customdata[3]}<br>version %{customdata[4]}<br>"
                          "machine %{customdata[5]}, %{customdata[6]} threads<extra></extra>"))
    fig.update_layout(
        title="Accumulate shootout: GB/s against size (hover a point; filter with the menus; click a legend "
              "entry to hide it)",
        xaxis={"type": "log", "title": "elements (log)", "exponentformat": "power"},
        yaxis={"type": "log", "title": "GB/s (log)"}, height=760, template="plotly_white",
        legend={"font": {"size": 10}}, hoverlabel={"align": "left"})
    return fig


def write_report(df: pd.DataFrame, path: Path) -> None:
    """Writes the self-contained page to path."""
    script = FILTER_SCRIPT % {"plot": PLOT_ID, "filters": json.dumps(FILTERS)}
    page = figure(df).to_html(include_plotlyjs=True, include_mathjax=False, full_html=True, div_id=PLOT_ID,
                              post_script=script, config={"displaylogo": False, "responsive": True})
    try:
        output_files.replace_file(path, page.encode(), "--out")
    except output_files.OutputError as e:
        raise sc.InputError(str(e)) from None
