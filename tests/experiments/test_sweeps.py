"""Sweeps at research grade: resume after an interruption, failures recorded, reproduce, launchers."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import joblib._parallel_backends
import pandas as pd
import pytest
from joblib._parallel_backends import LokyBackend
from omegaconf import OmegaConf

from experiments.report import PICTURES_OFF
from experiments.reproduce import reproduce
from tests import ROOT

NO_PICTURES = PICTURES_OFF  # tables only: pictures are tested elsewhere
SWEEP = [
    "-m",
    "hydra/launcher=basic",
    "optimizer=ga,sa,two_opt",
    "seed=0,1",
    "budget.evaluations=3000",
    "budget.stop_at_optimum=false",
    NO_PICTURES,
]


def app(*args, module="experiments.run", **kwargs):
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, timeout=600, **kwargs
    )


def finished(sweep: Path) -> set[Path]:
    return {p.parent for p in sweep.rglob("run.parquet") if p.parent != sweep}


@pytest.mark.slow
def test_interrupted_sweep_resumes_with_only_the_missing_runs(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "experiments.run", *SWEEP, f"hydra.sweep.dir={tmp_path}"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.time() + 240
    while len(finished(tmp_path)) < 2 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)  # as hard an interruption as there is
    proc.wait()
    done_before = finished(tmp_path)
    assert 2 <= len(done_before) < 6, "the sweep should have been cut off part-way"
    for d in done_before:  # records are whole: write, then rename
        assert len(pd.read_parquet(d / "run.parquet")) == 1
    again = app(*SWEEP, f"hydra.sweep.dir={tmp_path}")
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("skip (already complete)") == len(done_before)
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert len(runs) == 6
    assert not runs.duplicated(["optimizer", "seed"]).any()
    assert (runs["evaluations"] == 3000).all()


def test_a_failing_run_is_recorded_and_the_sweep_goes_on(tmp_path):
    proc = app(
        "-m",
        "puzzle.width=4,6",
        "seed=0",
        "budget.evaluations=500",
        NO_PICTURES,
        f"hydra.sweep.dir={tmp_path}",
    )
    assert proc.returncode == 1, proc.stderr  # the sweep went on, and says that it failed
    assert "1 of 2 runs failed or were refused:\n  1 x InputError: the strip (width 4)" in proc.stderr
    runs = pd.read_csv(tmp_path / "runs.csv")
    failed = runs[runs["status"] == "failed"]
    assert len(failed) == 1
    assert failed["error"].iloc[0] == (
        "InputError: the strip (width 4) is narrower than piece 1 "
        "(I, 5 wide); use puzzle.width >= 5 or puzzle.orientations=free"
    )
    assert (tmp_path / "budget.evaluations=500,puzzle.width=4" / "seed=0" / "config.yaml").is_file()
    assert runs.loc[runs["status"] == "ok", "puzzle.width"].tolist() == [6]
    assert pd.read_csv(tmp_path / "summary.csv")["n"].tolist() == [1]
    assert "1 run(s) failed" in (tmp_path / "report.md").read_text()


@pytest.mark.slow
def test_reproduce_passes_on_a_fresh_run_and_reports_a_tampered_one(tmp_path):
    proc = app(
        "optimizer=ga",
        "seed=5",
        "budget.evaluations=2000",
        "budget.stop_at_optimum=false",
        f"hydra.run.dir={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr
    assert reproduce(tmp_path) == []
    ok = app(str(tmp_path), module="experiments.reproduce")
    assert ok.returncode == 0 and "reproduced" in ok.stdout
    trace = pd.read_parquet(tmp_path / "trace.parquet")
    trace.loc[len(trace) - 1, "best"] -= 1
    trace.to_parquet(tmp_path / "trace.parquet")
    bad = app(str(tmp_path), module="experiments.reproduce")
    assert bad.returncode == 1
    row = len(trace) - 1
    saved, now = trace["best"].iloc[row], trace["best"].iloc[row] + 1
    lines = bad.stdout.splitlines()
    assert len(lines) == 2 and lines[0] == f"NOT reproduced: {tmp_path}"
    assert lines[1] == f"  trace: best differs first at row {row}: saved {saved}, now {now}"


def test_reproduce_refuses_a_folder_that_is_not_a_run(tmp_path):
    proc = app(str(tmp_path), module="experiments.reproduce")
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        f"error: {tmp_path} is not a finished run directory (needs config.yaml and run.parquet)"
    )


@pytest.mark.slow
def test_joblib_sweep_one_thread_per_worker(tmp_path):
    """Every run of a local sweep records one numba thread, whatever the core count: the launcher
    runs one worker per core (n_jobs=-1) and joblib gives each cores // workers = 1 thread. The
    thread variables are cleared so the machine's own settings cannot decide it."""
    env = {k: v for k, v in os.environ.items() if k not in LokyBackend.MAX_NUM_THREADS_VARS}
    proc = app(
        "-m",
        "hydra/launcher=local",
        "optimizer=ga,sa",
        "seed=0,1",
        "budget.evaluations=500",
        "budget.stop_at_optimum=false",
        NO_PICTURES,
        f"hydra.sweep.dir={tmp_path}",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert len(runs) == 4 and (runs["status"] == "ok").all()
    assert runs["threads"].tolist() == [1] * 4, f"{os.cpu_count()} cores"


@pytest.mark.parametrize("cores", [1, 2, 3, 8, 64, 256])
def test_the_local_launcher_means_one_thread_per_worker_on_any_core_count(monkeypatch, cores):
    """The sweep test above runs on this machine's cores only: here joblib is told other counts.
    With the launcher's n_jobs, joblib starts one worker per core and gives each one thread."""
    n_jobs = OmegaConf.load(ROOT / "configs" / "hydra" / "launcher" / "local.yaml").n_jobs
    monkeypatch.setattr(joblib._parallel_backends, "cpu_count", lambda *args, **kwargs: cores)
    for var in LokyBackend.MAX_NUM_THREADS_VARS:
        monkeypatch.delenv(var, raising=False)
    backend = LokyBackend()
    workers = backend.effective_n_jobs(n_jobs)
    assert workers == cores
    if workers > 1:  # one worker: joblib runs the jobs in the parent, which has the one core
        assert backend._prepare_worker_env(workers)["NUMBA_NUM_THREADS"] == "1"


@pytest.mark.slow
def test_submitit_local_sweep_writes_its_records(tmp_path):
    proc = app(
        "-m",
        "hydra/launcher=submitit_local",
        "optimizer=ga,two_opt",
        "seed=0",
        "budget.evaluations=300",
        NO_PICTURES,
        f"hydra.sweep.dir={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr
    assert len(finished(tmp_path)) == 2
    assert sorted(pd.read_csv(tmp_path / "runs.csv")["optimizer"]) == ["ga", "two_opt"]
