"""summary.md: per machine, device and element type, the fastest and the most accurate series at
each size, and the scale-out GB/s per GPU and rank count with the efficiency."""

from __future__ import annotations

import math

import pandas as pd

import markdown as md
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
        lines.append(f"| {md.text(r['label'].iloc[0])} | {md.code(name)} | {md.text(timing)} | {md.text(axis)} | {sc.fmt_n(n)} | "
                     f"{'; '.join(cells)} |")
    return lines + [""]


def versions_line(rows: pd.DataFrame) -> str:
    """'version `v0.2-3-gabc1234` (120 rows), `v0.2-3-gabc1234-dirty` (3 rows)', or that the rows predate
    the column."""
    counts = rows["version"].replace("", "(none: written before the version column)").value_counts()
    return ", ".join(f"{md.code(v)} ({c} rows)" if not v.startswith("(") else f"{v} ({c} rows)" for v, c in counts.items())


def above_ceiling_markdown(sp: pd.DataFrame) -> list[str]:
    """The section listing every reduction faster than its ceiling by more than the margin."""
    above = sp[sp["above_ceiling"]].sort_values(["label", "device", "series", "n"])
    lines = ["## Above the ceiling", "",
             f"Reductions more than {sc.CEILING_MARGIN:.0%} faster than their ceiling (on GPUs the roofline "
             "max(launch floor, bytes / best read); elsewhere the read of as many bytes): a measurement to "
             "distrust, or a ceiling that is none.", ""]
    if above.empty:
        return lines + ["None.", ""]
    lines += ["| machine | device | backend | n | timing | GB/s | ceiling GB/s | % of ceiling |",
              "|---|---|---|---|---|---|---|---|"]
    for _, r in above.iterrows():
        lines.append(f"| {md.text(r['label'])} | {md.text(r['device'])} | {md.code(r['series'])} | {sc.fmt_n(r['n'])} | "
                     f"{md.text(r['timing'])} | "
                     f"{sc.fmt_gbps(r['gbps'])} | {sc.fmt_gbps(r['ceiling'])} | {r['pct_ceiling']:.0f}% ⚠ |")
    return lines + [""]


def fit_text(f: pd.Series) -> str:
    """A banded fit's cell: its t0, r∞ and worst error, or 'does not fit: why'."""
    if not f["fits"]:
        return f"does not fit: {md.text(f['reason'])}"
    return f"t0 {f['t0_ns'] / 1000:.3g} µs, r∞ {sc.fmt_gbps(f['r_inf'])} GB/s (worst error {f['worst_error']:.1%})"


def cost_model_markdown(cost: pd.DataFrame, machine: str, device: str, dtype: str) -> list[str]:
    """The cost model's table of one section: per series t0, r∞, n½ and the fit's error where the
    model fits, else 'does not fit' and why; a column per cache level where the CPU's caches are
    known (sc.cost_model)."""
    fits = cost[(cost["machine"] == machine) & (cost["device"] == device) & (cost["dtype"] == dtype)]
    if fits.empty:
        return []
    fits = fits.assign(order_key=fits["role"].map({"ceiling": 0}).fillna(1)).sort_values(["order_key", "t0_ns", "series"])
    lines = ["Cost model t = t0 + bytes / r∞ (Hockney), fitted on the sizes measured: t0 the fixed cost of a "
             "call, r∞ the rate it tends to, n½ = t0 · r∞ the size that reaches half of it; fit error = "
             "|fit / measured − 1|, median and worst over the sizes. Printed where it is within "
             f"{sc.COST_MODEL_MAX_ERROR:.0%} of every size and fitted on {sc.COST_MODEL_MIN_SIZES} sizes or "
             "more; else \"does not fit\" and why.", ""]
    bands = [b for b in sc.BANDS if b in set(fits["band"]) and b != sc.ALL_SIZES]
    too_few = fits["sizes"] < sc.COST_MODEL_MIN_SIZES
    if too_few.all():  # a table of the same reason says less than a line
        where = "per cache level" if bands else "per series"
        most = int(fits["sizes"].max())
        return [f"Cost model t = t0 + bytes / r∞ (Hockney): does not fit here: at most {most} "
                f"size{'s' if most > 1 else ''} measured {where}, {sc.COST_MODEL_MIN_SIZES} needed.", ""]
    if bands:
        lines[0] += (" Fitted per cache level: the sizes whose bytes fit each thread's L1 or L2 "
                     "(per core × threads), the shared L3, or none (DRAM), from results/caches.json.")
        lines += ["| backend | " + " | ".join(bands) + " |", "|---" * (len(bands) + 1) + "|"]
        for series, f in fits.sort_values(["order_key", "series"]).groupby("series", sort=False):
            by_band = f.set_index("band")
            name = md.code(series) + (" (ceiling)" if f["role"].iloc[0] == "ceiling" else "")
            cells = [fit_text(by_band.loc[b]) if b in by_band.index else "—" for b in bands]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        return lines + [""]
    lines += ["| backend | t0 | r∞ GB/s | n½ | fit error (median, worst) | sizes |", "|---|---|---|---|---|---|"]
    for _, f in fits.iterrows():
        name = md.code(f["series"]) + (" (ceiling)" if f["role"] == "ceiling" else "")
        if not f["fits"]:
            lines.append(f"| {name} | — | — | — | does not fit: {md.text(f['reason'])} | {int(f['sizes'])} |")
            continue
        lines.append(f"| {name} | {f['t0_ns'] / 1000:.3g} µs | {sc.fmt_gbps(f['r_inf'])} | "
                     f"{sc.fmt_bytes(f['n_half_bytes'])} ({f['n_half']:.3g} elements) | "
                     f"{f['median_error']:.1%}, {f['worst_error']:.1%} | {int(f['sizes'])} |")
    return lines + [""]


def summary_markdown(t, files: list[str], filters: str) -> str:
    """The whole summary.md from the tables (tables.Tables)."""
    sp = sc.with_ceiling(t.speed, reference=t.speed_all)
    lines = ["# Accumulate shootout — summary", ""]
    lines.append(f"From: {', '.join(md.text(f) for f in files)}" + (f"  \nFilter: {md.code(filters)}" if filters else ""))
    lines += ["",
              "Rules: machines are told apart by the `machine` column; repeated measurements → "
              "the newest row; GB/s is the median over the inputs and seeds measured, at the "
              f"largest thread count, on one GPU and in one process (several GPUs and ranks: the last "
              f"section); GPU rows use the {t.timing} timing where a backend has it "
              "(CPU rows are isolated). The ceiling: on a device with a launch floor (role "
              "`launch_floor`), the roofline in time, bytes / max(launch floor, bytes / best read "
              "GB/s), the floor the API's and the timing's, the best read the machine's over its APIs and "
              "timings; elsewhere the backend with role `ceiling` at the same machine, device, timing and "
              "bytes read. ⚠ marks a reduction more than 2% above it. Element types (`dtype`) are kept apart: a "
              "section each, a series named `backend (dtype)` unless float32. Only role "
              "`reduction` backends contend. "
              "Most accurate = the smallest worst-case relative error over the input "
              "distributions (NaN inputs left out), among the backends measured on all of them; "
              "ties go to the faster one.", ""]
    for machine in style.machines_of(sp):
        on = sp[sp["machine"] == machine]
        sections = sorted(set(zip(on["device"], on["dtype"])),
                          key=lambda s: (sc.device_rank(s[0]), s[0], sc.rank(s[1], list(sc.DTYPE_BYTES))))
        for device, dtype in sections:
            rows = on[(on["device"] == device) & (on["dtype"] == dtype)]
            lines.append(f"## {md.text(style.machine_title(rows, machine, device))} — {md.text(device)}"
                         + ("" if dtype == sc.DEFAULT_DTYPE else f" ({md.text(dtype)})"))
            lines.append("")
            lines.append(f"Machine {md.code(machine)}; {md.text(sc.timing_note(rows))}; {md.text(sc.cache_note(rows))}; version "
                         f"{versions_line(t.rows[(t.rows['machine'] == machine) & (t.rows['device'] == device)])}.")
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
                pct_text = (f"{pct:.0f}%" + (" ⚠" if best["above_ceiling"] else "")) if math.isfinite(pct) \
                    else "— (no ceiling)"
                acc, acc_err = most_accurate(t.errors, at.set_index("series")["gbps"], machine,
                                             device, dtype, n)
                lines.append(
                    f"| {sc.fmt_n(n)} | {sc.fmt_bytes(best['bytes'])} | {md.code(best['series'])} | "
                    f"{sc.fmt_gbps(best['gbps'])} | {pct_text} | {int(best['threads'])} | "
                    f"{md.text(sc.timing_short(at[at['series'] == best['series']]))} | "
                    f"{acc} | {acc_err} |")
            lines.append("")
            lines += cost_model_markdown(t.cost, machine, device, dtype)
    lines += above_ceiling_markdown(sp)
    lines += scale_out_markdown(t.scale_out)
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
        name = md.code(ties[0])
    elif len(ties) <= 3:
        name = ", ".join(md.code(b) for b in ties) + " (tied)"
    else:
        name = f"{md.code(ties[0])} (+{len(ties) - 1} tied)"
    return name, sc.fmt_error(float(top["worst"]))
