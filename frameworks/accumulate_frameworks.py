#!/usr/bin/env python3
"""accumulate_frameworks: the sums people call (torch.sum, cupy.sum, jnp.sum, numpy.sum, math.fsum,
cuda.compute.reduce_into) measured by the harness's rules, on the harness's inputs, into its CSV.

accumulate_bench --write-input hands over the inputs (bit for bit), their exact sums, the CSV
columns, this machine's identity and the measurement rules; this runner times each framework's call
by those rules and appends rows that the plots, compare.py and the summary read like any backend's.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parent.parent / "plot"))  # output_files, after this folder's modules

import numpy as np  # noqa: E402

import handoff  # noqa: E402
import measure  # noqa: E402
import output_files  # noqa: E402
import rows  # noqa: E402
from backend import TIMERS, Backend  # noqa: E402
from backends import all_backends  # noqa: E402
from backends.numpy_sum import DEFAULT_FSUM_MAX  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BENCH = REPO_ROOT / "build" / "release" / "accumulate_bench"

USAGE = f"""accumulate_frameworks: framework sums under the harness's rules, in its CSV columns.

Usage: python3 frameworks/accumulate_frameworks.py [options]

  --bench=PATH       the harness that writes the inputs (default: build/release/accumulate_bench)
  --backend=LIST     all (default), a device (cpu, cuda), or comma-separated names and globs
                     (cupy/*); an entry that names only accumulate_bench's backends is passed over,
                     said once; one that names no backend of either is refused (exit status 2)
  --list             every framework backend, available here or not (with the reason), and exit
  --require-available
                     a selected backend that cannot run here makes the exit status 1 (the others
                     still run): for machines that must have every framework (the GPU machines)
  --sizes, --dtype, --input, --seed
                     the inputs, as accumulate_bench takes them (it writes them; default 2^10..2^26,
                     f32, uniform, 42); the framework backends take f32 and f64, and are named as
                     not measured for the other types
  --csv=PATH         append one row per measurement, as accumulate_bench --csv does
  --fsum-max=N       largest input numpy/math.fsum sums, in elements (default {DEFAULT_FSUM_MAX}); above
                     it the row is left out, named
  --work-dir=DIR     where the inputs are written while they are summed (default: the system's temporary
                     directory; an existing directory); each is removed once its rows are written
  --benchmark_repetitions=N, --benchmark_min_time=S (or Nx), --benchmark_min_warmup_time=S,
  --benchmark_enable_random_interleaving=true|false
                     the measurement rules' settings, as accumulate_bench takes them
  --help             this text
accumulate_bench's options that concern none of these rows (--threads, --gpus, --include-transfer,
--json, other --benchmark_* flags) are accepted and passed over, named.

Exit status: 0 all ran; 1 none of the selected backends can run here, something was skipped or
failed, or (--require-available) one cannot run here, each named; 2 a bad command line or input.
"""

FLAGS = ("--help", "-h", "--list", "--require-available", "--include-transfer")
HARNESS_INPUT_OPTIONS = ("--sizes", "--dtype", "--input", "--seed")
NOT_FOR_FRAMEWORKS = ("--threads", "--gpus", "--include-transfer", "--json")


class UsageError(Exception):
    pass


def positive_whole(value: str) -> int | None:
    """A whole number from 1 up in ASCII digits, as accumulate_bench reads one; None otherwise
    (str.isdigit() also takes '²' and '١', which int() then refuses or reads)."""
    return int(value) if value.isascii() and value.isdigit() and int(value) >= 1 else None


def parse_seconds(key: str, value: str) -> float:
    try:
        seconds = float(value[:-1] if value.endswith("s") else value) if value.isascii() else -1.0
    except ValueError:
        seconds = -1.0
    if not seconds > 0 or seconds == float("inf"):
        raise UsageError(f"{key}: '{value}' is not a positive time in seconds")
    return seconds


@dataclasses.dataclass
class Options:
    bench: Path = DEFAULT_BENCH
    backend: str = "all"
    harness: list = dataclasses.field(default_factory=list)  # the input options, passed to --write-input
    csv: Path | None = None
    show_list: bool = False
    show_help: bool = False
    require_available: bool = False
    fsum_max: int = DEFAULT_FSUM_MAX
    work_dir: str | None = None
    rules: dict = dataclasses.field(default_factory=dict)  # the --benchmark_* settings, over the harness's
    passed_over: list = dataclasses.field(default_factory=list)


def parse_command_line(args: list[str]) -> Options:
    options = Options()
    for arg in args:
        key, has_value, value = arg.partition("=")
        if key in FLAGS:
            if has_value:
                raise UsageError(f"{key} takes no value")
        elif not key.startswith("--"):
            raise UsageError(f"unknown argument '{arg}' (see --help)")
        elif not value:
            raise UsageError(f"{key} needs a value: {key}=...")
        if key in ("--help", "-h"):
            options.show_help = True
        elif key == "--list":
            options.show_list = True
        elif key == "--require-available":
            options.require_available = True
        elif key == "--bench":
            options.bench = Path(value)
        elif key == "--backend":
            options.backend = value
        elif key in HARNESS_INPUT_OPTIONS:
            options.harness.append(arg)
        elif key == "--csv":
            options.csv = Path(value)
        elif key == "--work-dir":
            if not os.path.isdir(value) or not os.access(value, os.W_OK | os.X_OK):
                raise UsageError(f"--work-dir: '{value}' is not a directory this runner can write in")
            options.work_dir = value
        elif key == "--fsum-max":
            options.fsum_max = positive_whole(value)
            if options.fsum_max is None:
                raise UsageError(f"--fsum-max: '{value}' is not a whole number of elements")
        elif key == "--benchmark_repetitions":
            options.rules["repetitions"] = positive_whole(value)
            if options.rules["repetitions"] is None:
                raise UsageError(f"{key}: '{value}' would measure nothing: give 1 or more")
        elif key == "--benchmark_min_time":
            if value.endswith("x"):
                options.rules["fixed_iterations"] = positive_whole(value[:-1])
                if options.rules["fixed_iterations"] is None:
                    raise UsageError(f"{key}: '{value}' is not a count of calls like 100x")
            else:
                options.rules["min_time_s"] = parse_seconds(key, value)
        elif key == "--benchmark_min_warmup_time":
            options.rules["min_warmup_s"] = parse_seconds(key, value) if value not in ("0", "0s") else 0.0
        elif key == "--benchmark_enable_random_interleaving":
            if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise UsageError(f"{key}: '{value}' is not true or false")
            options.rules["interleave"] = value.lower() in ("true", "1", "yes")
        elif key in NOT_FOR_FRAMEWORKS or key.startswith("--benchmark_"):
            options.passed_over.append(arg)
        else:
            raise UsageError(f"unknown option '{arg}' (see --help)")
    return options


def select(backends: list[Backend], spec: str) -> tuple[list[Backend], list[str]]:
    """The backends --backend names (groups all and device names, names, globs), and the entries that
    name none of them."""
    chosen, unmatched = [], []
    for pattern in spec.split(","):
        hits = [b for b in backends if pattern in ("all", b.device) or fnmatch.fnmatchcase(b.name, pattern)]
        if not hits:
            unmatched.append(pattern)
        chosen += [b for b in hits if b not in chosen]
    return sorted(chosen, key=lambda b: b.name), unmatched


def list_backends(backends: list[Backend]) -> None:
    for b in backends:
        reason = b.unavailable_reason()
        print(f"{b.name:<36} {b.device:<5} {'unavailable' if reason else 'available  '}  {b.description}")
        if reason:
            print(f"{'':44}why unavailable: {reason}")
        traits = next(iter(b.traits.values()))
        print(f"{'':44}accumulator={traits.accumulator} order={traits.order} "
              f"reproducibility={traits.reproducibility} role={traits.role} timer={TIMERS[b.timer]} "
              f"dtype={','.join(b.traits)}")


def make_row(given: handoff.Handoff, item: handoff.Input, case: measure.Case, outcome: measure.Outcome,
             reproducible: bool) -> dict:
    backend = case.backend
    traits = backend.traits[item.dtype]
    device = given.devices.get(backend.device, {})
    gpu = device.get("name") or (backend.device_name() if backend.device_name else "")
    median_ns, min_ns = measure.per_call_ns(outcome)
    nbytes = item.n * handoff.NUMPY_TYPES[item.dtype].itemsize
    result = outcome.results[-1]
    return {
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "host": given.context["host"], "cpu": given.context["cpu"], "gpu": gpu if backend.device != "cpu" else "",
        "compiler": f"{platform.python_implementation()} {platform.python_version()}", "build": "",
        "backend": backend.name, "device": backend.device, "threads": 1, "input": item.label, "seed": item.seed,
        "n": item.n, "bytes": nbytes, "gbps": nbytes / median_ns, "time_ns_median": median_ns, "time_ns_min": min_ns,
        "iterations": outcome.iterations * case.batch, "result": result, "exact": item.exact,
        "rel_error": handoff.relative_error(result, item),
        "peak_gbps": device.get("peak_gbps") if backend.device != "cpu" else None,
        "machine": given.context["machine"], "timing": case.timing, "batch": case.batch, "cache": backend.cache,
        "accumulator": traits.accumulator, "order": traits.order, "reproducibility": traits.reproducibility,
        "role": traits.role, "reproducible": "yes" if reproducible else "no",
        "gpus": 0 if backend.device == "cpu" else 1, "ranks": 1, "pages": outcome.pages or "",
        "configuration": f"{backend.configuration()} timer={TIMERS[backend.timer]}", "dtype": item.dtype,
        "os": given.context["os"],
        # The framework rows have no energy counter; their code is the checkout the harness was built from.
        "energy_j": None, "gb_per_j": None, "version": given.context["version"],
    }


def plan(backends: list[Backend], item: handoff.Input, rules: handoff.Rules, out) -> list[measure.Case]:
    """The cases of one input: isolated and, for device backends, batched; those that do not take its
    element type or size are named."""
    cases = []
    nbytes = item.n * handoff.NUMPY_TYPES[item.dtype].itemsize
    for backend in backends:
        why = (f"does not take {item.dtype}" if item.dtype not in backend.traits else backend.skip_reason(item.n))
        if why:
            print(f"not measured: {backend.name} n={rows.describe_size(item.n, nbytes // item.n)}: {why}", file=out)
            continue
        cases.append(measure.Case(backend, "isolated", 1))
        if backend.batches:
            cases.append(measure.Case(backend, "batched", measure.batch_calls(rules, nbytes)))
    return cases


def unavailable_lines(by_reason: dict[str, list[str]], registered: list[str]) -> list[str]:
    """One line per reason, as accumulate_bench prints them: a backend alone by name; several as
    `family/*` where every registered backend of that family shares the reason, else by name."""
    lines = []
    for reason, names in by_reason.items():
        if len(names) == 1:
            lines.append(f"unavailable here: {names[0]}: {reason}")
            continue
        shown = []
        for family in dict.fromkeys(name.split("/")[0] for name in names):
            members = [n for n in names if n.split("/")[0] == family]
            whole = sorted(members) == sorted(n for n in registered if n.split("/")[0] == family)
            shown += [f"{family}/*"] if whole and len(members) > 1 else members
        lines.append(f"unavailable here: {', '.join(shown)} ({len(names)} backends): {reason}")
    return lines


def run(options: Options) -> int:
    backends, unmatched = select(all_backends(options.fsum_max), options.backend)
    for pattern in unmatched:
        if not handoff.harness_selects(options.bench, pattern):
            raise UsageError(f"--backend: '{pattern}' names no backend: no framework backend ("
                             + ", ".join(b.name for b in all_backends(options.fsum_max))
                             + ") and none of accumulate_bench's (its --list names them)")
    for pattern in unmatched:
        print(f"--backend: '{pattern}' names no framework backend (accumulate_bench's backends run there); passed over")
    for arg in options.passed_over:
        print(f"{arg.split('=')[0]}: concerns no framework row; passed over")
    if not backends:
        print("no framework backend selected; the framework backends: "
              + ", ".join(b.name for b in all_backends(options.fsum_max)))
        return 0
    runnable, unavailable = [], {}
    for backend in backends:
        reason = backend.unavailable_reason()
        if reason:
            unavailable.setdefault(reason, []).append(backend.name)
        else:
            runnable.append(backend)
    for line in unavailable_lines(unavailable, [b.name for b in all_backends(options.fsum_max)]):
        print(line)
    if not runnable:
        print("accumulate_frameworks: none of the selected framework backends can run here (see above)", file=sys.stderr)
        return 1
    missing = len(runnable) < len(backends) and options.require_available
    if missing:
        print("accumulate_frameworks: --require-available: some selected backends cannot run here (see above)",
              file=sys.stderr)

    csv_output = rows.csv_output(options.csv) if options.csv else None  # checked before the inputs are made
    with output_files.scratch_directory("accumulate-frameworks-", options.work_dir) as directory:
        given = handoff.write_inputs(options.bench, directory, options.harness)
        rules = dataclasses.replace(given.rules, **options.rules)
        csv = rows.CsvFile(csv_output, given.columns) if csv_output is not None else None
        status = 1 if given.skipped_inputs or missing else 0
        per_input = [plan(runnable, item, rules, sys.stdout) for item in given.inputs]
        total, done = sum(len(cases) for cases in per_input), 0
        for item, cases in zip(given.inputs, per_input):
            values = item.load() if cases else None
            first_bits: dict[str, bytes] = {}  # each backend's first result on this input

            def finished(case: measure.Case, outcome: measure.Outcome) -> None:
                nonlocal done, status
                done += 1
                counter = f"[{done}/{total}]"
                if outcome.failure:
                    print(f"{counter} {case.backend.name} n={item.n} {case.timing}: "
                          f"{'skipped' if outcome.exhausted else 'FAILED'}: {outcome.failure}",
                          file=sys.stdout if outcome.exhausted else sys.stderr)
                    status = 1
                    return
                bits = np.float64(outcome.results[-1]).tobytes()
                first = first_bits.setdefault(case.backend.name, bits)
                row = make_row(given, item, case, outcome, outcome.same_bits_every_repetition and first == bits)
                print(rows.progress_line(counter, row, handoff.NUMPY_TYPES[item.dtype].itemsize), flush=True)
                if csv:
                    csv.append(row)

            if cases:
                try:
                    measure.time_cases(cases, values, rules, finished)
                except rows.RowError as e:  # a row that could not be written: the file keeps the others
                    print(f"accumulate_frameworks: {e}", file=sys.stderr)
                    return 1
            values = None  # before the next input is loaded
            os.remove(item.path)
    if total == 0 and status == 0:
        print("accumulate_frameworks: nothing was measured (see above)", file=sys.stderr)
        return 1
    return status


def main() -> int:
    try:
        options = parse_command_line(sys.argv[1:])
        if options.show_help:
            print(USAGE, end="")
            return 0
        if options.show_list:
            list_backends(all_backends(options.fsum_max))
            return 0
        return run(options)
    except (UsageError, handoff.HandoffError, rows.RowError) as e:
        print(f"accumulate_frameworks: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(output_files.run_stoppable(main))
