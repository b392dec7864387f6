#!/usr/bin/env python3
"""cpu_yardstick's plain loops sum what they are given: on small integers (--input=ones) every
yardstick/* row's result is the exact sum, at sizes with every lane remainder of the widest
vector, one thread and two. A loop that skipped or repeated elements would read faster than the
kernels it judges. Exits 77 (ctest: skipped) where the CPU runs none of the loops.

    cpu_yardstick_test.py CPU_YARDSTICK
"""
import csv
import subprocess
import sys
import tempfile

SKIP = 77
QUICK = ["--benchmark_repetitions=1", "--benchmark_min_time=0.001", "--benchmark_min_warmup_time=0"]


def main():
    tool = sys.argv[1]
    listing = subprocess.run([tool, "--list"], capture_output=True, text=True, check=True).stdout
    names = [line.split()[0] for line in listing.splitlines()
             if line.startswith("yardstick/") and " available " in line]
    if not names:
        print("skipped: the CPU runs none of the yardstick's loops (no AVX2)")
        return SKIP
    with tempfile.TemporaryDirectory() as tmp:
        path = tmp + "/rows.csv"
        command = [tool, "--backend=" + ",".join(names), "--input=ones", "--threads=1,2",
                   "--sizes=1,15,17,1000,4099,65551", "--csv=" + path] + QUICK
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
        if result.returncode != 0:
            print(result.stdout + result.stderr)
            return 1
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    wrong = [r for r in rows if float(r["result"]) != float(r["exact"])]
    for r in wrong:
        print("%s n=%s threads=%s: %s, exact %s" % (r["backend"], r["n"], r["threads"], r["result"], r["exact"]))
    seen = {r["backend"] for r in rows}
    if seen != set(names):
        print("no rows for: " + ", ".join(sorted(set(names) - seen)))
        return 1
    print("%d rows of %d loops, every one exact" % (len(rows), len(names)))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
