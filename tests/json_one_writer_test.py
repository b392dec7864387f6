#!/usr/bin/env python3
"""Two accumulate_bench runs naming one --json path: while the first runs, the second stops before
measuring anything, exit status 2, with a message naming the path and the other run, and leaves the
first run's document alone. Once the first is killed (SIGKILL: no clean-up), its lock file may stay
behind, and a third run writes the path all the same.

    json_one_writer_test.py [EMULATOR...] ACCUMULATE_BENCH
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

QUICK = ["--benchmark_repetitions=1", "--benchmark_min_time=0.01", "--benchmark_min_warmup_time=0"]


def main():
    bench = sys.argv[1:]
    work = tempfile.mkdtemp(prefix="json_one_writer_")
    json_path = os.path.join(work, "out.json")
    lock_path = os.path.join(work, ".out.json.lock")
    # Long enough to be running when the second starts: it is killed before it ends.
    first = subprocess.Popen([*bench, "--backend=cpu/serial/accumulate-f32", "--sizes=2^10..2^30",
                              "--benchmark_repetitions=1000", "--json=" + json_path],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    failures = []
    try:
        deadline = time.monotonic() + 120
        while not os.path.exists(lock_path) and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if not os.path.exists(lock_path):
            print(f"the first run made no lock file {lock_path} (exit status {first.poll()})")
            return 1
        before = open(json_path, "rb").read() if os.path.exists(json_path) else None
        second = subprocess.run([*bench, "--backend=cpu/serial/accumulate-f32", "--sizes=2^10", *QUICK,
                                 "--json=" + json_path], capture_output=True, text=True, timeout=120)
        output = second.stdout + second.stderr
        print("second run:", second.returncode, output, sep="\n")
        if second.returncode != 2:
            failures.append(f"the second run's exit status is {second.returncode}, not 2")
        expected = f"--json: another accumulate_bench run is writing '{json_path}'"
        if expected not in output:
            failures.append(f"the second run does not say '{expected}'")
        if "GB/s" in output:
            failures.append("the second run measured something")
        if first.poll() is not None:
            failures.append(f"the first run ended (exit status {first.returncode}) before the check was over")
        after = open(json_path, "rb").read() if os.path.exists(json_path) else None
        if before is not None and (after is None or not after.startswith(b"{")):
            failures.append("the first run's document was damaged")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()

    third = subprocess.run([*bench, "--backend=cpu/serial/accumulate-f32", "--sizes=2^10", *QUICK,
                            "--json=" + json_path], capture_output=True, text=True, timeout=120)
    print("third run, after the first was killed:", third.returncode, third.stdout + third.stderr, sep="\n")
    if third.returncode != 0:
        failures.append(f"a lock file left by a killed run blocked the next run (exit status {third.returncode})")
    elif '"backend": "cpu/serial/accumulate-f32"' not in open(json_path).read():
        failures.append("the third run's document lacks its measurement")
    if os.path.exists(lock_path):
        failures.append("a run that ended left its lock file")

    for failure in failures:
        print("FAILED:", failure)
    if not failures:
        for name in os.listdir(work):
            os.remove(os.path.join(work, name))
        os.rmdir(work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
