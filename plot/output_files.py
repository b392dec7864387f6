"""Every file the Python tools create or replace goes through this module: plot/plot.py's figures,
summary.md and report.html, and frameworks/accumulate_frameworks.py's CSV rows (frameworks/ puts
plot/ on its path for it). The rules are results/README.md's ("Writing the files"), the same as
report/files.hpp applies to accumulate_bench's files:

    output = Output(path, "--csv", APPEND)     # resolved and checked before anything is measured
    with output.locked() as fd: ...            # APPEND: opened (created when new) under flock()
    output.replace(data)                       # REPLACE: a temporary beside it, renamed over it
    replace_file(path, data, "--out")          # the same for a name the tool picks (no link followed)
    with scratch_directory(prefix, parent): .. # a directory of temporaries, removed with all it holds
    sys.exit(run_stoppable(main))              # a stop signal lets finally blocks remove temporaries,
                                               # then ends the process as it would have

POSIX only (Linux, macOS), as the tools are: it relies on O_NOFOLLOW, flock() and file owners.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import shutil
import signal
import stat
import string
import sys
import tempfile
from pathlib import Path

APPEND, REPLACE = "append", "replace"
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class OutputError(Exception):
    """A file that cannot be written; the message starts with the option and names the path."""


class Stopped(BaseException):
    """A stop signal, raised where the program is so that its finally blocks run (not an Exception:
    `except Exception` does not swallow it); run_stoppable() then ends the process by the signal."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


_held = 0  # how deep in _signals_held() the program is
_pending: int | None = None  # a stop signal that came while it was


def _on_stop(signum, _frame):
    global _pending
    if _held:
        _pending = signum
        return
    raise Stopped(signum)


@contextlib.contextmanager
def _signals_held():
    """A step that creates, renames or removes a temporary finishes before a stop signal is raised,
    so that no temporary exists that a finally block does not know of."""
    global _held, _pending
    _held += 1
    try:
        yield
    finally:
        _held -= 1
        if not _held and _pending is not None:
            signum, _pending = _pending, None
            raise Stopped(signum)


@contextlib.contextmanager
def scratch_directory(prefix: str, parent: str | None):
    """A new directory in parent (the system's temporary directory when None), yielded as a Path and
    removed with everything in it when the block ends; a stop signal waits while it is made or removed,
    so that it is never left behind."""
    with _signals_held():
        path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
        try:
            with _signals_let_through():
                yield path
        finally:
            shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def _signals_let_through():
    """Inside _signals_held(), a step a stop signal may interrupt (one that came is raised on entry);
    the hold is back, before anything else, once the step ends however it ends."""
    global _held, _pending
    held, _held = _held, 0
    try:
        if _pending is not None:
            signum, _pending = _pending, None
            raise Stopped(signum)
        yield
    finally:
        _held = held


def run_stoppable(main) -> int:
    """Runs main() with each stop signal that is at its default action (one the user ignores, as nohup
    ignores SIGHUP, stays ignored) raising Stopped; once the finally blocks have run, the signal ends
    the process as it would have. Returns main()'s result."""
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) in (signal.SIG_DFL, signal.default_int_handler):
            signal.signal(signum, _on_stop)
    try:
        return main()
    except Stopped as stop:
        signal.signal(stop.signum, signal.SIG_DFL)
        os.kill(os.getpid(), stop.signum)
        raise  # not reached: the signal's default action ends the process


def lock_holder(fd: int) -> int | None:
    """The process holding a flock() on the file fd has open, from /proc/locks (Linux); None where
    that is not known."""
    try:
        opened = os.fstat(fd)
        with open("/proc/locks") as locks:
            for line in locks:  # "1: FLOCK  ADVISORY  WRITE 2311 fd:01:1234 0 EOF"; waiters: "1: -> FLOCK ..."
                fields = line.split()
                if len(fields) < 6 or fields[1] != "FLOCK":
                    continue
                major, minor, inode = fields[5].split(":")
                if (int(major, 16), int(minor, 16), int(inode)) == (os.major(opened.st_dev), os.minor(opened.st_dev),
                                                                     opened.st_ino):
                    return int(fields[4])
    except (OSError, ValueError):
        pass
    return None


def _describe(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a directory"
    kinds = {stat.S_ISFIFO: "a FIFO", stat.S_ISCHR: "a character device", stat.S_ISBLK: "a block device",
             stat.S_ISSOCK: "a socket"}
    return next((f"is {name}, not a regular file" for test, name in kinds.items() if test(mode)), "is not a regular file")


def _create_unique(prefix: str) -> tuple[int, str]:
    """prefix + six random characters, created as mkstemp() does: never through a link or over a name."""
    letters = string.ascii_letters + string.digits
    for _ in range(100):
        name = prefix + "".join(random.choice(letters) for _ in range(6))
        try:
            return os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free name {prefix}XXXXXX")


def _copy_attributes(fd: int, existing: os.stat_result | None) -> None:
    """The replaced file's owner, group and mode (the owner first: chown clears set-id bits), or the
    mode a new file gets."""
    if existing is None:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        return
    created = os.fstat(fd)
    if (created.st_uid, created.st_gid) != (existing.st_uid, existing.st_gid):
        os.fchown(fd, existing.st_uid, existing.st_gid)
    os.fchmod(fd, stat.S_IMODE(existing.st_mode))


class Output:
    """One file a tool writes, resolved once and checked, before anything is measured or drawn,
    against everything its write will do (report/files.hpp's OutputFile says each check and why).
    follow_link: whether a symbolic link at path is followed (a path the user named) or refused (a
    name the tool picks). Raises OutputError."""

    def __init__(self, path, option: str, how: str, follow_link: bool = True):
        self.path, self.option, self.how = str(path), option, how
        cannot_write = f"cannot write '{self.path}': "
        try:
            entry = os.lstat(self.path)
        except FileNotFoundError:
            entry = None
        except OSError as e:
            raise self._error(cannot_write + e.strerror) from None
        if entry is not None and stat.S_ISLNK(entry.st_mode):
            if not follow_link:
                raise self._error(f"'{self.path}' is a symbolic link; a name this tool picks is never written through "
                                  "a link: remove it")
            if not os.path.exists(self.path):
                raise self._error(f"'{self.path}' is a symbolic link to '{os.readlink(self.path)}', which does not exist; "
                                  "a dangling link is not a name to create: give the file's own path")
            directory = os.stat(os.path.dirname(self.path) or ".")
            if directory.st_mode & 0o1002 == 0o1002 and entry.st_uid not in (os.geteuid(), directory.st_uid):
                raise self._error(f"'{self.path}' is a symbolic link in a sticky, world-writable directory, owned by "
                                  "neither you nor the directory's owner; it is not followed: give the file's own path")
        if entry is not None:
            self.target = str(Path(self.path).resolve(strict=True))
        else:
            name, directory = os.path.basename(self.path), os.path.dirname(self.path) or "."
            if name in ("", ".", ".."):
                raise self._error(f"'{self.path}' names a directory; give a file's path")
            try:
                if not stat.S_ISDIR(os.stat(directory).st_mode):
                    raise self._error(cannot_write + f"'{directory}' is not a directory")
            except FileNotFoundError:
                raise self._error(cannot_write + f"its directory '{directory}' does not exist") from None
            except OSError as e:
                raise self._error(cannot_write + e.strerror) from None
            self.target = os.path.join(os.path.realpath(directory), name)
        existing = self._existing()
        if existing is not None:
            if not stat.S_ISREG(existing.st_mode):
                raise self._error(f"'{self.path}' {_describe(existing.st_mode)}; give a regular file's path")
            if not existing.st_mode & 0o222:
                raise self._error(cannot_write + f"it is read-only (mode {stat.S_IMODE(existing.st_mode):04o}), to root "
                                  "too: make it writable or give another path")
            if not os.access(self.target, os.W_OK):
                raise self._error(cannot_write + "Permission denied")
            directory = os.stat(os.path.dirname(self.target))
            me = os.geteuid()
            if how == REPLACE and directory.st_mode & 0o1000 and me != 0 and me not in (existing.st_uid, directory.st_uid):
                raise self._error(cannot_write + f"only its owner may replace it in the sticky directory "
                                  f"'{os.path.dirname(self.target)}'")
        self._probe(existing)

    def _error(self, why: str) -> OutputError:
        return OutputError(f"{self.option}: {why}")

    def _existing(self) -> os.stat_result | None:
        try:
            return os.stat(self.target)
        except FileNotFoundError:
            return None

    def _hidden(self, suffix: str) -> str:
        directory, name = os.path.split(self.target)
        return os.path.join(directory, f".{name}{suffix}")

    def _place(self):
        directory = os.stat(os.path.dirname(self.target))
        existing = self._existing()
        return ((directory.st_dev, directory.st_ino), os.path.basename(self.target),
                None if existing is None else (existing.st_dev, existing.st_ino))

    def same_file(self, other: Output) -> bool:
        """Whether two outputs are one file: the same directory and name once links are followed, or
        one existing file under two names."""
        mine, theirs = self._place(), other._place()
        return mine[:2] == theirs[:2] or (mine[2] is not None and mine[2] == theirs[2])

    def _probe(self, existing) -> None:
        """Does now, and undoes, each step of the write that can fail for a reason the path already has."""
        step = "opening it"
        try:
            if existing is not None:
                flags = os.O_RDWR | os.O_APPEND if self.how == APPEND else os.O_WRONLY
                os.close(os.open(self.target, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC))
                if self.how == APPEND:
                    return
            step = "creating it" if self.how == APPEND else "creating a temporary file beside it"
            trial = None
            try:
                with _signals_held():
                    if self.how == APPEND:
                        trial = self.target
                        fd = os.open(trial, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
                    else:
                        fd, trial = _create_unique(self._hidden("."))
                try:
                    if self.how == REPLACE:
                        step = "giving its temporary file the owner and mode it has"
                        _copy_attributes(fd, existing)
                finally:
                    os.close(fd)
            finally:
                if trial is not None:
                    with _signals_held():
                        os.unlink(trial)
        except OSError as e:
            raise self._error(f"cannot write '{self.path}': {step} failed: {e.strerror}") from None

    def replace(self, data: bytes) -> None:
        """REPLACE: data as the whole file, by a temporary beside it (the replaced file's owner, group
        and mode, flushed to disk) renamed over it: the file holds the old contents or the new, whole,
        however the tool stops. Raises OutputError naming the step that failed."""
        temporary, step = None, "creating a temporary file beside"
        try:
            with _signals_held():
                fd, temporary = _create_unique(self._hidden("."))
            step = "writing"
            with os.fdopen(fd, "wb") as f:
                _copy_attributes(f.fileno(), self._existing())
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            step = "replacing"
            with _signals_held():
                os.replace(temporary, self.target)
                temporary = None
        except OSError as e:
            raise self._error(f"{step} '{self.path}' failed: {e.strerror}") from None
        finally:
            if temporary is not None:
                with _signals_held(), contextlib.suppress(OSError):
                    os.unlink(temporary)

    @contextlib.contextmanager
    def locked(self):
        """APPEND: the file opened to write at its end (created when it is not there, never through a
        link), under an exclusive flock() until the block ends; waiting for another process's lock is
        said on stderr first. Raises OutputError."""
        while True:
            try:
                fd = os.open(self.target, os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
            except FileNotFoundError:  # new, or removed since
                try:
                    fd = os.open(self.target, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                                 0o666)
                except FileExistsError:
                    continue  # another run created it first
                except OSError as e:
                    raise self._error(f"opening '{self.path}' failed: {e.strerror}") from None
            except OSError as e:
                raise self._error(f"opening '{self.path}' failed: {e.strerror}") from None
            break
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise self._error(f"'{self.path}' {_describe(mode)}")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = lock_holder(fd)
                who = f"another process (pid {holder})" if holder else "another process"
                print(f"{self.option}: {who} holds the lock on '{self.path}'; waiting for it to finish writing",
                      file=sys.stderr, flush=True)
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield fd
        finally:
            os.close(fd)


def replace_file(path, data: bytes, option: str) -> None:
    """A file whose name the tool picks (plot.py's figures, summary.md and report.html under --out),
    checked and replaced whole with data: a symbolic link in its place is refused, not followed.
    Raises OutputError."""
    Output(path, option, REPLACE, follow_link=False).replace(data)
