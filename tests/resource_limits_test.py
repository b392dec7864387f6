#!/usr/bin/env python3
"""Memory and threads that cannot be had are skips, named, not crashes, and the sweep goes on:

- under ulimit -v with room for a 2^26 float input but not for a backend's copy of it, each
  backend's case says it was skipped for want of memory (exit status 1, no FAILED);
- under a process limit (prlimit --nproc) with room for 2 threads but not 8, every parallel
  backend at 8 threads is skipped naming it, and at 2 threads measured: OpenMP (whose runtime
  would exit the process) and oneTBB (whose runtime would terminate it) among them.

RLIMIT_NPROC does not limit root: as root the program runs as the unprivileged user 65534
(setpriv). A part that cannot be set up here is reported as not checked, with the reason, and
when no part could be the test exits 77 (ctest: skipped).

    resource_limits_test.py [EMULATOR...] ACCUMULATE_BENCH
"""
import os
import re
import shutil
import subprocess
import sys

SKIP = 77
QUICK = ["--benchmark_repetitions=3", "--benchmark_min_time=0.001", "--benchmark_min_warmup_time=0"]
SIZE_EXPONENT = 26  # a 256 MiB float input: its copy needs 256 MiB more
PARALLEL = ["cpu/openmp/reduction", "cpu/openmp/simd", "cpu/threads/simd", "cpu/pool/simd", "cpu/tbb/reduce", "cpu/stl/par"]


def run(command):
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout + done.stderr


def under_address_limit(kib, bench, args):
    return run(["bash", "-c", f'ulimit -v {kib} && exec "$@"', "bash", *bench, *args])


def check_memory(bench, check):
    """Bisects for the smallest address-space limit under which the input is made, then runs with
    64 MiB more: room for the input, none for a copy of it."""
    args = ["--backend=cpu/serial/accumulate-f32,cpu/serial/kahan", f"--sizes=2^{SIZE_EXPONENT}", *QUICK]

    def made(out):
        return "skipping n=" not in out and "accumulate_bench:" not in out

    low, high = 1 << 18, 1 << 23  # KiB: 256 MiB .. 8 GiB
    status, out = under_address_limit(high, bench, args)
    if not made(out):
        return f"the program does not make a 2^{SIZE_EXPONENT} input under ulimit -v {high} (exit {status}): {out[-300:]}"
    while high - low > 1 << 14:  # 16 MiB
        middle = (low + high) // 2
        if made(under_address_limit(middle, bench, args)[1]):
            high = middle
        else:
            low = middle
    status, out = under_address_limit(high + (1 << 16), bench, args)
    print(f"ulimit -v {high + (1 << 16)}: exit {status}\n{out}")
    for backend in ("cpu/serial/accumulate-f32", "cpu/serial/kahan"):
        check(re.search(rf"\] {re.escape(backend)}/n:{1 << SIZE_EXPONENT}/[^\n]*: skipped: allocating memory for this size failed", out),
              f"under ulimit -v, {backend} is not skipped for want of memory")
    check(status == 1 and "FAILED" not in out, f"under ulimit -v: exit {status}, expected 1 and no FAILED")
    return None


def threads_of_user(uid):
    held = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}").st_uid == uid:
                held += len(os.listdir(f"/proc/{pid}/task"))
        except OSError:
            pass  # ended meanwhile
    return held


def check_threads(bench, check):
    if shutil.which("prlimit") is None:
        return "no prlimit (util-linux) on the PATH"
    prefix, uid = [], os.geteuid()
    if uid == 0:  # RLIMIT_NPROC does not limit root
        if shutil.which("setpriv") is None:
            return "running as root, and no setpriv (util-linux) to run the program as an unprivileged user"
        prefix, uid = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"], 65534
    limit = threads_of_user(uid) + 4  # the program's thread and 3 more: 2 threads run, 8 do not
    command = [*prefix, "prlimit", f"--nproc={limit}", *bench, "--backend=" + ",".join(p + "*" for p in PARALLEL),
               "--sizes=2^16", "--threads=8,2", *QUICK]
    status, out = run(command)
    print(f"{' '.join(command)}: exit {status}\n{out}")
    if status in (126, 127):
        return f"the program could not be started as user {uid}: {out[-300:]}"
    check(status == 1 and "FAILED" not in out, f"under prlimit --nproc: exit {status}, expected 1 and no FAILED")
    for backend in PARALLEL:
        if re.search(rf"unavailable here: [^\n]*{re.escape(backend)}[,: ]", out):
            continue  # not in this build (oneTBB), said so
        check(re.search(rf"\] {re.escape(backend)}/n:65536/[^\n]*/threads:8: skipped: ", out),
              f"under prlimit --nproc, {backend} at 8 threads is not skipped naming why")
        check(re.search(rf"\] {re.escape(backend)} +cpu +isolated +n=2\^16 [^\n]* threads=2 ", out),
              f"under prlimit --nproc, {backend} at 2 threads is not measured")
    return None


def main():
    bench = sys.argv[1:]
    failures, not_checked = [], []

    def check(ok, what):
        if not ok:
            failures.append(what)

    for name, part in [("memory under ulimit -v", check_memory), ("threads under a process limit", check_threads)]:
        reason = part(bench, check)
        if reason:
            print(f"not checked here: {name}: {reason}")
            not_checked.append(name)
    for failure in failures:
        print("FAILED:", failure)
    if failures:
        return 1
    if len(not_checked) == 2:
        return SKIP
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
