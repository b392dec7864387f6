#!/usr/bin/env python3
"""The files accumulate_bench writes, by the rules of results/README.md ("Writing the files"), each
checked on the real program in a fresh temporary directory:

  links         --write-input never writes through a link planted at one of its names; --csv and
                --json through a dangling link are refused, and nothing is created
  permissions   a 0444 file is refused, root or not; a replaced JSON keeps its owner, group and mode
  one file      two spellings of one new path (./a and a, n1 and ../d/n1) are one file
  up front      what would fail the write fails before anything is measured (exit status 2): names
                too long for the temporary, an immutable file, another user's file in a sticky
                directory, DIR/inputs.json being a directory, a DIR the user cannot write
  signals       SIGTERM and SIGINT at random points of many runs leave no .NAME.XXXXXX or .lock file,
                and the run still ends by the signal
  lock wait     a run that waits for another process's lock on its CSV says so, naming the path
                (and the process, on Linux)

Cases that need root (another user's files, dropping to another user) are skipped, said, without it.

    output_files_test.py [EMULATOR...] ACCUMULATE_BENCH
"""
import fcntl
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

QUICK = ["--backend=cpu/serial/accumulate-f32", "--sizes=2^4", "--benchmark_repetitions=1",
         "--benchmark_min_time=0.001", "--benchmark_min_warmup_time=0"]
NOBODY = 65534
OTHER_USER, OTHER_GROUP = 12345, 12346  # ids no file here has: root gives them with chown
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAILED:", what)


def run(bench, args, cwd, user=None):
    """The program's exit status and its output (stdout and stderr)."""
    def drop():
        os.setgroups([])
        os.setgid(user)
        os.setuid(user)
    done = subprocess.run([*bench, *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          preexec_fn=drop if user is not None else None)
    return done.returncode, done.stdout + done.stderr


def refused_up_front(rc, output, what):
    check(rc == 2, f"{what}: exit status {rc}, not 2\n{output}")
    check("GB/s" not in output and "wrote " not in output, f"{what}: measured or wrote before refusing\n{output}")


def fresh(work, name):
    path = os.path.join(work, name)
    os.mkdir(path)
    os.chmod(path, 0o777)  # the cases run as another user write here too
    return path


def links(bench, work):
    here = fresh(work, "links")
    victim = os.path.join(here, "victim")
    with open(victim, "w") as f:
        f.write("victim\n")
    os.mkdir(os.path.join(here, "w"))
    os.symlink("../victim", os.path.join(here, "w", "000-f32-n16.npy"))
    rc, output = run(bench, ["--write-input=w", "--sizes=16"], here)
    refused_up_front(rc, output, "--write-input with a link planted at its first name")
    check(open(victim, "rb").read() == b"victim\n", "--write-input wrote through a planted link into the file it names")
    check("000-f32-n16.npy' already exists (it is a symbolic link)" in output, f"the planted link is not named\n{output}")
    for option in ("csv", "json"):
        link = os.path.join(here, "dangling." + option)
        os.symlink("nowhere." + option, link)
        rc, output = run(bench, [*QUICK, f"--{option}=dangling.{option}"], here)
        refused_up_front(rc, output, f"--{option} through a dangling link")
        check("a dangling link is not a name to create" in output, f"--{option}: the dangling link is not named\n{output}")
        check(os.path.islink(link) and not os.path.exists(os.path.join(here, "nowhere." + option)),
              f"--{option} through a dangling link replaced the link or created its target")


def permissions(bench, work):
    here = fresh(work, "permissions")
    for option in ("csv", "json"):
        path = os.path.join(here, "read-only." + option)
        with open(path, "w") as f:
            f.write("")
        os.chmod(path, 0o444)
        rc, output = run(bench, [*QUICK, f"--{option}={path}"], here)
        refused_up_front(rc, output, f"--{option} on a 0444 file (uid {os.geteuid()})")
        check(os.path.getsize(path) == 0 and os.stat(path).st_mode & 0o777 == 0o444, f"--{option} changed a 0444 file")
    if os.geteuid() != 0:
        print("skipped: a replaced file keeps another user's ownership (needs root to make such a file)")
        return
    path = os.path.join(here, "theirs.json")
    with open(path, "w") as f:
        f.write("{}")
    os.chown(path, OTHER_USER, OTHER_GROUP)
    os.chmod(path, 0o640)
    rc, output = run(bench, [*QUICK, f"--json={path}"], here)
    check(rc == 0, f"--json on another user's file: exit status {rc}\n{output}")
    after = os.stat(path)
    check((after.st_uid, after.st_gid, after.st_mode & 0o7777) == (OTHER_USER, OTHER_GROUP, 0o640),
          f"root replacing another user's JSON made it {after.st_uid}:{after.st_gid} mode {after.st_mode & 0o7777:o}")
    check('"backend": "cpu/serial/accumulate-f32"' in open(path).read(), "the replaced JSON lacks the measurement")


def one_file(bench, work):
    here = fresh(work, "one_file")
    rc, output = run(bench, [*QUICK, "--csv=./a", "--json=a"], here)
    refused_up_front(rc, output, "--csv=./a --json=a")
    below = os.path.join(here, "d")
    os.mkdir(below)
    rc, output = run(bench, [*QUICK, "--csv=n1", "--json=../d/n1"], below)
    refused_up_front(rc, output, "--csv=n1 --json=../d/n1")
    check("--csv and --json both name" in output, f"the shared file is not named\n{output}")
    check(os.listdir(here) == ["d"] and os.listdir(below) == [], f"refused runs left {os.listdir(here)} {os.listdir(below)}")


def up_front(bench, work):
    here = fresh(work, "up_front")
    for length in (248, 249):  # the name fits; its temporary .NAME.XXXXXX does not (255 bytes)
        name = "n" * (length - 5) + ".json"
        rc, output = run(bench, [*QUICK, f"--json={name}"], here)
        refused_up_front(rc, output, f"--json with a {length}-byte name")
    os.mkdir(os.path.join(here, "w"))
    os.mkdir(os.path.join(here, "w", "inputs.json"))
    rc, output = run(bench, ["--write-input=w", "--sizes=16"], here)
    refused_up_front(rc, output, "--write-input=w with w/inputs.json a directory")
    check(os.listdir(os.path.join(here, "w")) == ["inputs.json"], "--write-input wrote inputs it could not hand over")
    immutable = os.path.join(here, "immutable.json")
    with open(immutable, "w") as f:
        f.write("{}")
    if not shutil.which("chattr") or subprocess.run(["chattr", "+i", immutable], capture_output=True).returncode != 0:
        print("skipped: an immutable file (no chattr, or chattr +i is not allowed here)")
    else:
        try:
            rc, output = run(bench, [*QUICK, f"--json={immutable}"], here)
            refused_up_front(rc, output, "--json on an immutable file")
        finally:
            subprocess.run(["chattr", "-i", immutable])
    if os.geteuid() != 0:
        print("skipped: another user's sticky directory and an unwritable DIR (the test drops to another user as root)")
        return
    if run(bench, ["--version"], here, user=NOBODY)[0] != 0:
        print(f"skipped: another user's sticky directory and an unwritable DIR (user {NOBODY} cannot run the program)")
        return
    sticky = os.path.join(here, "sticky")
    os.mkdir(sticky)
    os.chmod(sticky, 0o1777)
    os.chown(sticky, OTHER_USER, OTHER_GROUP)
    theirs = os.path.join(sticky, "x.json")
    with open(theirs, "w") as f:
        f.write("{}")
    os.chmod(theirs, 0o666)
    os.chown(theirs, OTHER_USER, OTHER_GROUP)
    rc, output = run(bench, [*QUICK, "--json=x.json"], sticky, user=NOBODY)
    refused_up_front(rc, output, "--json on another user's file in their sticky directory")
    closed = os.path.join(here, "closed")
    os.mkdir(closed, 0o755)
    rc, output = run(bench, [f"--write-input={closed}", "--sizes=16"], here, user=NOBODY)
    refused_up_front(rc, output, "--write-input into a directory the user cannot write")


def signals(bench, work):
    """Runs long enough to be stopped mid-sweep, each with --csv and --json, stopped at a random point."""
    here = fresh(work, "signals")
    rng = random.Random(20261127)
    left, wrong_end = [], []
    for i in range(25):
        run_dir = fresh(here, str(i))
        stop = signal.SIGINT if i % 5 == 4 else signal.SIGTERM
        bench_run = subprocess.Popen([*bench, "--backend=cpu/serial/accumulate-f32", "--sizes=2^4..2^16",
                                      "--benchmark_repetitions=1", "--benchmark_min_time=0.002",
                                      "--benchmark_min_warmup_time=0", "--json=out.json", "--csv=out.csv"],
                                     cwd=run_dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as in a terminal
        time.sleep(rng.uniform(0.0, 0.25))
        bench_run.send_signal(stop)
        rc = bench_run.wait(timeout=120)
        if rc not in (-stop, 0):
            wrong_end.append(f"run {i}: exit status {rc} after {stop.name}")
        left += [os.path.join(str(i), name) for name in os.listdir(run_dir) if name.startswith(".")]
    check(not left, f"stopped runs left {len(left)} temporary or lock files: {left[:6]}")
    check(not wrong_end, f"stopped runs did not end by the signal: {wrong_end[:3]}")


def lock_wait(bench, work, emulated):
    here = fresh(work, "lock_wait")
    csv = os.path.join(here, "shared.csv")
    lines = []
    with open(csv, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # another process writing a row
        waiting = subprocess.Popen([*bench, *QUICK, f"--csv={csv}"], cwd=here, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        reader = threading.Thread(target=lambda: lines.extend(waiting.stdout), daemon=True)
        reader.start()
        deadline = time.monotonic() + 60
        while not any("holds the lock" in line for line in lines) and waiting.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        fcntl.flock(held, fcntl.LOCK_UN)
    rc = waiting.wait(timeout=120)
    reader.join(timeout=10)
    output = "".join(lines)
    check(rc == 0, f"the run that waited for the lock: exit status {rc}\n{output}")
    said = [line for line in lines if "holds the lock" in line]
    check(bool(said) and f"'{csv}'" in said[0], f"a run waiting for another process's lock on its CSV did not say so\n{output}")
    if said and sys.platform.startswith("linux") and not emulated:
        check(f"(pid {os.getpid()})" in said[0], f"the message does not name the process holding the lock: {said[0]}")


def main():
    bench = sys.argv[1:]
    work = tempfile.mkdtemp(prefix="output_files_")
    os.chmod(work, 0o755)
    try:
        for case in (links, permissions, one_file, up_front, signals):
            print(f"-- {case.__name__}", flush=True)
            case(bench, work)
        print("-- lock_wait", flush=True)
        lock_wait(bench, work, emulated=len(bench) > 1)
    finally:
        if shutil.which("chattr"):
            subprocess.run(["chattr", "-R", "-i", work], capture_output=True)
        if not failures:
            shutil.rmtree(work)
    print(f"{len(failures)} failure(s)" if failures else "all cases passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
