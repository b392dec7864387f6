"""What the figures, the summary and the report are drawn from: the rows reduced once, by the rules
of shootout_csv, into the tables every figure module takes (figures/__init__.py)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

import shootout_csv as sc
import style


@dataclass
class Tables:
    rows: pd.DataFrame        # every row read that the filters kept (both timings)
    speed: pd.DataFrame       # one GB/s per point, the chosen timing, one GPU or none, one rank
    speed_all: pd.DataFrame   # the same with both timings (ceilings of either; gpu_timing)
    all_counts: pd.DataFrame  # one GB/s per point at every thread, GPU and rank count
    errors: pd.DataFrame      # one relative error per point, the chosen timing (error, summary)
    cost: pd.DataFrame        # the cost model's fit per series of `speed` (sc.cost_model)
    beaten: pd.DataFrame      # the read ceilings' points a reduction beats (sc.beaten_ceilings)
    scale_out: pd.DataFrame   # GB/s per GPU and rank count (sc.scale_out)
    latency: pd.DataFrame     # the dispatch-latency runs' rows (may be empty)
    latency_floats: int       # floats per thread of the dispatch-latency figure
    ladder: str               # the glob of the ladder figure's backends
    ladder_speed: pd.DataFrame      # `speed` with the ladder's backends (which `speed` leaves out)
    ladder_speed_all: pd.DataFrame  # and with both timings
    timing: str               # the GPU timing chosen (batched or isolated)
    traits: pd.DataFrame      # per series: role, accumulator, order (sc.backend_traits)
    styles: dict              # per series: colour, marker, dash (style.make_styles)


def make_tables(rows: pd.DataFrame, timing: str, threads: int | None, explicit_input: bool,
                ladder: str, keep_ladder: bool, latency: pd.DataFrame, latency_floats: int) -> Tables:
    """rows: the filtered rows; keep_ladder: the ladder's backends stay in the other figures (a
    --backend asked for them)."""
    traits = sc.backend_traits(pd.concat([rows, latency]) if not latency.empty else rows)
    timed = sc.speed_rows(rows, explicit_input=explicit_input)
    ladder_speed_all = sc.speed_table(sc.one_device(timed), threads=threads)
    ladder_speed = sc.select_timing(ladder_speed_all, timing)
    errors = sc.error_table(sc.select_timing(sc.one_device(rows), timing), threads=threads)
    if not keep_ladder:
        in_ladder = sc.matches(timed["backend"], [ladder]) & (timed["role"] == "reduction")
        errors = errors[~sc.matches(errors["backend"], [ladder])]
        timed = timed[~in_ladder]
    all_counts = sc.speed_table(timed, all_threads=True)
    speed_all = sc.speed_table(sc.one_device(timed), threads=threads)
    speed = sc.select_timing(speed_all, timing)
    return Tables(rows=rows, speed=speed, speed_all=speed_all, all_counts=all_counts, errors=errors,
                  cost=sc.cost_model(speed), beaten=sc.beaten_ceilings(all_counts),
                  scale_out=sc.scale_out(all_counts), latency=latency, latency_floats=latency_floats,
                  ladder=ladder, ladder_speed=ladder_speed, ladder_speed_all=ladder_speed_all, timing=timing,
                  traits=traits, styles=style.make_styles(traits))
