#!/usr/bin/env python3
"""scripts/release.sh and scripts/release_collect.py on the real program, in a folder whose name
has a space, with a plan of three steps:

- release.sh refuses a build that is not a release tag (unless FORCE=1), starts no unit whose
  estimate is past its budget and names it, resumes from its archive (RESUME, or the one in its out
  folder) without running a done unit again, and refuses an archive of another version;
- release_collect.py, in a scratch git repository, refuses a wrong tag, a dirty results/ and a move
  onto an existing file; lists the units not run and the listed cases with no row; moves the old
  version's files to results/archive/OLD/ (git mv), writes the rows under the plan's names and the
  archive under results/logs/; and refuses to replace a file of the tag that holds rows the
  archives lack.

    release_test.py ACCUMULATE_BENCH       (exit status 77, skipped, where git or bash is missing)
"""
import csv
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RELEASE = REPO / "scripts" / "release.sh"
COLLECT = REPO / "scripts" / "release_collect.py"
QUICK = "--benchmark_repetitions=1 --benchmark_min_time=0.001 --benchmark_min_warmup_time=0"
PLAN = f"""# plan step file tool backends sizes dtypes inputs cost args
t  s1  @-a       bench  cpu/serial/accumulate-f32,cpu/exact/serial  2^10..2^11  f32      uniform,cancel  0.01+0  {QUICK}
t  s2  latency/@-b  bench  cpu/exact/serial  2^10  f32,f64  uniform  0.01+0  {QUICK}
t  s3  @-a       bench  cpu/exact/serial  2^12  f32  uniform  1000+0  {QUICK}
u  s4  @-c       bench  cpu/exact/serial  2^10  f32  uniform  0.01+0  {QUICK}
k  s5  @-d       bench  cpu/exact/serial  2^20  f32  uniform  0.0001+0  --benchmark_repetitions=50
"""
TAG, OLD = "results-test.1", "results-test.0"
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def run(command, cwd, env=None, **more):
    done = subprocess.run([str(c) for c in command], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {}), **more})
    return done.returncode, done.stdout + done.stderr


def retag(src: Path, dest: Path, version: str, drop=(), cut_row=None):
    """The archive with VERSION in version.txt and every row; members named in DROP left out; the
    last row of the member CUT_ROW left out."""
    with tarfile.open(src) as old, tarfile.open(dest, "w:gz") as new:
        for m in old.getmembers():
            if any(m.name.endswith(d) for d in drop):
                continue
            data = old.extractfile(m).read() if m.isfile() else None
            if m.name.endswith("version.txt"):
                data = (version + "\n").encode()
            elif m.name.endswith(".csv") and "/rows/" in m.name:
                rows = list(csv.DictReader(io.StringIO(data.decode())))
                if m.name.endswith(cut_row or "\0"):
                    rows = rows[:-1]
                out = io.StringIO()
                writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
                writer.writeheader()
                writer.writerows({**r, "version": version} for r in rows)
                data = out.getvalue().encode()
            if data is not None:
                m.size = len(data)
            new.addfile(m, io.BytesIO(data) if data is not None else None)


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def main():
    bench = Path(sys.argv[1]).resolve()
    if not shutil.which("git") or not shutil.which("bash"):
        print("skipped: no git or bash here")
        return 77
    with tempfile.TemporaryDirectory(prefix="release test ") as tmp:
        tmp = Path(tmp)
        bundle = tmp / "a bundle"
        bundle.mkdir()
        shutil.copy(bench, bundle / "accumulate_bench")
        (tmp / "plans.txt").write_text(PLAN)
        env = {"RELEASE_PLANS": str(tmp / "plans.txt"), "OUT": str(tmp / "out 1"), "PREFIX": "m1"}
        archive = tmp / "out 1" / "release-m1-t.tgz"
        version = subprocess.run([bench, "--version"], capture_output=True, text=True, check=True).stdout.strip()

        if not version.startswith("results-"):
            status, out = run([RELEASE, "t", bundle], tmp, env)
            check(status == 2 and "is not a release tag" in out, f"a build of '{version}' without FORCE: {status}\n{out}")

        # Call 1: s1 and s2 run, s3's estimate (1000 s a case) is past any budget.
        status, out = run([RELEASE, "t", bundle], tmp, env, FORCE="1", BUDGET_S="200")
        check(status == 3 and "s3/uniform-2p12-f32 (~1001s: more than a whole call's budget)" in out, f"call 1: {status}\n{out}")
        check(sorted(os.listdir(tmp / "out 1")) == ["release-m1-t.tgz"], f"call 1 left {os.listdir(tmp / 'out 1')}")
        with tarfile.open(archive) as t:
            names = t.getnames()
            done = t.extractfile("release-m1-t/done.tsv").read().decode().splitlines()
        check(len(done) == 6 and "release-m1-t/rows/s1/cancel-2p11-f32.csv" in names
              and "release-m1-t/rows/s2/uniform-2p10-f64.csv" in names, f"call 1's archive: {done}\n{names}")

        # Call 2 resumes: nothing of s1 or s2 runs again.
        shutil.move(archive, tmp / "call1.tgz")
        status, out = run([RELEASE, "t", bundle], tmp, env, FORCE="1", STEPS="s1,s2", RESUME=str(tmp / "call1.tgz"))
        with tarfile.open(archive) as t:
            again = t.extractfile("release-m1-t/done.tsv").read().decode().splitlines()
            called = [n for n in t.getnames() if n.endswith("/console.log")]
        check(status == 0 and again == done and len(called) == 2, f"call 2: {status}, {again}, {called}\n{out}")
        # Call 3, in the same out folder: its archive is the state, without RESUME.
        status, out = run([RELEASE, "t", bundle], tmp, env, FORCE="1", STEPS="s2")
        with tarfile.open(archive) as t:
            called = [n for n in t.getnames() if n.endswith("/console.log")]
        check(status == 0 and len(called) == 3, f"call 3: {status}, {called}\n{out}")
        status, out = run([RELEASE, "t", bundle], tmp, env, FORCE="1", STEPS="nope", OUT=str(tmp / "out 2"))
        check(status == 2 and "no step 'nope'" in out, f"an unknown step: {status}\n{out}")

        # A unit whose estimate fits but whose run does not is stopped by the timeout, not done, and
        # the call still packs its archive; a second call in the same out folder meanwhile is refused.
        k_env = dict(env, OUT=str(tmp / "out k"), FORCE="1", BUDGET_S="17")
        first = subprocess.Popen([str(RELEASE), "k", str(bundle)], cwd=tmp, env={**os.environ, **k_env},
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(1)
        status, out = run([RELEASE, "k", bundle], tmp, k_env)
        check(status == 2 and "another call is running" in out, f"two calls at once: {status}\n{out}")
        out = first.communicate(timeout=120)[0]
        check(first.returncode == 3 and "exit status 124" in out and "not done" in out
              and sorted(os.listdir(tmp / "out k")) == ["release-m1-k.tgz"], f"a unit past the budget: {first.returncode}\n{out}")

        # Another version's archive is refused.
        retag(archive, tmp / "other.tgz", "results-other")
        status, out = run([RELEASE, "t", bundle], tmp, env, FORCE="1", RESUME=str(tmp / "other.tgz"), OUT=str(tmp / "out 3"))
        check(status == 2 and "one release is one version" in out, f"resuming another version: {status}\n{out}")

        # The collector, in a scratch repository with a committed set of the old version.
        repo = tmp / "repo"
        (repo / "results" / "latency").mkdir(parents=True)
        git(repo, "init", "-q")
        git(repo, "config", "user.email", "t@example.com")
        git(repo, "config", "user.name", "t")
        fetched = tmp / "fetched"
        fetched.mkdir()
        retag(archive, tmp / "old.tgz", OLD)
        with tarfile.open(tmp / "old.tgz") as t:
            old_rows = t.extractfile("release-m1-t/rows/s1/uniform-2p10-f32.csv").read()
        for rel in ["old.csv", "latency/old.csv", "m1-a.csv"]:  # under results/
            (repo / "results" / rel).write_bytes(old_rows)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "old")
        retag(archive, fetched / "release-m1-t.tgz", TAG, cut_row="s1/cancel-2p11-f32.csv")
        collect = [sys.executable, COLLECT, TAG, fetched, "--results", repo / "results", "--no-plot"]

        status, out = run([sys.executable, COLLECT, "results-test.2", fetched, "--results", repo / "results", "--no-plot"], tmp)
        check(status == 2 and "not results-test.2" in out, f"a wrong tag: {status}\n{out}")
        for bad in (tmp / "missing.tgz", repo / ".git" / "HEAD"):  # none there, and not an archive
            status, out = run([sys.executable, COLLECT, TAG, bad, "--results", repo / "results", "--no-plot"], tmp)
            check(status == 2 and "cannot be read as a release archive" in out and "Traceback" not in out,
                  f"an unreadable archive {bad.name}: {status}\n{out}")
        (repo / "results" / "stray.txt").write_text("x")
        status, out = run(collect, tmp)
        check(status == 2 and "stray.txt" in out and (repo / "results" / "old.csv").exists(), f"a dirty results/: {status}\n{out}")
        (repo / "results" / "stray.txt").unlink()
        blocker = repo / "results" / "archive" / OLD / "old.csv"
        blocker.parent.mkdir(parents=True)
        blocker.write_text("the user's\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "blocker")
        status, out = run(collect, tmp)
        check(status == 2 and "which exists" in out and blocker.read_text() == "the user's\n"
              and (repo / "results" / "old.csv").exists(), f"a move onto a file: {status}\n{out}")
        git(repo, "rm", "-q", str(blocker))
        git(repo, "commit", "-qm", "no blocker")

        status, out = run(collect, tmp)
        check(status == 0, f"collect: {status}\n{out}")
        check("m1-a.csv (release-m1-t, s3): not run: uniform f32 at 2^12" in out, f"s3 not listed as not run:\n{out}")
        check("m1-a.csv (release-m1-t, s1): no row: cpu/exact/serial f32 cancel threads 1 at 2^11 (isolated)" in out
              or "m1-a.csv (release-m1-t, s1): no row: cpu/serial/accumulate-f32 f32 cancel threads 1 at 2^11 (isolated)" in out,
              f"the cut row not listed:\n{out}")
        staged = git(repo, "diff", "--cached", "--name-status", "--no-renames")
        for old, new in [("old.csv", f"archive/{OLD}/old.csv"), ("latency/old.csv", f"archive/{OLD}/latency/old.csv"),
                         ("m1-a.csv", f"archive/{OLD}/m1-a.csv")]:
            check(f"A\tresults/{new}\n" in staged and (repo / "results" / new).read_bytes() == old_rows,
                  f"{old} not moved to {new}:\n{staged}")
        for gone in ["old.csv", "latency/old.csv"]:
            check(f"D\tresults/{gone}\n" in staged and not (repo / "results" / gone).exists(), f"{gone} stayed:\n{staged}")
        a_rows = list(csv.DictReader(open(repo / "results" / "m1-a.csv")))
        b_rows = list(csv.DictReader(open(repo / "results" / "latency" / "m1-b.csv")))
        check(len(a_rows) == 7 and {r["version"] for r in a_rows} == {TAG}, f"m1-a.csv: {len(a_rows)} rows")
        check(len(b_rows) == 2 and {r["n"] for r in b_rows} == {"1024"}, f"latency/m1-b.csv: {len(b_rows)} rows")
        check((repo / "results" / "logs" / f"release-m1-t-{TAG}.tgz").exists(), "no archive in results/logs")

        # A file of the tag holding a row the archives lack is never replaced.
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "collected")
        retag(archive, fetched / "release-m1-t.tgz", TAG, drop=["s1/uniform-2p10-f32.csv"])
        status, out = run(collect, tmp)
        check(status == 2 and "holds rows of" in out and len(list(csv.DictReader(open(repo / "results" / "m1-a.csv")))) == 7,
              f"replacing rows the archives lack: {status}\n{out}")
    for f in failures:
        print("FAILED:", f)
    print(f"release_test: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
