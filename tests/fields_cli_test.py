#!/usr/bin/env python3
"""accumulate_bench's fields survive the round trip through its files (results/README.md, "Columns"),
checked on the real program in a temporary directory:
  - input files whose names are not UTF-8, two of one name in two folders: the CSV is valid UTF-8
    and the input column tells them apart (the name's bytes escaped);
  - a sum that is a NaN with its sign bit set (inf + -inf): "nan", never "-nan", in every column;
  - time_ns_median at 16 elements gives gbps back to 1e-6;
  - --seed=18446744073709551615 is a JSON string, which a JavaScript reader gets exactly;
  - a host name holding '/', a newline and a control character (set in a UTS namespace of its own,
    where unshare(1) may make one): --machine and the host column are one line, safe in a file name;
  - progress lines say isolated or batched.

    fields_cli_test.py [EMULATOR...] ACCUMULATE_BENCH
"""
import csv
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

QUICK = ["--benchmark_repetitions=1", "--benchmark_min_time=0.01", "--benchmark_min_warmup_time=0"]
SERIAL = "--backend=cpu/serial/accumulate-f32"


def main():
    bench = sys.argv[1:]
    work = tempfile.mkdtemp(prefix="fields_cli_")
    failures = []

    def run(*args, prefix=()):
        done = subprocess.run([*prefix, *bench, *args, *QUICK], cwd=work, capture_output=True, timeout=300)
        out = done.stdout.decode(errors="replace") + done.stderr.decode(errors="replace")
        if done.returncode != 0:
            failures.append(f"{' '.join(args)}: exit status {done.returncode}:\n{out}")
        return out

    def rows(name):
        """The CSV's rows; a file that is not UTF-8 is a failure (pandas refuses all of it)."""
        data = open(os.path.join(work, name), "rb").read()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            failures.append(f"{name} is not UTF-8: {e}")
            text = data.decode("utf-8", errors="replace")
        return list(csv.DictReader(io.StringIO(text, newline="")))

    def write_floats(name, values):
        path = os.path.join(os.fsencode(work), name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(struct.pack(f"<{len(values)}f", *values))
        return path

    # Two files named b"same\xff.f32" in two folders.
    for folder in (b"a", b"b"):
        path = write_floats(folder + b"/same\xff.f32", [1.0, 2.0])
        out = run(SERIAL, b"--input=file:" + path, "--csv=names.csv")
        if " isolated " not in out:
            failures.append(f"the progress line does not say isolated:\n{out}")
    inputs = [r["input"] for r in rows("names.csv")]
    if len(inputs) != 2 or inputs[0] == inputs[1]:
        failures.append(f"two files share an input value, or a row is missing: {inputs}")
    for folder, value in zip("ab", inputs):
        if not (value.startswith("file:/") and value.endswith(f"/{folder}/same\\xff.f32")):
            failures.append(f"input {value!r} is not file: and the absolute path, its odd byte as \\xff")

    # inf + -inf: x86 makes a NaN with its sign bit set, which printf writes "-nan".
    path = write_floats(b"nonfinite.f32", [float("inf"), float("-inf")])
    out = run(SERIAL, b"--input=file:" + path, "--csv=nan.csv")
    (row,) = rows("nan.csv") or [{}]
    for column in ("result", "exact", "rel_error"):
        if row.get(column) != "nan":
            failures.append(f"column {column} is {row.get(column)!r}, not 'nan'")
    if "-nan" in out:
        failures.append(f"a progress line says -nan:\n{out}")

    # 16 elements: one decimal of a nanosecond was 0.66% of the time.
    run(SERIAL, "--sizes=2^4", "--seed=18446744073709551615", "--csv=small.csv", "--json=small.json")
    (row,) = rows("small.csv") or [{}]
    text = open(os.path.join(work, "small.json")).read()
    (measured,) = json.loads(text)["measurements"] or [{}]
    gbps = int(row["bytes"]) / float(row["time_ns_median"])
    if abs(gbps / measured["gbps"] - 1) > 1e-6:
        failures.append(f"bytes / time_ns_median = {gbps!r} from {row['time_ns_median']!r}, gbps {measured['gbps']!r}")
    if '"seed": "18446744073709551615"' not in text or measured.get("seed") != "18446744073709551615":
        failures.append(f"the seed past 2^53 is not a JSON string: {measured.get('seed')!r}")
    if row.get("seed") != "18446744073709551615":
        failures.append(f"the CSV's seed is {row.get('seed')!r}")

    # A host name with '/', a newline and a control character, where a UTS namespace can be had.
    odd_host = "a/b\n\x01c"
    host_prefix = ["unshare", "--uts", sys.executable, "-c",
                   "import os, socket, sys; socket.sethostname(sys.argv[1]); os.execvp(sys.argv[2], sys.argv[2:])", odd_host]
    probe = subprocess.run([*host_prefix, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"host name check skipped: no UTS namespace of its own here ({probe.stderr.strip()})")
    else:
        machine = subprocess.run([*host_prefix, *bench, "--machine"], cwd=work, capture_output=True, timeout=60).stdout.decode()
        name = machine[:-1] if machine.endswith("\n") else machine
        if any(c in name for c in "/\\\n\r\x01") or not name.startswith("a_b__c-"):
            failures.append(f"--machine under host {odd_host!r} prints {machine!r}")
        else:
            os.makedirs(os.path.join(work, "results"))
            run(SERIAL, "--sizes=2^4", f"--csv=results/{name}.csv", prefix=host_prefix)
            (row,) = rows(f"results/{name}.csv") or [{}]
            if row.get("host") != "a_b__c" or row.get("machine") != name:
                failures.append(f"host {row.get('host')!r}, machine {row.get('machine')!r} under host {odd_host!r}")

    for failure in failures:
        print("FAILED:", failure)
    if not failures:  # a failed run's files stay, to be looked at
        shutil.rmtree(work)
    else:
        print("files left in", work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
