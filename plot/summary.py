"""summary.md: per machine, device and element type, the fastest and the most accurate series at
each size, and the scale-out GB/s per GPU and rank count with the efficiency."""

from __future__ import annotations

import math

import pandas as pd

import shootout_csv as sc
import style


def scale_out_markdown(series: pd.DataFrame) -> list[str]:
    """The summary's section: GB/s per GPU and rank count, with the efficiency against ideal."""
    if series.empty:
        return []
    lines = ["## Scaling out: GB/s per GPU count and per rank count", "",
             "Efficiency = GB/s / (the 1-GPU or 1-rank GB/s × count).", "",
             "| machine | backend | timing | axis | n | GB/s by count (efficiency) |", "|---|---|---|---|---|---|"]
    for (machine, name, timing, axis, n), r in series.groupby(
            ["machine", "series", "timing", "axis", "n"], sort=True):
        cells = [f"{int(c)}: {sc.fmt_gbps(g)}" + (f" ({e:.0%})" if c > 1 and math.isfinite(e) else "")
                 for c, g, e in zip(r["count"], r["gbps"], r["efficiency"])]
        lines.append(f"| {r['label'].iloc[0]} | `{name}` | {timing} | {axis} | {sc.fmt_n(n)} | "
                     f"{'; '.join(cells)} |")
    return lines + [""]


def summary_markdown(speed: pd.DataFrame, speed_all: pd.DataFrame, err: pd.DataFrame,
                     files: list[str], filters: str, timing: str,
                     scale_out: pd.DataFrame | None = None) -> str:
    """The whole summary.md; speed_all holds both timings, for the ceilings of either."""
    sp = sc.with_ceiling(speed, reference=speed_all)
    lines = ["# Accumulate shootout — summary", ""]
    lines.append(f"From: {', '.join(files)}" + (f"  \nFilter: `{filters}`" if filters else ""))
    lines += ["",
              "Rules: machines are told apart by the `machine` column; repeated measurements → "
              "the newest row; GB/s is the median over the inputs and seeds measured, at the "
              f"largest thread count; GPU rows use the {timing} timing where a backend has it "
              "(CPU rows are isolated); the ceiling is the backend with role `ceiling` at the same "
              "machine, device, timing and bytes read. Element types (`dtype`) are kept apart: a "
              "section each, a series named `backend (dtype)` unless float32. Only role "
              "`reduction` backends contend. "
              "Most accurate = the smallest worst-case relative error over the input "
              "distributions (NaN inputs left out), among the backends measured on all of them; "
              "ties go to the faster one.", ""]
    for machine in style.machines_of(sp):
        on = sp[sp["machine"] == machine]
        sections = sorted(set(zip(on["device"], on["dtype"])),
                          key=lambda s: (sc.device_rank(s[0]), sc.rank(s[1], list(sc.DTYPE_BYTES))))
        for device, dtype in sections:
            rows = on[(on["device"] == device) & (on["dtype"] == dtype)]
            lines.append(f"## {style.machine_title(rows, machine, device)} — {device}"
                         + ("" if dtype == sc.DEFAULT_DTYPE else f" ({dtype})"))
            lines.append("")
            lines.append(f"Machine `{machine}`; {sc.timing_note(rows)}; {sc.cache_note(rows)}.")
            lines.append("")
            lines.append("| n | bytes | fastest backend | GB/s | % of ceiling | threads | timing "
                         "| most accurate | worst rel. error |")
            lines.append("|---|---|---|---|---|---|---|---|---|")
            for n in sorted(rows["n"].unique()):
                at = rows[(rows["n"] == n) & (rows["role"] == "reduction")]
                if at.empty:
                    continue
                best = at.sort_values(["gbps", "series"], ascending=[False, True]).iloc[0]
                pct = best["pct_ceiling"]
                pct_text = f"{pct:.0f}%" if math.isfinite(pct) else "— (no ceiling)"
                acc, acc_err = most_accurate(err, at.set_index("series")["gbps"], machine,
                                             device, dtype, n)
                lines.append(
                    f"| {sc.fmt_n(n)} | {sc.fmt_bytes(best['bytes'])} | `{best['series']}` | "
                    f"{sc.fmt_gbps(best['gbps'])} | {pct_text} | {int(best['threads'])} | "
                    f"{sc.timing_short(at[at['series'] == best['series']])} | "
                    f"{acc} | {acc_err} |")
            lines.append("")
    if scale_out is not None:
        lines += scale_out_markdown(scale_out)
    return "\n".join(lines)


def most_accurate(err: pd.DataFrame, gbps: pd.Series, machine: str, device: str, dtype: str,
                  n: int):
    """The series of element type `dtype` with the smallest worst-case error over the inputs, as
    markdown, and that error. Only series measured on as many inputs as the best-covered one
    compete; ties go to the faster one (by `gbps`) and are named."""
    if device.endswith("+h2d"):
        device = "cuda"  # the same kernels: their accuracy is in the cuda rows
    e = err[(err["machine"] == machine) & (err["device"] == device) & (err["dtype"] == dtype)
            & (err["n"] == n)]
    e = e[e["rel_error"].notna()]
    if e.empty:
        return "—", "—"
    per = e.groupby("series").agg(worst=("rel_error", "max"), inputs=("input", "nunique"))
    per = per[per["inputs"] == per["inputs"].max()]
    per["neg_gbps"] = [-float(gbps.get(b, 0.0)) for b in per.index]
    per = per.sort_values(["worst", "neg_gbps"])
    top = per.iloc[0]
    ties = per[per["worst"] == top["worst"]].index.tolist()
    if len(ties) == 1:
        name = f"`{ties[0]}`"
    elif len(ties) <= 3:
        name = ", ".join(f"`{b}`" for b in ties) + " (tied)"
    else:
        name = f"`{ties[0]}` (+{len(ties) - 1} tied)"
    return name, sc.fmt_error(float(top["worst"]))
