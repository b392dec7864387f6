"""Shared fixtures: the runner's modules on sys.path, the harness binary, and handed-over inputs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FRAMEWORKS = Path(__file__).resolve().parent.parent
REPO_ROOT = FRAMEWORKS.parent
sys.path.insert(0, str(FRAMEWORKS))
sys.path.insert(0, str(REPO_ROOT / "plot"))

import handoff  # noqa: E402


@pytest.fixture(scope="session")
def bench() -> Path:
    """accumulate_bench: $SHOOTOUT_BENCH (scripts/test_frameworks.sh sets it), else build/release's."""
    given = os.environ.get("SHOOTOUT_BENCH")
    path = Path(given) if given else REPO_ROOT / "build" / "release" / "accumulate_bench"
    if not given and not path.exists():
        pytest.skip(f"no {path}: build it first (scripts/test_frameworks.sh does)")
    assert path.is_file(), f"SHOOTOUT_BENCH={given} is not a file"
    return path


def run_bench(bench: Path, *args) -> subprocess.CompletedProcess:
    done = subprocess.run([str(bench), *map(str, args)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
    return done


def hand_over(bench: Path, directory: Path, *args) -> handoff.Handoff:
    directory.mkdir(parents=True, exist_ok=True)
    return handoff.write_inputs(bench, directory, [str(a) for a in args])
