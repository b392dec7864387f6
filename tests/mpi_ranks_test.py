#!/usr/bin/env python3
"""accumulate_bench under `mpirun -np R` for R = 1, 2, 3 with the mpi/* backends on a small odd
size: only rank 0 writes rows, each says ranks = R, the exact sum is the same for every R, mpi/exact
gives the same bits for every R and equals it (on an ill-conditioned input too, and on float64
input), and the double backends agree with the one-process backend they wrap; a usage error on any
rank stops every rank with exit status 2 and one message. Exits 77 (ctest: skipped) with the reason
when the build or the machine has no MPI.

    mpi_ranks_test.py ACCUMULATE_BENCH
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
SIZE = "1000003"
QUICK = ["--benchmark_repetitions=2", "--benchmark_min_time=0.01", "--benchmark_min_warmup_time=0"]


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)
    return result.returncode, result.stdout + result.stderr


def mpirun_command(ranks):
    # --oversubscribe: CI has 2 cores and R goes to 3; as root (CI), OpenMPI wants it said.
    command = ["mpirun", "--oversubscribe", "-np", str(ranks)]
    if os.geteuid() == 0:
        command.insert(1, "--allow-run-as-root")
    return command


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    bench = sys.argv[1]
    status, listing = run([bench, "--list"])
    if "built without MPI" in listing:
        print("skipped: accumulate_bench was built without MPI (install libopenmpi-dev and rebuild)")
        return SKIP
    if shutil.which("mpirun") is None:
        print("skipped: no mpirun on the PATH (install openmpi-bin)")
        return SKIP
    backends = ["mpi/pool-simd", "mpi/exact"]
    # mpi/cuda where this machine has a GPU for it (the GPU machine's run of the suite).
    if any(line.startswith("mpi/cuda ") and " available " in line for line in listing.splitlines()):
        backends.append("mpi/cuda")
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    work = tempfile.mkdtemp(prefix="mpi_ranks_")
    common = ["--sizes=" + SIZE, "--input=normal", "--seed=5", "--threads=1", *QUICK]
    single = os.path.join(work, "single.csv")
    status, out = run([bench, "--backend=cpu/pool/simd,cuda/single-pass-f64" if "mpi/cuda" in backends
                       else "--backend=cpu/pool/simd", "--csv=" + single, *common])
    check(status == 0, f"the one-process run failed ({status}):\n{out}")
    one_process = {r["backend"]: r["result"] for r in rows(single)} if status == 0 else {}

    by_ranks = {}
    for ranks in (1, 2, 3):
        path = os.path.join(work, f"ranks{ranks}.csv")
        status, out = run(mpirun_command(ranks) + [bench, "--backend=" + ",".join(backends), "--csv=" + path, *common])
        check(status == 0, f"-np {ranks}: exit status {status}:\n{out}")
        if status != 0:
            continue
        got = rows(path)
        check(len(got) == len(backends), f"-np {ranks}: {len(got)} rows, expected {len(backends)} (rank 0's only)")
        check(out.count("[1/") == 1, f"-np {ranks}: progress printed by more than rank 0:\n{out}")
        for r in got:
            check(r["ranks"] == str(ranks), f"-np {ranks}: {r['backend']} says ranks={r['ranks']}")
            check(r["n"] == SIZE, f"-np {ranks}: {r['backend']} says n={r['n']}: the whole input's size is expected")
        by_ranks[ranks] = {r["backend"]: r for r in got}

    exacts = {ranks: {r["exact"] for r in got.values()} for ranks, got in by_ranks.items()}
    check(len(set().union(*exacts.values())) == 1 if exacts else False,
          f"the exact column differs between rank counts or rows: {exacts}")
    for ranks, got in by_ranks.items():
        exact_row = got.get("mpi/exact")
        check(exact_row is not None and exact_row["result"] == exact_row["exact"],
              f"-np {ranks}: mpi/exact result {exact_row and exact_row['result']} is not the exact sum")
        for backend, local in [("mpi/pool-simd", "cpu/pool/simd"), ("mpi/cuda", "cuda/single-pass-f64")]:
            if backend not in got:
                continue
            if ranks == 1 and local in one_process:
                # One rank sums the whole input with the local backend, and adds nothing to it.
                check(got[backend]["result"] == one_process[local],
                      f"-np 1: {backend} gives {got[backend]['result']}, {local} alone {one_process[local]}")
            check(float(got[backend]["rel_error"]) < 1e-12,
                  f"-np {ranks}: {backend} relative error {got[backend]['rel_error']} (double accumulation)")
    results = {ranks: got["mpi/exact"]["result"] for ranks, got in by_ranks.items() if "mpi/exact" in got}
    check(len(set(results.values())) == 1, f"mpi/exact differs between rank counts: {results}")

    # An input whose sum any other order of additions gets wrong (condition number 1e16): the
    # exact sum must still come out the same, bit for bit, for every rank count.
    hard = {}
    for ranks in (1, 2, 3):
        path = os.path.join(work, f"hard{ranks}.csv")
        status, out = run(mpirun_command(ranks) + [bench, "--backend=mpi/exact", "--csv=" + path,
                                                   "--sizes=" + SIZE, "--input=ill:1e16", *QUICK])
        check(status == 0, f"-np {ranks}, ill:1e16: exit status {status}:\n{out}")
        if status == 0:
            hard[ranks] = [(r["result"], r["exact"]) for r in rows(path)]
    check(len({tuple(v) for v in hard.values()}) == 1 and all(res == ex for v in hard.values() for res, ex in v),
          f"mpi/exact on ill:1e16 differs between rank counts or from the exact sum: {hard}")

    # float64 shards: mpi/exact is exact and the same bits for every rank count; the double
    # accumulation of uniform doubles is within n u of it (1000003 x 2^-53 ~ 1.1e-10).
    doubles = {}
    for ranks in (1, 2):
        path = os.path.join(work, f"f64-{ranks}.csv")
        status, out = run(mpirun_command(ranks) + [bench, "--backend=mpi/pool-simd,mpi/exact", "--dtype=f64", "--csv=" + path,
                                                   "--sizes=" + SIZE, "--input=uniform", "--threads=1", *QUICK])
        check(status == 0, f"-np {ranks}, --dtype=f64: exit status {status}:\n{out}")
        if status != 0:
            continue
        got = {r["backend"]: r for r in rows(path)}
        check(all(r["dtype"] == "f64" for r in got.values()), f"-np {ranks}, --dtype=f64: rows of another dtype")
        exact_row = got.get("mpi/exact")
        check(exact_row is not None and exact_row["result"] == exact_row["exact"],
              f"-np {ranks}, --dtype=f64: mpi/exact result {exact_row and exact_row['result']} is not the exact sum")
        check("mpi/pool-simd" in got and float(got["mpi/pool-simd"]["rel_error"]) < 1e-9,
              f"-np {ranks}, --dtype=f64: mpi/pool-simd relative error {got.get('mpi/pool-simd', {}).get('rel_error')}")
        if exact_row is not None:
            doubles[ranks] = exact_row["result"]
    check(len(set(doubles.values())) == 1, f"mpi/exact on doubles differs between rank counts: {doubles}")

    # With several ranks only mpi/* run: a one-process backend is named as unavailable.
    status, out = run(mpirun_command(2) + [bench, "--backend=cpu/serial/accumulate-f64", *common])
    check(status == 1 and "under mpirun only mpi/* backends run" in out,
          f"-np 2 with a one-process backend: exit {status}, expected 1 naming why:\n{out}")

    # Interleaved repetitions under several ranks would shuffle each rank's cases its own way and
    # deadlock in the collectives: refused up front (the default turns it off there).
    status, out = run(mpirun_command(2) + [bench, "--backend=mpi/exact", "--benchmark_enable_random_interleaving=true", *common])
    check(status == 2 and "under mpirun with 2 ranks" in out,
          f"-np 2 asking for interleaving: exit {status}, expected 2 naming why:\n{out}")

    # A usage error, whichever rank finds it (a --csv path only rank 0 opens among them), stops every
    # rank with exit status 2, its message printed once, by rank 0, and no rank aborted.
    for args, message in [(["--backend=nope"], "'nope' names no backend"),
                          (["--backend=mpi/exact", "--benchmark_bogus=1"], "unknown Google Benchmark flag '--benchmark_bogus=1'"),
                          (["--backend=mpi/exact", "--sizes=2^10", "--csv=" + os.path.join(work, "no", "such.csv")],
                           "--csv: cannot write"),
                          (["--backend=mpi/exact", "--input=file:" + os.path.join(work, "no_such_input.f32")],
                           "cannot be opened")]:
        status, out = run(mpirun_command(2) + [bench, *QUICK, *args])
        check(status == 2 and out.count(message) == 1 and "MPI_ABORT" not in out,
              f"-np 2 {' '.join(args)}: exit {status}, expected 2 and '{message}' once, no MPI_ABORT:\n{out}")

    shutil.rmtree(work, ignore_errors=True)
    for failure in failures:
        print("FAILED:", failure)
    print(f"{'ok' if not failures else 'FAILED'}: mpirun -np 1, 2, 3 with {', '.join(backends)}, "
          "mpi/exact on ill:1e16, and float64 at -np 1 and 2")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
