"""Issue 54's mistakes and signals end in one line, never a traceback, a hang or a silent wrong place.

The app's cases go through `experiments.run` forked, as tests/experiments/test_bad_input.py runs them (its
helpers); experiments.query and experiments.report are called at their own entry point, `main(argv)`, forked
where a signal is sent, and Ctrl-C while a program loads is a real signal to a real `python -m`.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import joblib
import pytest

from tests import ROOT
from tests.experiments.test_bad_input import assert_one_line, command, forked, needs_fork, run_forked

FILES: dict[str, bytes] = {"a_file": b"not a folder\n"}
SWEEP_END = "interrupted while the sweep's report was written: every run is recorded; write it with"
TIMED = "is longer than a run can be timed (at most 1e+09 s, about 32 years); give less, or leave"

CASES = [
    # what Hydra's override grammar refuses (a traceback before)
    (
        "puzzle.width=[6",
        "cannot read the override 'puzzle.width=[6' (no viable alternative at input '[6'): a [",
    ),
    (
        "puzzle=pentomino puzzle.pieces=/tmp/pièces.txt",
        "cannot read the override 'puzzle.pieces=/tmp/pièces.txt': Hydra reads 'è' only inside quotes; quote "
        "the value: 'puzzle.pieces=\"/tmp/pièces.txt\"'",
    ),
    # a time a stop timer cannot keep: its thread died with a traceback and the run went on
    ("budget.seconds=1e10", f"budget.seconds=1e+10 {TIMED} budget.seconds unset for no time limit"),
    ("task=exact task.seconds=1e10", f"task.seconds=1e+10 {TIMED} task.seconds unset"),
    # a group no default chooses, without its +
    (
        "experiment=pentomino_ga_vs_2opt",
        "Could not override 'experiment'. No match in the defaults list. Did you mean "
        "+experiment=pentomino_ga_vs_2opt?",
    ),
    # a sweep's second value, composed only when the sweep starts, says why as the first would
    (
        "-m puzzle=pentomino budget.evaluations=10,abc hydra.sweep.dir={tmp}",
        "budget.evaluations must be a whole number, got 'abc'",
    ),
    # -m with --cfg: Hydra's ValueError, a traceback
    ("-m seed=0,1 hydra.sweep.dir={tmp} --cfg job", "Only one of --run, --multirun, --cfg"),
    # a file where the run's folder must go (what PUZZLELAB_RESULTS=<a file> led to)
    ("hydra.run.dir={inputs}/a_file/run", "a_file is a file, not a folder; choose another folder"),
]


@pytest.fixture(scope="module", autouse=True)
def warm() -> None:
    """The app's setup and a run's imports, once: each forked case then starts in a fraction of a second."""
    import matplotlib.pyplot  # noqa: F401 (a run's picture)

    import experiments.tasks.optimise  # noqa: F401
    from experiments.run import setup

    setup()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("bad_inputs_54")
    for name, content in FILES.items():
        (folder / name).write_bytes(content)
    return folder


@needs_fork
@pytest.mark.slow
@pytest.mark.parametrize("args, expected", CASES, ids=[a.replace("{tmp}", "")[:50] for a, _ in CASES])
def test_a_mistake_ends_in_one_line(args, expected, tmp_path, inputs):
    assert_one_line(run_forked(command(args, tmp_path, inputs), tmp_path), expected)


# ------------------------------------------------------------------ the launcher's workers (item 1)


def shown(n_jobs: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """The hydra config a 300-run study would sweep with, given n_jobs, as the app prints it (`--cfg
    hydra`: shown, not run)."""
    argv = [
        "+experiment=pentomino_ga_vs_2opt",
        f"hydra.launcher.n_jobs={n_jobs}",
        f"hydra.sweep.dir={tmp_path}",
    ]
    proc = run_forked([*argv, "--cfg", "hydra"], tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return proc


@needs_fork
def test_workers_past_the_cores_are_capped_and_said(tmp_path, monkeypatch):
    """n_jobs=1000 forked hundreds of loky workers for a sweep; on 2 cores it is cut to 2, and said."""
    monkeypatch.setattr("experiments.overrides.cores", lambda: 2)
    proc = shown("1000", tmp_path)
    assert "note: hydra.launcher.n_jobs=1000 capped at 2, the cores this process may use" in proc.stderr
    assert "n_jobs: 2\n" in proc.stdout


@needs_fork
@pytest.mark.slow
def test_workers_past_the_runs_are_capped_and_said(tmp_path, monkeypatch):
    """On a machine of 1,000 cores, a sweep of 300 runs needs no more than 300 workers."""
    monkeypatch.setattr("experiments.overrides.cores", lambda: 1000)
    proc = shown("1000", tmp_path)
    assert (
        "note: hydra.launcher.n_jobs=1000 capped at 300, the runs this sweep launches at once" in proc.stderr
    )
    assert "n_jobs: 300\n" in proc.stdout


@needs_fork
@pytest.mark.slow
@pytest.mark.parametrize("n_jobs", ["-1", "-2", "1"])
def test_joblibs_own_counts_are_kept(n_jobs, tmp_path):
    proc = shown(n_jobs, tmp_path)
    assert "note:" not in proc.stderr and f"n_jobs: {n_jobs}\n" in proc.stdout


@needs_fork
@pytest.mark.slow
def test_a_sweep_asking_for_1000_workers_finishes(tmp_path, inputs):
    """The issue's command: 3 runs, n_jobs=1000; it finished nothing in 100 s, and leaked semaphores."""
    args = "-m puzzle=pentomino seed=0,1,2 hydra.launcher.n_jobs=1000 budget.evaluations=50 "
    args += "hydra.sweep.dir={tmp}"
    proc = run_forked(command(args, tmp_path, inputs), tmp_path, timeout=90)
    assert proc.returncode == 0, proc.stderr
    workers = min(joblib.cpu_count(), 3)
    assert f"Joblib.Parallel(n_jobs={workers}," in proc.stdout
    assert len(list(tmp_path.rglob("run.parquet"))) == 3 and (tmp_path / "report.md").is_file()
    assert "leaked" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


# ------------------------------------------------------------------ PUZZLELAB_RESULTS (item 2)

EMPTY = "PUZZLELAB_RESULTS is set but empty: unset it (results go to ./results) or give a folder"


@needs_fork
@pytest.mark.slow
def test_results_set_but_empty_is_refused_by_the_run(tmp_path, inputs, monkeypatch):
    """`export PUZZLELAB_RESULTS=$SCRATCH` with SCRATCH unset put runs in /runs, at the root."""
    monkeypatch.setenv("PUZZLELAB_RESULTS", "")
    monkeypatch.chdir(tmp_path)
    there = Path("/runs").exists()
    assert_one_line(run_forked(["budget.evaluations=20"], tmp_path), EMPTY)
    assert not (tmp_path / "results").exists() and Path("/runs").exists() == there


@needs_fork
@pytest.mark.slow
def test_results_naming_a_file_is_refused_by_the_run(tmp_path, inputs, monkeypatch):
    monkeypatch.setenv("PUZZLELAB_RESULTS", str(inputs / "a_file" / "deeper"))
    proc = run_forked(["budget.evaluations=20"], tmp_path)
    assert_one_line(
        proc, f"PUZZLELAB_RESULTS={inputs}/a_file/deeper: {inputs}/a_file is a file, not a folder"
    )


def ends_in_one_line(main: Callable[[list[str]], None], argv: list[str], capsys) -> str:
    """An entry point that must fail: its exit is one `error:` line, and no traceback on stderr."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    message = exit_.value.code
    assert isinstance(message, str) and message.startswith("error: ") and "\n" not in message, message
    assert "Traceback" not in capsys.readouterr().err
    return message


@pytest.mark.slow
def test_results_set_but_empty_is_refused_by_the_readers(monkeypatch, capsys):
    """query and the API read the same folder the run writes, or refuse as it does."""
    from experiments import api, query

    monkeypatch.setenv("PUZZLELAB_RESULTS", "")
    assert EMPTY in ends_in_one_line(query.main, ["--columns"], capsys)
    from core.errors import InputError

    with pytest.raises(InputError, match=re.escape(EMPTY)):
        api.table()


# ------------------------------------------------------------------ experiments.query --out (item 3)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, inputs) -> Path:
    """A folder holding one finished run."""
    folder = tmp_path_factory.mktemp("runs_54")
    proc = run_forked(
        command("budget.evaluations=20 progress=false hydra.run.dir={tmp}/run", folder, inputs), folder
    )
    assert proc.returncode == 0, proc.stderr
    return folder


@needs_fork
@pytest.mark.slow
@pytest.mark.parametrize(
    "out, expected",
    [
        ("/proc/x.csv", "error: cannot write /proc/x.parquet (and its .csv): "),
        (
            "{inputs}/a_file/x.csv",
            "a_file is a file, not a folder; give --out a path in a folder you can write",
        ),
        ("/", "error: --out / names no file"),
    ],
    ids=["proc", "a_file", "root"],
)
def test_query_out_where_nothing_can_be_written(out, expected, runs, inputs, capsys):
    from experiments.query import main

    argv = ["SELECT count(*) AS n FROM runs", "--root", str(runs), "--out", out.format(inputs=inputs)]
    assert expected in ends_in_one_line(main, argv, capsys)


# ------------------------------------------------------------------ Ctrl-C (items 3 and 4)

LOADING = """
import importlib.abc, os, runpy, signal, sys

class Interrupt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pandas":  # a real Ctrl-C, while the program imports what it needs
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = [sys.argv[1], *sys.argv[2:]]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv, line",
    [
        (
            ["experiments.run", "budget.evaluations=20", "hydra.run.dir={tmp}"],
            "while starting; nothing was run",
        ),
        (["experiments.report", "{tmp}"], "while starting; nothing was written"),
    ],
    ids=["run", "report"],
)
def test_ctrl_c_while_loading_ends_in_one_line(argv, line, tmp_path):
    """Ctrl-C in the seconds a busy machine takes to import the app: exit 130, one line, nothing made."""
    given = [a.format(tmp=tmp_path) for a in argv]
    proc = subprocess.run(
        [sys.executable, "-c", LOADING, *given], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 130 and "Traceback" not in proc.stderr, proc.stderr
    assert [s for s in proc.stderr.splitlines() if s.strip()] == [f"interrupted: {line}"]
    assert not any(tmp_path.iterdir())


def signalled(signum: int) -> Callable[..., object]:
    """A stand-in for experiments.report.report that receives `signum` (a real signal, sent to its own
    process) while it writes."""

    def report(*args, **kwargs):
        os.kill(os.getpid(), signum)
        time.sleep(30)  # the handler acts here; past this, the signal did nothing
        raise AssertionError("the signal did not stop the report")

    return report


@needs_fork
@pytest.mark.slow
def test_ctrl_c_while_the_report_is_written_ends_in_one_line(runs, tmp_path, monkeypatch):
    from experiments import report

    monkeypatch.setattr(report, "report", signalled(signal.SIGINT))
    proc = forked(lambda: report.main([str(runs)]), tmp_path)  # Ctrl-C heard: tests/conftest.py
    assert proc.returncode == 130 and "Traceback" not in proc.stderr, proc.stderr
    line = f"interrupted: the report in {runs} is not complete; run the same command again to write it"
    assert [s for s in proc.stderr.splitlines() if s.strip()] == [line]


# ------------------------------------------------------------------ a signal at the sweep's end (item 4)

A_SWEEP = (  # one quick run
    "-m puzzle=queens optimizer=random_search seed=0 budget.evaluations=20 hydra/launcher=basic "
    "hydra.sweep.dir={tmp}"
)


@needs_fork
@pytest.mark.parametrize(
    "signum, code",
    [(signal.SIGTERM, 143), pytest.param(signal.SIGINT, 130, marks=pytest.mark.slow)],
    ids=["SIGTERM", "SIGINT"],
)
def test_a_signal_while_the_sweeps_report_is_written_says_how_to_write_it(
    signum, code, tmp_path, inputs, monkeypatch
):
    """SIGTERM there killed the sweep with 143 and no word, no report and a stale lock."""
    from experiments import report

    monkeypatch.setattr(report, "report", signalled(signum))
    proc = run_forked(command(A_SWEEP, tmp_path, inputs), tmp_path)
    lines = [s for s in proc.stderr.splitlines() if s.strip()]
    assert proc.returncode == code and "Traceback" not in proc.stderr, proc.stderr
    how = f"python -m experiments.report {tmp_path} (or run the same command again, which reruns none)"
    assert lines[-1] == f"{SWEEP_END} {how}", proc.stderr
    assert len(list(tmp_path.rglob("run.parquet"))) == 1
    assert not (tmp_path / "sweep.lock").exists()
    if signum == signal.SIGINT:  # the slow tier's case: the command the line gives writes the report
        monkeypatch.undo()
        written = forked(lambda: report.main([str(tmp_path)]), tmp_path)
        assert written.returncode == 0 and (tmp_path / "report.md").is_file(), written.stderr


# ------------------------------------------------------------------ a full disk (item 5)


def full_disk(name: str) -> Callable[..., None]:
    """records.atomic_write, but writing `name` finds the disk full, as a real write would say it."""
    from experiments import records

    write = records.atomic_write

    def atomic_write(path, *args, **kwargs):
        if Path(path).name == name:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(Path(path).parent / f".{name}.tmp"))
        return write(path, *args, **kwargs)

    return atomic_write


@needs_fork
@pytest.mark.slow
@pytest.mark.parametrize("name", ["best.png", "run.parquet"])
def test_a_full_disk_says_so_and_keeps_what_the_run_found(name, tmp_path, inputs, monkeypatch):
    """It said "make it writable", and the result line was lost with the record."""
    monkeypatch.setattr("experiments.records.atomic_write", full_disk(name))
    proc = run_forked(command("budget.evaluations=20 progress=false", tmp_path, inputs), tmp_path)
    assert_one_line(
        proc,
        f"cannot write to {tmp_path}: the disk is full (No space left on device); free some space there, or "
        "choose another folder",
    )
    assert "pentomino | ga | seed 0: best " in proc.stdout and "(not recorded: see below)" in proc.stdout
    assert "best_genome: " in proc.stdout and not (tmp_path / "run.parquet").exists()
