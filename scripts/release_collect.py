#!/usr/bin/env python3
"""Places a release's rows under results/: the archives scripts/release.sh left on each machine.

    scripts/release_collect.py TAG SOURCE... [--results DIR] [--no-plot]

SOURCE: release archives (release-PREFIX-PLAN.tgz, the last call's of each machine and plan) or
folders holding them. In this order, and nothing is changed until every check passed:
  1. TAG is a release tag (results-*); every archive's version, and every row's, is TAG; the CSVs
     share one header; results/ has no change git does not have (exit status 2 otherwise);
  2. coverage: per machine file, the plan's units that never ran and, of those that ran, the cases
     the machine listed (lists/STEP.txt) that have no row: printed, for the release note;
  3. every results/*.csv and results/latency/*.csv of another version moves (git mv) to
     results/archive/<OLD-VERSION>/ under its own name (latency/ kept): none is ever written over,
     and a file of several versions, or none, is refused;
  4. the rows go to results/<FILE>.csv (FILE: the plan's file column, @ the archive's PREFIX), a
     yardstick step's folder to results/<FILE>-<TAG>/, the archives to results/logs/; a file already
     there of TAG is replaced only when every row of it is among the new ones (an earlier collect
     of fewer calls), a folder or archive only by one holding all it holds;
  5. scripts/plot.sh redraws the plots, summary.md and report.html (not with --no-plot, nor for a
     --results folder other than the repository's).
Each file is written as plot/output_files.py writes every file (a temporary beside it renamed over
it, no link followed, the temporary removed on a stop signal), and staged (git add).
Exit status: 0 placed (coverage gaps are printed, not failed); 2 refused, nothing changed; 1 a file
could not be written.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import re
import subprocess
import sys
import tarfile
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.append(str(REPO / "plot"))  # output_files: every file the Python tools write
import output_files  # noqa: E402

RELEASE_TAG = re.compile(r"^results-[A-Za-z0-9._-]+$")
NOT_A_TAG = re.compile(r"-[0-9]+-g[0-9a-f]+(-dirty)?$|-dirty$")  # describe's "commits after the tag", a dirty tree
CASE = re.compile(r"^(?P<backend>.+?)/n:(?P<n>\d+)/dtype:(?P<dtype>[^/]+)/input:(?P<input>.*)/threads:(?P<threads>\d+)"
                  r"(?:/gpus:(?P<gpus>\d+))?(?P<h2d>/h2d)?(?P<batched>/batched)?/(?:manual|real)_time$")


class Refused(Exception):
    pass


def is_release_tag(version: str) -> bool:
    return bool(RELEASE_TAG.match(version)) and not NOT_A_TAG.search(version)


class Archive:
    """One machine's and plan's state, as release.sh packed it."""

    def __init__(self, path: Path):
        self.path = path
        try:
            self.tar = tarfile.open(path, "r:gz")
        except (OSError, tarfile.TarError) as e:
            raise Refused(f"{path}: cannot be read as a release archive ({e})") from None
        tops = {m.name.split("/", 1)[0] for m in self.tar.getmembers()}
        if len(tops) != 1 or not next(iter(tops)).startswith("release-"):
            raise Refused(f"{path}: not a release archive (one folder release-PREFIX-PLAN/)")
        self.top = tops.pop()
        self.prefix, self.plan = self.top[len("release-"):].rsplit("-", 1)
        self.version = self.text("version.txt").strip()
        self.steps = [line.split(None, 9) for line in self.text("plan.txt").splitlines() if line.strip()]
        self.done = {}  # (step, unit) -> exit status
        for line in self.text("done.tsv").splitlines():
            step, unit, *_, rc, _call = line.split("\t")
            self.done[(step, unit)] = rc

    def member(self, name: str):
        try:
            return self.tar.getmember(f"{self.top}/{name}")
        except KeyError:
            return None

    def text(self, name: str, default: str | None = None) -> str:
        member = self.member(name)
        if member is None:
            if default is not None:
                return default
            raise Refused(f"{self.path}: no {name}")
        return self.tar.extractfile(member).read().decode()

    def names(self) -> set[str]:
        return set(self.tar.getnames())


def expand_sizes(spec: str) -> list[str]:
    sizes = []
    for part in spec.split(","):
        m = re.fullmatch(r"2\^(\d+)\.\.2\^(\d+)", part)
        sizes += [f"2^{e}" for e in range(int(m[1]), int(m[2]) + 1)] if m else [part]
    return sizes


def unit_name(input_: str, size: str, dtype: str) -> str:
    """release.sh's unit_name: input-size-dtype with ^ as p and other odd characters as -."""
    name = f"{input_}-{size}-{dtype}".replace("^", "p").replace(":", "-")
    return re.sub(r"[^A-Za-z0-9._-]", "-", name)


def units(step: list[str]) -> list[tuple[str, str, str]]:
    _, _, _, tool, _, sizes, dtypes, inputs = step[:8]
    if tool == "yardstick":
        return [("-", "all", "-")]
    if tool == "frameworks":  # one run for all sizes, as release.sh runs it
        return [(i, sizes, d) for i in inputs.split(",") for d in dtypes.split(",")]
    return [(i, s, d) for i in inputs.split(",") for s in expand_sizes(sizes) for d in dtypes.split(",")]


def case_key(case: re.Match, ranks: str):
    """A listed case -> (backend, n, dtype, input, threads, gpus or None, timing, ranks), as its row says."""
    return (case["backend"], case["n"], case["dtype"], case["input"], case["threads"], case["gpus"],
            "batched" if case["batched"] else "isolated", ranks)


def row_keys(row: dict, ranks: str):
    base = (row["backend"], row["n"], row["dtype"], row["input"], row["threads"])
    return {base + (row["gpus"], row["timing"], ranks), base + (None, row["timing"], ranks)}


def size_text(n: str) -> str:
    v = int(n)
    return f"2^{v.bit_length() - 1}" if v & (v - 1) == 0 else n


def sizes_text(sizes: list[str]) -> str:
    """2^10, 2^11, 2^12, 2^20 -> 2^10..2^12, 2^20: runs of consecutive powers of two joined."""
    parts, run = [], []
    for size in sizes + [None]:
        m = re.fullmatch(r"2\^(\d+)", size or "")
        if m and run and int(m[1]) == run[-1] + 1:
            run.append(int(m[1]))
            continue
        if run:
            parts.append(f"2^{run[0]}" + (f"..2^{run[-1]}" if len(run) > 2 else f", 2^{run[-1]}" if len(run) == 2 else ""))
        run = [int(m[1])] if m else []
        if size and not m:
            parts.append(size)
    return ", ".join(parts)


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def versions_in(text: str) -> set[str]:
    return {row.get("version") or "" for row in csv.DictReader(io.StringIO(text))}


def versions_of(path: Path) -> set[str]:
    with open(path, newline="") as f:
        return versions_in(f.read())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("tag")
    parser.add_argument("sources", nargs="+", type=Path)
    parser.add_argument("--results", type=Path, default=REPO / "results")
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args(argv)
    try:
        return collect(args)
    except Refused as e:
        print(f"release_collect: {e}", file=sys.stderr)
        return 2
    except output_files.OutputError as e:
        print(f"release_collect: {e}", file=sys.stderr)
        return 1


def collect(args) -> int:
    tag, results = args.tag, args.results.resolve()
    if not is_release_tag(tag):
        raise Refused(f"'{tag}' is not a release tag (results-*, no commits after it, not dirty)")
    paths = []
    for source in args.sources:
        found = sorted(source.glob("release-*.tgz")) if source.is_dir() else [source]
        if not found:
            raise Refused(f"{source}: no release-*.tgz")
        paths += found
    archives = [Archive(p) for p in paths]
    seen = {}
    for a in archives:
        if a.version != tag:
            raise Refused(f"{a.path}: measured version '{a.version}', not {tag}")
        if seen.setdefault(a.top, a.path) != a.path:
            raise Refused(f"{a.path} and {seen[a.top]} are both {a.top}: give the last call's alone")

    # 1. The rows, checked: one header, every row of the tag.
    header = None
    files = defaultdict(list)  # results-relative CSV path -> data lines, in plan order
    machines = defaultdict(set)  # results-relative CSV path -> the rows' machine ids
    folders = {}  # results-relative folder -> {relative name: bytes}
    coverage = []
    for a in archives:
        for step in a.steps:
            name, target, tool = step[1], step[2].replace("@", a.prefix), step[3]
            ranks = tool.split(":", 1)[1] if tool.startswith("mpi:") else "1"
            not_run, present = [], set()
            for input_, size, dtype in units(step):
                unit = "all" if tool == "yardstick" else unit_name(input_, size, dtype)
                if (name, unit) not in a.done:
                    not_run.append((input_, dtype, size))
                    continue
                if tool == "yardstick":
                    base = f"{a.top}/rows/{name}/all/"
                    folder = folders.setdefault(f"{target}-{tag}", {})
                    for m in a.tar.getmembers():
                        if m.isfile() and m.name.startswith(base) and m.name.endswith((".csv", ".txt")):  # logs: in logs/
                            folder[m.name[len(base):]] = data = a.tar.extractfile(m).read()
                            if m.name.endswith(".csv") and versions_in(data.decode()) - {tag}:
                                raise Refused(f"{a.path}: {m.name} holds rows of another version than {tag}")
                    continue
                text = a.text(f"rows/{name}/{unit}.csv", default="")
                lines = text.splitlines(keepends=True)
                if not lines:
                    continue
                if header is None:
                    header = lines[0]
                if lines[0] != header:
                    raise Refused(f"{a.path}: rows/{name}/{unit}.csv has another header than the other CSVs")
                for i, row in enumerate(csv.DictReader(io.StringIO(text)), start=2):
                    if row.get("version") != tag:
                        raise Refused(f"{a.path}: rows/{name}/{unit}.csv line {i}: version '{row.get('version')}', not {tag}")
                    present |= row_keys(row, ranks)
                    machines[f"{target}.csv"].add(row["machine"])
                files[f"{target}.csv"] += [line if line.endswith("\n") else line + "\n" for line in lines[1:]]
            coverage += report_coverage(a, step, target, ranks, not_run, present)

    print("coverage (what the plans name that has no row):")
    print("\n".join(coverage) if coverage else "  every planned case has its row")
    for rel, ids in sorted(machines.items()):
        if len(ids) > 1:  # a fresh device machine per call may be another host of the kind
            print(f"note: {rel} holds rows of {len(ids)} machines: {', '.join(sorted(ids))}")

    # 2. results/ as git has it, and the moves and writes, all planned before any is made.
    try:
        status = git("status", "--porcelain", "--untracked-files=all", "--", ".", cwd=results)
    except (OSError, subprocess.CalledProcessError) as e:
        raise Refused(f"{results}: not in a git work tree, whose state says what may move ({e})") from None
    if status.strip():
        raise Refused(f"{results} has changes git does not have: commit or remove them first:\n{status}")
    tracked = set(git("ls-files", "--", ".", cwd=results).splitlines())
    moves = []
    for path in sorted([*results.glob("*.csv"), *(results / "latency").glob("*.csv")]):
        versions = versions_of(path)
        if versions == {tag}:
            continue
        if len(versions) != 1 or "" in versions:
            raise Refused(f"{path}: rows of versions {sorted(versions)}: archive it by hand")
        old = versions.pop()
        dest = results / "archive" / old / path.relative_to(results)
        if dest.exists():
            raise Refused(f"{path} would move onto {dest}, which exists")
        moves.append((path, dest))
    moved = {p for p, _ in moves}
    writes = []
    for rel, lines in files.items():
        path, data = results / rel, header + "".join(lines)
        if path.exists() and path not in moved:
            with open(path, newline="") as f:
                if not set(f.read().splitlines()[1:]) <= set(data.splitlines()[1:]):
                    raise Refused(f"{path} holds rows of {tag} that the archives do not: collect every call's archive, or move it")
        writes.append((path, data.encode()))
    for rel, content in folders.items():
        folder = results / rel
        for name, data in content.items():
            path = folder / name
            if path.exists() and path.read_bytes() != data:
                raise Refused(f"{path} exists and differs from the archive's")
            writes.append((path, data))
    for a in archives:
        path = results / "logs" / f"{a.top}-{tag}.tgz"
        if path.exists() and not Archive(path).names() <= a.names():
            raise Refused(f"{path} holds files {a.path} does not: a later call's archive holds all of an earlier one's")
        writes.append((path, a.path.read_bytes()))

    # 3. Made.
    for src, dest in moves:
        dest.parent.mkdir(parents=True, exist_ok=True)
        if str(src.relative_to(results)) in tracked:
            git("mv", str(src), str(dest), cwd=results)
        else:
            os.rename(src, dest)
        print(f"moved {src.relative_to(results)} -> {dest.relative_to(results)}")
    for path, data in writes:
        path.parent.mkdir(parents=True, exist_ok=True)
        output_files.replace_file(path, data, "release_collect")
        print(f"wrote {path.relative_to(results)}")
    # Staged, like the moves: the committed-rows tests (plot/tests) read the files git has.
    git("add", "--", *(str(path) for path, _ in writes), cwd=results)
    if not args.no_plot and results == (REPO / "results").resolve():  # plot.sh draws the repository's results/
        subprocess.run([str(REPO / "scripts" / "plot.sh")], cwd=REPO, check=True)
    return 0


def report_coverage(a: Archive, step, target, ranks, not_run, present) -> list[str]:
    """Lines naming the step's units not run and, where it ran, the listed cases with no row."""
    name, tool = step[1], step[3]
    where = f"  {target}.csv ({a.top}, {name})"
    lines = []
    if not_run:
        by = defaultdict(list)
        for input_, dtype, size in not_run:
            by[(input_, dtype)].append(size)
        lines += [f"{where}: not run: {i} {d} at {sizes_text(s)}" if tool != "yardstick" else f"{where}: not run"
                  for (i, d), s in by.items()]
    if tool == "bench" or tool.startswith("mpi:"):
        sizes = expand_sizes(step[5])
        missing = defaultdict(set)
        for line in a.text(f"lists/{name}.txt", default="").splitlines():
            case = CASE.match(line)
            if not case or case["h2d"]:
                continue
            size = size_text(case["n"])
            unit_size = size if size in sizes else next((s for s in sizes if s.startswith("per-thread:")), size)
            if case_key(case, ranks) in present or (case["input"], case["dtype"], unit_size) in not_run:
                continue
            what = f"{case['backend']} {case['dtype']} {case['input']} threads {case['threads']}"
            missing[what + (f" gpus {case['gpus']}" if case["gpus"] else "")].add((int(case["n"]), case_key(case, ranks)[6]))
        for what, cases in sorted(missing.items()):
            at = sizes_text([size_text(str(n)) for n in sorted({n for n, _ in cases})])
            lines.append(f"{where}: no row: {what} at {at} ({', '.join(sorted({t for _, t in cases}))})")
    return lines


if __name__ == "__main__":
    sys.exit(output_files.run_stoppable(lambda: main(sys.argv[1:])))
