"""Sweeps at research grade: resume after an interruption, failures recorded, reproduce, launchers."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from experiments.reproduce import reproduce

ROOT = Path(__file__).resolve().parents[1]
SWEEP = ["-m", "hydra/launcher=basic", "optimizer=ga,sa,two_opt", "seed=0,1", "budget.evaluations=3000", "budget.stop_at_optimum=false"]


def app(*args, module="experiments.run", **kwargs):
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, **kwargs)


def finished(sweep: Path) -> set[Path]:
    return {p.parent for p in sweep.rglob("run.parquet") if p.parent != sweep}


def test_interrupted_sweep_resumes_with_only_the_missing_runs(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "experiments.run", *SWEEP, f"hydra.sweep.dir={tmp_path}"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
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
    proc = app("-m", "puzzle.width=4,6", "seed=0", "budget.evaluations=500", f"hydra.sweep.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    runs = pd.read_csv(tmp_path / "runs.csv")
    failed = runs[runs["status"] == "failed"]
    assert len(failed) == 1 and "narrower than piece 1" in failed["error"].iloc[0]
    assert (tmp_path / "budget.evaluations=500,puzzle.width=4" / "seed=0" / "config.yaml").is_file()
    assert runs.loc[runs["status"] == "ok", "puzzle.width"].tolist() == [6]
    assert pd.read_csv(tmp_path / "summary.csv")["n"].tolist() == [1]
    assert "1 run(s) failed" in (tmp_path / "report.md").read_text()


def test_reproduce_passes_on_a_fresh_run_and_reports_a_tampered_one(tmp_path):
    proc = app("optimizer=ga", "seed=5", "budget.evaluations=2000", "budget.stop_at_optimum=false",
               f"hydra.run.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    assert reproduce(tmp_path) == []
    ok = app(str(tmp_path), module="experiments.reproduce")
    assert ok.returncode == 0 and "reproduced" in ok.stdout
    trace = pd.read_parquet(tmp_path / "trace.parquet")
    trace.loc[len(trace) - 1, "best"] -= 1
    trace.to_parquet(tmp_path / "trace.parquet")
    bad = app(str(tmp_path), module="experiments.reproduce")
    assert bad.returncode == 1
    assert f"trace: best differs first at row {len(trace) - 1}" in bad.stdout


def test_reproduce_refuses_a_folder_that_is_not_a_run(tmp_path):
    proc = app(str(tmp_path), module="experiments.reproduce")
    assert proc.returncode == 1 and "is not a finished run directory" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_joblib_sweep_one_thread_per_worker(tmp_path):
    proc = app("-m", "hydra/launcher=local", "optimizer=ga,sa", "seed=0,1", "budget.evaluations=500",
               "budget.stop_at_optimum=false", f"hydra.sweep.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert len(runs) == 4 and (runs["status"] == "ok").all()
    if (os.cpu_count() or 1) <= 2:
        assert (runs["threads"] == 1).all()


def test_submitit_local_sweep_writes_its_records(tmp_path):
    proc = app("-m", "hydra/launcher=submitit_local", "optimizer=ga,two_opt", "seed=0",
               "budget.evaluations=300", f"hydra.sweep.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    assert len(finished(tmp_path)) == 2
    assert sorted(pd.read_csv(tmp_path / "runs.csv")["optimizer"]) == ["ga", "two_opt"]
