"""The runner end to end: the harness hands over, the frameworks are timed, and the rows sit beside
the harness's in one CSV that the plot tools, compare.py and the summary read."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
import types

import pytest

import accumulate_frameworks as runner
import shootout_csv as sc
from backends import cuda_compute, cupy_sum, jax_sum, numpy_sum, torch_sum
from conftest import FRAMEWORKS, REPO_ROOT, run_bench
from test_measure import fake_device_backend

QUICK = ["--benchmark_repetitions=2", "--benchmark_min_time=0.002", "--benchmark_min_warmup_time=0"]
GPU_BACKENDS = ["cuda.compute/reduce_into", "cupy/sum", "cupy/sum-cub", "cupy/sum-no-accelerators", "jax/sum",
                "torch/sum"]


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(FRAMEWORKS / "accumulate_frameworks.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_framework_rows_sit_beside_the_harness_rows_and_the_plot_tools_read_them(bench, tmp_path, monkeypatch, capsys):
    path = tmp_path / "machine.csv"
    sizes = "--sizes=1,1001,2^12"
    run_bench(bench, "--backend=cpu/serial/pairwise,cpu/baseline/read", sizes, "--dtype=f32,f64", *QUICK, f"--csv={path}")
    log = []
    fake = fake_device_backend("fake/sum", log)  # a device backend's rows: events, rotation, batches
    fake.traits = {"f32": fake.traits["f32"], "f64": fake.traits["f32"]}
    monkeypatch.setattr(runner, "all_backends", lambda fsum_max: numpy_sum.backends(fsum_max) + [fake])
    options = runner.parse_command_line([f"--bench={bench}", sizes, "--dtype=f32,f64", f"--csv={path}", *QUICK])
    assert runner.run(options) == 0
    out = capsys.readouterr().out
    assert "[24/24] " in out and "FAILED" not in out

    df = sc.read_csv(path)
    assert df["machine"].nunique() == 1
    mine = df[df["backend"].isin(["numpy/sum", "numpy/math.fsum", "fake/sum"])]
    assert len(mine) == 24 and set(mine["compiler"].str.split().str[0]) == {"CPython"}
    for (n, dtype), group in df.groupby(["n", "dtype"]):
        by = {(r.backend, r.timing): r for r in group.itertuples()}
        # NumPy's sum is the harness's pairwise sum, on the same values, to the bit
        assert by["numpy/sum", "isolated"].result == by["cpu/serial/pairwise", "isolated"].result
        assert by["numpy/math.fsum", "isolated"].result == by["numpy/math.fsum", "isolated"].exact
        assert {r.exact for r in group.itertuples()} == {by["cpu/serial/pairwise", "isolated"].exact}
        batched = by["fake/sum", "batched"]
        assert (batched.batch, batched.cache, batched.gpus, batched.device) == (1024, "cold", 1, "cuda")
        assert by["fake/sum", "isolated"].batch == 1
        assert "timer=device-events" in batched.configuration
    numpy_rows = df[df["backend"] == "numpy/sum"]
    assert set(numpy_rows["cache"]) == {"warm"} and set(numpy_rows["reproducible"]) == {"yes"}
    assert set(numpy_rows["pages"]) <= {"4k", "huge", "mixed"}

    plots = tmp_path / "plots"
    drawn = subprocess.run([sys.executable, str(REPO_ROOT / "plot" / "plot.py"), str(path), "--out", str(plots)],
                           capture_output=True, text=True, timeout=300)
    assert drawn.returncode == 0, drawn.stderr
    summary = (plots / "summary.md").read_text()
    assert "numpy/math.fsum" in summary and "fake/sum" in summary
    compared = subprocess.run([sys.executable, str(REPO_ROOT / "plot" / "compare.py"), str(path), str(path)],
                              capture_output=True, text=True, timeout=300)
    assert compared.returncode == 0 and "numpy/sum" in compared.stdout, compared.stderr


def test_the_command_line_runs_numpy_and_names_what_it_leaves_out(bench, tmp_path):
    path = tmp_path / "rows.csv"
    done = cli(f"--bench={bench}", "--backend=numpy/*,cpu/serial/*", "--sizes=2^10,2^11", "--fsum-max=1500",
               "--threads=4", "--include-transfer", f"--csv={path}", *QUICK)
    assert done.returncode == 0, done.stderr
    assert "--backend: 'cpu/serial/*' names no framework backend" in done.stdout
    assert "--threads: concerns no framework row" in done.stdout
    assert "not measured: numpy/math.fsum n=2^11 (8 KiB): math.fsum takes" in done.stdout
    assert len(path.read_text().splitlines()) == 1 + 3


def test_required_backends_that_cannot_run_make_the_status_1(bench, monkeypatch, capsys):
    hide(monkeypatch, "torch")
    options = runner.parse_command_line([f"--bench={bench}", "--backend=numpy/sum,torch/sum", "--sizes=2^10",
                                         "--require-available", *QUICK])
    assert runner.run(options) == 1
    captured = capsys.readouterr()
    assert "unavailable here: torch/sum: PyTorch is not installed" in captured.out and "numpy/sum  " in captured.out
    assert "--require-available: some selected backends cannot run here" in captured.err
    options.require_available = False
    assert runner.run(options) == 0


def test_nothing_selected_or_nothing_measured_is_said(bench, tmp_path):
    done = cli(f"--bench={bench}", "--backend=cpu/serial/*")
    assert done.returncode == 0 and "no framework backend selected; the framework backends: " in done.stdout
    done = cli(f"--bench={bench}", "--backend=numpy/math.fsum", "--sizes=2^12", "--fsum-max=1000")
    assert done.returncode == 1 and "nothing was measured" in done.stderr


@pytest.mark.parametrize("args,message", [
    (["--sizes"], "--sizes needs a value"),
    (["--list=yes"], "--list takes no value"),
    (["--colour=red"], "unknown option '--colour=red'"),
    (["stray"], "unknown argument 'stray'"),
    (["--benchmark_repetitions=0"], "would measure nothing"),
    (["--benchmark_min_time=-1"], "is not a positive time"),
    (["--fsum-max=2^20"], "is not a whole number"),
    (["--backend=numpy/sum", "--sizes=banana"], "refused its arguments"),
    # digits str.isdigit() takes and int() refuses or reads: accumulate_bench takes ASCII digits only
    (["--fsum-max=\u00b2"], "--fsum-max: '\u00b2' is not a whole number"),
    (["--benchmark_repetitions=\u00b2"], "would measure nothing"),
    (["--benchmark_repetitions=\u0661"], "would measure nothing"),
    (["--benchmark_min_time=\u00b2x"], "is not a count of calls"),
    (["--work-dir=/nonexistent/dir"], "--work-dir: '/nonexistent/dir' is not a directory"),
    (["--backend=nosuch"], "--backend: 'nosuch' names no backend"),
    (["--backend=numpy/sum,nosuch", "--require-available"], "--backend: 'nosuch' names no backend"),
    (["--backend=numpy/sum", "--sizes=2^10", "--dtype=f32,bf16"], "refused its arguments"),
])
def test_a_bad_command_line_exits_2_naming_it(bench, args, message):
    done = cli(f"--bench={bench}", *args)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_work_dir_that_is_a_file_exits_2(bench, tmp_path):
    path = tmp_path / "a-file"
    path.write_text("")
    done = cli(f"--bench={bench}", "--backend=numpy/sum", "--sizes=2^10", f"--work-dir={path}")
    assert done.returncode == 2 and f"--work-dir: '{path}' is not a directory" in done.stderr, done.stderr


def test_a_dangling_csv_link_exits_2_and_creates_nothing(bench, tmp_path):
    dangling = tmp_path / "nowhere.csv"
    dangling.symlink_to(tmp_path / "no" / "such" / "rows.csv")
    done = cli(f"--bench={bench}", "--backend=numpy/sum", "--sizes=2^10", f"--csv={dangling}", *QUICK)
    assert done.returncode == 2 and "a dangling link is not a name to create" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "no").exists()


def test_a_type_no_framework_backend_takes_names_them(bench):
    done = cli(f"--bench={bench}", "--backend=numpy/*", "--sizes=2^10", "--dtype=f16", *QUICK)
    assert "Traceback" not in done.stderr, done.stderr
    assert "not measured: numpy/sum n=2^10 (2 KiB): does not take f16" in done.stdout
    assert "not measured: numpy/math.fsum n=2^10 (2 KiB): does not take f16" in done.stdout
    assert done.returncode == 1 and "nothing was measured" in done.stderr


def test_a_csv_with_another_header_is_refused_before_anything_is_measured(bench, tmp_path):
    path = tmp_path / "old.csv"
    path.write_text("timestamp,host\n")
    done = cli(f"--bench={bench}", "--backend=numpy/sum", "--sizes=2^10", f"--csv={path}")
    assert done.returncode == 2 and "different header" in done.stderr and "numpy/sum  " not in done.stdout


def test_a_csv_path_that_cannot_be_written_is_refused_before_the_inputs_are_made(bench, tmp_path):
    (tmp_path / "dangling.csv").symlink_to("nowhere.csv")
    read_only = tmp_path / "read-only.csv"
    read_only.write_text("")
    read_only.chmod(0o444)
    for path, message in ((tmp_path / "dangling.csv", "a dangling link is not a name to create"),
                          (read_only, "it is read-only (mode 0444)")):
        done = cli(f"--bench={bench}", "--backend=numpy/sum", "--sizes=2^10", f"--csv={path}")
        assert done.returncode == 2 and message in done.stderr, done.stderr
        assert "wrote " not in done.stdout, "the inputs were handed over before the check"
    assert not (tmp_path / "nowhere.csv").exists() and read_only.read_text() == ""


def test_a_stopped_run_leaves_no_inputs_or_temporaries_and_ends_by_the_signal(bench, tmp_path):
    """SIGTERM and SIGINT at random points: the handed-over inputs (--work-dir) go with the run."""
    rng = random.Random(20261127)
    work = tmp_path / "work"
    work.mkdir()
    for i in range(6):
        stop = signal.SIGINT if i % 2 else signal.SIGTERM
        run = subprocess.Popen([sys.executable, str(FRAMEWORKS / "accumulate_frameworks.py"), f"--bench={bench}",
                                "--backend=numpy/sum", "--sizes=2^10..2^22", f"--work-dir={work}",
                                f"--csv={tmp_path / 'rows.csv'}", *QUICK],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as in a terminal
        time.sleep(rng.uniform(0.3, 2.0))
        run.send_signal(stop)
        assert run.wait(timeout=120) in (-stop, 0), f"{stop.name} at run {i}"
        assert not any(work.iterdir()), f"{stop.name} at run {i} left {[p.name for p in work.iterdir()]}"
        assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_list_names_every_backend_and_why_it_cannot_run():
    done = cli("--list")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    for name in GPU_BACKENDS + ["numpy/math.fsum", "numpy/sum"]:
        (at,) = [k for k, line in enumerate(lines) if line.startswith(name + " ")]
        assert " available " in lines[at] or lines[at + 1].strip().startswith("why unavailable: ")


def hide(monkeypatch, *modules):
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError


def test_gpu_frameworks_that_are_not_installed_are_unavailable_with_the_reason(bench, monkeypatch, capsys):
    hide(monkeypatch, "torch", "cupy", "jax", "cuda", "cuda.compute")
    monkeypatch.setattr(cupy_sum, "_at_import", {})
    assert runner.run(runner.parse_command_line([f"--bench={bench}", "--backend=cuda"])) == 1
    captured = capsys.readouterr()
    for name, reason in [("torch/sum", "PyTorch is not installed"), ("cupy/* (3 backends)", "CuPy is not installed"),
                         ("jax/sum", "JAX is not installed"), ("cuda.compute/reduce_into", "cuda.compute is not installed")]:
        assert f"unavailable here: {name}: {reason}" in captured.out
    assert "none of the selected framework backends can run here" in captured.err


def test_unavailable_backends_sharing_a_reason_take_one_line():
    registered = ["cupy/sum", "cupy/sum-cub", "cupy/sum-no-accelerators", "numpy/sum", "numpy/math.fsum"]
    lines = runner.unavailable_lines({"no CuPy": ["cupy/sum", "cupy/sum-cub", "cupy/sum-no-accelerators"],
                                      "no NumPy": ["numpy/sum"], "both": ["cupy/sum-cub", "numpy/sum"]}, registered)
    assert lines == ["unavailable here: cupy/* (3 backends): no CuPy", "unavailable here: numpy/sum: no NumPy",
                     "unavailable here: cupy/sum-cub, numpy/sum (2 backends): both"]


def fake_module(monkeypatch, name: str, **attributes) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    monkeypatch.setitem(sys.modules, name, module)
    return module


def test_installed_gpu_frameworks_without_a_device_say_so(monkeypatch):
    def no_device():
        raise RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")

    fake_module(monkeypatch, "torch", __version__="2.9.0", version=types.SimpleNamespace(cuda="12.8"),
                cuda=types.SimpleNamespace(is_available=lambda: False))
    assert torch_sum._why_unavailable() == "torch 2.9.0: no CUDA device (torch.cuda.is_available() is False)"
    sys.modules["torch"].version.cuda = None
    assert torch_sum._why_unavailable() == "torch 2.9.0 is built without CUDA"

    core = fake_module(monkeypatch, "cupy._core", **{f"get_{k}_accelerators": list for k in cupy_sum._KINDS})
    fake_module(monkeypatch, "cupy", _core=core, cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=no_device)))
    monkeypatch.setattr(cupy_sum, "_at_import", {})
    assert cupy_sum.why_no_device("cupy/sum") == "cupy/sum: no CUDA device (cudaErrorNoDevice: no CUDA-capable device is detected)"

    compute = fake_module(monkeypatch, "cuda.compute", _BINDINGS_AVAILABLE=False)
    fake_module(monkeypatch, "cuda", compute=compute)
    assert cuda_compute._why_unavailable() == "cuda.compute: its CUDA bindings are not available (no CUDA driver)"

    def devices(kind):
        raise RuntimeError("Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are present")

    jnp = fake_module(monkeypatch, "jax.numpy", sum=sum)
    fake_module(monkeypatch, "jax", __version__="0.7.0", numpy=jnp, devices=devices, jit=lambda f: f,
                config=types.SimpleNamespace(update=lambda *a: None))
    monkeypatch.setattr(jax_sum, "_jitted_sum", [])
    assert jax_sum._why_unavailable().startswith("jax 0.7.0: no GPU backend (Unknown backend: 'gpu'")
