"""plot/output_files.py, the one way the Python tools write files (results/README.md, "Writing the
files"), and plot.py through it: links, permissions, one file by two names, the checks before
anything is drawn, stop signals and lock waits."""

from __future__ import annotations

import fcntl
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PLOT_DIR = HERE.parent
sys.path.insert(0, str(PLOT_DIR))

import output_files  # noqa: E402
from output_files import APPEND, REPLACE, Output, OutputError  # noqa: E402

RYZEN = HERE / "data" / "ws-ryzen.csv"


def plot(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PLOT_DIR / "plot.py"), *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def test_plot_never_writes_through_a_link_planted_at_one_of_its_names(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("victim\n")
    out = tmp_path / "plots"
    out.mkdir()
    (out / "summary.md").symlink_to("../victim")
    result = plot(RYZEN, "--out", out)
    assert result.returncode == 2, result.stderr
    assert f"--out: '{out / 'summary.md'}' is a symbolic link; a name this tool picks is never written" in result.stderr
    assert victim.read_text() == "victim\n"
    assert sorted(p.name for p in out.iterdir()) == ["summary.md"], "drew before refusing"


def test_a_dangling_link_is_refused_not_created(tmp_path):
    (tmp_path / "dangling.csv").symlink_to("nowhere.csv")
    with pytest.raises(OutputError, match="is a symbolic link to 'nowhere.csv', which does not exist"):
        Output(tmp_path / "dangling.csv", "--csv", APPEND)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling.csv"]


def test_a_link_the_user_named_is_followed_and_stays_a_link(tmp_path):
    (tmp_path / "real.md").write_text("old")
    (tmp_path / "link.md").symlink_to("real.md")
    Output(tmp_path / "link.md", "--out", REPLACE).replace(b"new")
    assert (tmp_path / "link.md").is_symlink() and (tmp_path / "real.md").read_text() == "new"


def test_a_file_no_one_may_write_is_refused_root_too(tmp_path):
    for name in ("read-only.csv", "read-only.md"):
        (tmp_path / name).write_text("")
        (tmp_path / name).chmod(0o444)
    with pytest.raises(OutputError, match=r"--csv: cannot write '.*read-only.csv': it is read-only \(mode 0444\)"):
        Output(tmp_path / "read-only.csv", "--csv", APPEND)
    with pytest.raises(OutputError, match="read-only"):
        output_files.replace_file(tmp_path / "read-only.md", b"x", "--out")
    assert (tmp_path / "read-only.md").read_text() == ""


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can make a file another user owns")
def test_a_replaced_file_keeps_its_owner_group_and_mode(tmp_path):
    theirs = tmp_path / "summary.md"
    theirs.write_text("old")
    os.chown(theirs, 12345, 12346)
    theirs.chmod(0o640)
    output_files.replace_file(theirs, b"new", "--out")
    after = theirs.stat()
    assert (after.st_uid, after.st_gid, after.st_mode & 0o7777) == (12345, 12346, 0o640)
    assert theirs.read_text() == "new"


def test_two_spellings_of_a_new_path_are_one_file(tmp_path, monkeypatch):
    (tmp_path / "d").mkdir()
    monkeypatch.chdir(tmp_path / "d")
    assert Output("./a", "--csv", APPEND).same_file(Output("a", "--out", REPLACE))
    assert Output("n1", "--csv", APPEND).same_file(Output("../d/n1", "--out", REPLACE))
    assert not Output("n1", "--csv", APPEND).same_file(Output("n2", "--out", REPLACE))
    assert not any((tmp_path / "d").iterdir()), "a check left a file"


def test_what_the_write_would_fail_at_fails_before_anything_is_drawn(tmp_path):
    for length in (248, 249):  # the name fits in 255 bytes; its temporary .NAME.XXXXXX does not
        with pytest.raises(OutputError, match="creating a temporary file beside it failed: File name too long"):
            Output(tmp_path / ("n" * (length - 3) + ".md"), "--out", REPLACE)
    (tmp_path / "summary.md").mkdir()
    result = plot(RYZEN, "--out", tmp_path)
    assert result.returncode == 2 and "summary.md' is a directory" in result.stderr, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.md"], "drew before refusing"


# A tool replacing one file over and over, as plot.py replaces its figures.
REPLACING = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    import output_files

    def main():
        output = output_files.Output(sys.argv[2], "--out", output_files.REPLACE, follow_link=False)
        print("ready", flush=True)
        while True:
            output.replace(b"x" * (1 << 20))

    output_files.run_stoppable(main)
""")


# A tool making and removing directories of temporaries, as accumulate_frameworks.py does its inputs.
SCRATCH = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, sys.argv[1])
    import output_files

    def main():
        print("ready", flush=True)
        while True:
            with output_files.scratch_directory("scratch-", os.path.dirname(sys.argv[2])) as directory:
                for k in range(64):
                    (directory / str(k)).write_bytes(b"x" * 4096)

    output_files.run_stoppable(main)
""")


@pytest.mark.parametrize("tool_source", [REPLACING, SCRATCH], ids=["replace", "scratch_directory"])
def test_a_stop_signal_leaves_no_temporary_and_ends_the_tool_by_the_signal(tmp_path, tool_source):
    rng = random.Random(20261127)
    for i in range(15):
        stop = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)[i % 3]
        tool = subprocess.Popen([sys.executable, "-c", tool_source, str(PLOT_DIR), str(tmp_path / "out.bin")],
                                stdout=subprocess.PIPE, text=True,
                                preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL) for s in output_files.STOP_SIGNALS])
        assert tool.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0.0, 0.05))
        tool.send_signal(stop)
        assert tool.wait(timeout=60) == -stop, f"{stop.name} at run {i}"
        assert sorted(p.name for p in tmp_path.iterdir()) in (["out.bin"], []), f"{stop.name} at run {i} left a temporary"


def test_appends_land_at_the_end_of_a_file_the_tool_created(tmp_path):
    """Another run may append between the creation and the lock."""
    path = tmp_path / "new.csv"
    with Output(path, "--csv", APPEND).locked() as fd:
        with open(path, "a") as other:
            other.write("another run's row\n")
        os.write(fd, b"this run's row\n")
    assert path.read_text() == "another run's row\nthis run's row\n"


def test_waiting_for_another_process_lock_is_said(tmp_path, capsys):
    path = tmp_path / "shared.csv"
    path.write_text("")
    output = Output(path, "--csv", APPEND)
    appended = threading.Event()

    def append():
        with output.locked() as fd:
            os.write(fd, b"row\n")
        appended.set()

    with open(path, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # another process writing a row (this one, on another descriptor)
        writer = threading.Thread(target=append)
        writer.start()
        time.sleep(0.3)
        assert not appended.is_set(), "wrote while another process held the lock"
        fcntl.flock(held, fcntl.LOCK_UN)
    writer.join(timeout=60)
    assert path.read_text() == "row\n"
    holder = f" (pid {os.getpid()})" if sys.platform.startswith("linux") else ""
    assert capsys.readouterr().err == f"--csv: another process{holder} holds the lock on '{path}'; waiting for it to finish writing\n"
