"""The MLflow callback (hydra/callbacks=mlflow): a real sweep through the app, read back from the store."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hydra.core.utils import JobReturn, JobStatus
from hydra.types import RunMode
from omegaconf import OmegaConf

from experiments.mlflow_callback import NOT_INSTALLED, MlflowCallback
from tests.experiments.test_experiment_run import run_app

pytest.importorskip("mlflow")
from mlflow.tracking import MlflowClient

from tests import ROOT

SWEEP = ("puzzle=queens", "puzzle.n=10", "optimizer=sa,ga", "budget.evaluations=500")


def sweep(store: str, sweep_dir: Path, *overrides: str) -> subprocess.CompletedProcess:
    """A sweep of study mlflow_test logged to `store` (the end-of-sweep report left out: not tested here)."""
    return run_app(
        "-m",
        *SWEEP,
        *overrides,
        "study=mlflow_test",
        "~hydra.callbacks.report",
        "hydra/callbacks=mlflow",
        f"hydra.callbacks.mlflow.tracking_uri={store}",
        f"hydra.sweep.dir={sweep_dir}",
    )


@pytest.mark.slow
def test_a_sweep_logs_each_run_once(tmp_path):
    store, sweep_dir = f"sqlite:///{tmp_path}/mlflow.db", tmp_path / "sweep"
    proc = sweep(store, sweep_dir, "seed=0,1")  # the default launcher: joblib workers log their own runs
    assert proc.returncode == 0, proc.stderr
    assert "Callback" not in proc.stderr, proc.stderr  # Hydra only warns when a callback raises
    client = MlflowClient(store)
    experiment = client.get_experiment_by_name("mlflow_test").experiment_id
    runs = client.search_runs([experiment])
    assert len(runs) == 4
    for run in runs:
        run_dir = Path(run.data.tags["run_dir"])
        row = pd.read_parquet(run_dir / "run.parquet").iloc[0]
        assert run.info.status == "FINISHED" and run.data.tags["status"] == "ok"
        assert run.data.metrics["best"] == row["best"]
        assert run.data.metrics["evaluations"] == row["evaluations"]
        assert run.data.params["seed"] == str(row["seed"]) == run.data.tags["seed"]
        assert run.data.params["choices.optimizer"] == row["optimizer"] == run.data.tags["optimizer"]
        assert run.data.params["puzzle.n"] == "10" and run.data.tags["puzzle"] == "queens"
        assert run.data.tags["sweep_dir"] == str(sweep_dir.resolve())
        assert run.info.run_name == str(run_dir.relative_to(sweep_dir))
        history = client.get_metric_history(run.info.run_id, "best_so_far")
        trace = pd.read_parquet(run_dir / "trace.parquet")
        assert sorted((m.step, m.value) for m in history) == list(zip(trace["evaluations"], trace["best"]))
        artifacts = {a.path for a in client.list_artifacts(run.info.run_id)}
        assert {"best.png", "config.yaml"} <= artifacts

    # resumed with more: the 4 complete runs are skipped and not logged again; 4 new ones fail (a
    # negative budget), each recorded failed in its directory and logged FAILED with its error
    proc = sweep(store, sweep_dir, "seed=0,1", "budget.evaluations=500,-5", "hydra/launcher=basic")
    assert proc.returncode == 0 and proc.stdout.count("skip (already complete)") == 4, proc.stderr
    runs = client.search_runs([experiment])
    assert sorted(run.info.status for run in runs) == ["FAILED"] * 4 + ["FINISHED"] * 4
    for run in runs:
        if run.info.status == "FAILED":
            assert run.data.tags["status"] == "failed"
            assert run.data.tags["error"] == "InputError: budget.evaluations must be positive, got -5"
            assert "best" not in run.data.metrics


@pytest.mark.slow
def test_a_single_run_that_raised_is_logged_as_failed(tmp_path):
    """A single run's bug raises out of the app (no run record); Hydra still calls on_job_end."""
    store = f"sqlite:///{tmp_path}/mlflow.db"
    single = tmp_path / "single"
    single.mkdir()
    config = OmegaConf.create(
        {
            "study": "mlflow_test",
            "seed": 4,
            "hydra": {
                "mode": RunMode.RUN,
                "sweep": {"dir": str(tmp_path / "sweep")},
                "runtime": {"output_dir": str(single), "choices": {"task": "optimise", "puzzle": "queens"}},
            },
        }
    )
    job = JobReturn(status=JobStatus.FAILED, _return_value=RuntimeError("a bug"))
    MlflowCallback(store).on_job_end(config, job)
    client = MlflowClient(store)
    (run,) = client.search_runs([client.get_experiment_by_name("mlflow_test").experiment_id])
    assert run.info.status == "FAILED" and run.data.tags["error"] == "RuntimeError: a bug"
    assert run.data.tags["seed"] == "4" and run.info.run_name == "single"


@pytest.mark.slow
def test_without_mlflow_one_line(tmp_path):
    """Asked for but not importable (a stand-in package that fails to import): one line, no traceback."""
    (tmp_path / "mlflow").mkdir()
    (tmp_path / "mlflow" / "__init__.py").write_text("raise ModuleNotFoundError('No module named mlflow')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    command = ["puzzle=queens", "hydra/callbacks=mlflow", f"hydra.run.dir={tmp_path}/run"]
    proc = subprocess.run(
        [sys.executable, "-m", "experiments.run", *command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode != 0
    assert proc.stderr.strip() == NOT_INSTALLED
