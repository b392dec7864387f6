#!/usr/bin/env python3
"""accumulate_bench says every failure and sets its exit status (README.md, "Exit status"), where a
command line alone cannot show it:

- standard output on a full device (/dev/full): --list and a sweep exit 1, saying that writing
  standard output failed;
- a typed .npy input: the backends that do not take its type are named, as --dtype names them;
- --write-input of a type with no .npy dtype (bf16): refused, exit 2, before any file is written.

    exit_status_test.py [EMULATOR...] ACCUMULATE_BENCH
"""
import os
import shutil
import subprocess
import sys
import tempfile

QUICK = ["--benchmark_repetitions=1", "--benchmark_min_time=0.001", "--benchmark_min_warmup_time=0"]


def main():
    bench = sys.argv[1:]
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    def run(*args):
        done = subprocess.run([*bench, *args], capture_output=True, text=True, timeout=300)
        return done.returncode, done.stdout + done.stderr

    if os.path.exists("/dev/full"):
        for what, args in [("--list", ["--list"]),
                           ("a sweep", ["--backend=cpu/serial/accumulate-f32", "--sizes=2^10", *QUICK])]:
            with open("/dev/full", "w") as full:
                done = subprocess.run([*bench, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
            check(done.returncode == 1 and "writing standard output failed" in done.stderr,
                  f"{what} > /dev/full: exit {done.returncode}, expected 1 saying so:\n{done.stderr}")
    else:
        print("not checked here: standard output on a full device (no /dev/full)")

    work = tempfile.mkdtemp(prefix="exit_status_")
    try:
        status, out = run(f"--write-input={work}", "--dtype=f16", "--sizes=2^10")
        check(status == 0, f"--write-input --dtype=f16: exit {status}:\n{out}")
        npy = os.path.join(work, "000-f16-n1024.npy")
        if status == 0:
            # cpu/baseline/read takes f32 only: named, not silently left out; the f16 backend runs.
            status, out = run("--backend=cpu/baseline/read,cpu/serial/accumulate-f16", f"--input=file:{npy}", *QUICK)
            check(status == 0 and "not measured with the input file's f16 values (they do not take it): cpu/baseline/read"
                  in out and "cpu/serial/accumulate-f16 " in out,
                  f"an f16 .npy input: exit {status}, expected 0 naming cpu/baseline/read:\n{out}")

        empty = os.path.join(work, "bf16")
        os.mkdir(empty)
        status, out = run(f"--write-input={empty}", "--dtype=f32,bf16", "--sizes=2^10")
        check(status == 2 and "--dtype=bf16: the inputs are written as .npy files, and bfloat16 has no .npy dtype" in out,
              f"--write-input --dtype=f32,bf16: exit {status}, expected 2 saying why:\n{out}")
        check(os.listdir(empty) == [], f"--write-input --dtype=f32,bf16 wrote {os.listdir(empty)} before refusing")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    for failure in failures:
        print("FAILED:", failure)
    print("ok" if not failures else "FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
