"""One module per figure of plot.py, each answering one question. A module has NAME (its files are
NAME.png and NAME.svg) and draw(tables, out, written) -> str | None: it draws its figure from the
tables (tables.Tables) with style.figure and style.save, or returns why it drew nothing. To add a
figure, write such a module and list it in FIGURES."""

from figures import (accuracy_speed, cost_model, dispatch_latency, dtypes, energy, error, gbps, gpu_timing,
                     hardware, ladder, portable, scale_out, scaling)

FIGURES = [gbps, cost_model, accuracy_speed, dtypes, error, hardware, portable, scaling, scale_out, energy, ladder,
           gpu_timing, dispatch_latency]
