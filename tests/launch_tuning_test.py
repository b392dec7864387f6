#!/usr/bin/env python3
"""The portable kernels' launch tuner across processes (api/launch_tuning.hpp), on whatever device
each API has here (PoCL, lavapipe in CI):

- the cache round trip: a first run tunes (configuration `shape=tuner`) and writes the cache, a
  second process reads it (`shape=cache`) without tuning;
- a corrupt cache file is refused with a message naming it, tuned again, and rewritten valid;
- two processes tuning at once both succeed, one tuning and one reading what it wrote, and the
  cache file is valid after;
- --retune tunes again over a valid cache; --tune=off runs the defaults and writes no cache.

    launch_tuning_test.py [EMULATOR...] ACCUMULATE_BENCH BACKEND

Exit status 77 (skipped) where BACKEND cannot run here.
"""
import csv
import os
import re
import subprocess
import sys
import tempfile

QUICK = ["--sizes=2^10", "--benchmark_repetitions=1", "--benchmark_min_time=0.001", "--benchmark_min_warmup_time=0"]
HEADER = "accumulate-shootout launch shapes 2"


def main():
    bench, backend = sys.argv[1:-1], sys.argv[-1]
    listed = subprocess.run([*bench, "--list"], capture_output=True, text=True, timeout=300).stdout
    if not any(line.split()[:3] == [backend, backend.split("/")[0], "available"] for line in listed.splitlines()):
        print(f"{backend} cannot run here")
        return 77
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    def start(cache, csv_path, *args):
        env = dict(os.environ, XDG_CACHE_HOME=cache)
        env.pop("SHOOTOUT_TUNE", None)
        env.pop("SHOOTOUT_LAUNCH", None)
        return subprocess.Popen([*bench, f"--backend={backend}", *QUICK, f"--csv={csv_path}", *args], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def finish(process, csv_path):
        out, err = process.communicate(timeout=600)
        with open(csv_path, newline="") as f:
            rows = list(csv.DictReader(f))
        os.remove(csv_path)
        sources = {match.group(1) if (match := re.search(r"shape=(\w+)", row["configuration"])) else row["configuration"]
                   for row in rows}
        return process.returncode, sources, err

    def run(cache, *args):
        csv_path = os.path.join(cache, "rows.csv")
        return finish(start(cache, csv_path, *args), csv_path)

    def cache_files(cache):
        folder = os.path.join(cache, "accumulate-shootout")
        if not os.path.isdir(folder):
            return []
        return [os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".launch")]

    def valid(cache):
        files = cache_files(cache)
        if len(files) != 1:
            return False
        with open(files[0]) as f:
            lines = f.read().splitlines()
        return lines[:2] == [HEADER, f"kernel {backend}"] and len(lines) == 7 and lines[-1] == "end"

    with tempfile.TemporaryDirectory() as cache:
        code, sources, err = run(cache)
        check(code == 0 and sources == {"tuner"} and f"tuning {backend}" in err,
              f"first run: exit {code}, shapes from {sources}, expected the tuner:\n{err}")
        check(valid(cache), f"first run: no valid cache file in {cache}: {cache_files(cache)}")
        code, sources, err = run(cache)
        check(code == 0 and sources == {"cache"} and "tuning" not in err,
              f"second run: exit {code}, shapes from {sources}, expected the cache:\n{err}")

        path = cache_files(cache)[0]
        with open(path, "w") as f:
            f.write("accumulate-shootout launch shapes 0\ngarbage\n")
        code, sources, err = run(cache)
        check(code == 0 and sources == {"tuner"} and f"the cache {path} is refused" in err and "tuning again" in err,
              f"corrupt cache: exit {code}, shapes from {sources}, expected it refused, named, and tuned again:\n{err}")
        check(valid(cache), "corrupt cache: not rewritten valid")

        code, sources, err = run(cache, "--retune")
        check(code == 0 and sources == {"tuner"} and f"tuning {backend}" in err,
              f"--retune: exit {code}, shapes from {sources}, expected the tuner:\n{err}")

    with tempfile.TemporaryDirectory() as cache:
        code, sources, err = run(cache, "--tune=off")
        check(code == 0 and sources == {"defaults"} and not cache_files(cache),
              f"--tune=off: exit {code}, shapes from {sources}, cache files {cache_files(cache)}:\n{err}")

    with tempfile.TemporaryDirectory() as cache:
        paths = [os.path.join(cache, f"rows{i}.csv") for i in range(2)]
        processes = [start(cache, p) for p in paths]
        results = [finish(p, path) for p, path in zip(processes, paths)]
        codes = [code for code, _, _ in results]
        sources = sorted(next(iter(s)) if len(s) == 1 else str(s) for _, s, _ in results)
        check(codes == [0, 0] and sources == ["cache", "tuner"],
              f"two at once: exits {codes}, shapes from {sources}, expected one tuner and one cache:\n"
              + "\n".join(err for _, _, err in results))
        check(valid(cache), "two at once: the cache file is not valid after")
        leftovers = [n for n in os.listdir(os.path.join(cache, "accumulate-shootout")) if ".tmp-" in n]
        check(not leftovers, f"two at once: temporary files left: {leftovers}")

    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
