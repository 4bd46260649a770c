"""Log every run to MLflow (`hydra/callbacks=mlflow`): one experiment per study, one MLflow run per Hydra
job, read back from what the run wrote in its directory, so every launcher (joblib workers, Slurm jobs)
logs the same way.

A run directory is logged once: its MLflow run carries a `run_dir` tag, and a job whose directory is
already in the store (a resumed sweep skipping a complete run) logs nothing again. A finished sweep
re-run with the callback on for the first time is therefore logged whole. A run recorded as failed is
logged with MLflow status FAILED and its error; a single run refused with a one-line error (a bad
setting) exits before any callback and is not logged.
"""

from __future__ import annotations

import math
import numbers
import sys
import time
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from hydra.core.utils import JobReturn, JobStatus
from hydra.experimental.callback import Callback
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf

from experiments.records import CONFIG, RUN, TRACE, read_row

NOT_INSTALLED = 'error: the MLflow callback needs mlflow-skinny: pip install -e ".[mlflow]"'
ARTIFACTS = (CONFIG, "best.png", "best_board.txt", "board_edges.txt", "error.txt")
TAGS = ("task", "puzzle", "optimizer", "seed", "status", "error", "stop_reason")


@cache
def client(tracking_uri: str) -> Any:
    """One client per process and store (a SQLite store checks its tables when a client opens it)."""
    from mlflow.tracking import MlflowClient

    if tracking_uri.startswith("sqlite:///"):  # SQLite creates the database, not its folder
        Path(tracking_uri.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    return MlflowClient(tracking_uri)


def flat(node: Any, prefix: str = "") -> dict[str, Any]:
    """A config as MLflow parameters: {'puzzle': {'width': 6}} -> {'puzzle.width': 6}."""
    if not isinstance(node, dict):
        return {prefix.removesuffix("."): node}
    out: dict[str, Any] = {}
    for key, value in node.items():
        out |= flat(value, f"{prefix}{key}.")
    return out


def number(value: Any) -> float | None:
    """A finite number (a bool as 0/1; numpy's too, as Parquet gives them back) or None."""
    if isinstance(value, (bool, np.bool_, numbers.Real)):
        value = float(value)
        return value if math.isfinite(value) else None
    return None


class MlflowCallback(Callback):
    """Log each job's config, trace, outcomes and pictures as one MLflow run.

    `tracking_uri` is the store (a SQLite file by default; relative paths from where the app runs);
    `artifacts` is where a new experiment keeps its runs' files (default: beside the SQLite file).
    """

    def __init__(self, tracking_uri: str, artifacts: str | None = None) -> None:
        try:  # asked for but not installed: one line, no traceback (the main process needs it anyway)
            import mlflow  # noqa: F401
        except ImportError:
            sys.exit(NOT_INSTALLED)
        self.tracking_uri = tracking_uri
        self.artifacts = artifacts

    def experiment(self, study: str) -> str:
        """The study's experiment id, created on first use."""
        found = client(self.tracking_uri).get_experiment_by_name(study)
        if found is not None:
            return str(found.experiment_id)
        where = self.artifacts
        if where is None and self.tracking_uri.startswith("sqlite:///"):
            where = str(Path(self.tracking_uri.removeprefix("sqlite:///")).parent / "artifacts")
        location = (Path(where) / study).resolve().as_uri() if where else None
        return str(client(self.tracking_uri).create_experiment(study, artifact_location=location))

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        """Create the store and the experiment once, before parallel workers could race to."""
        self.experiment(str(config.study))

    def on_run_end(self, config: DictConfig, **kwargs: Any) -> None:
        print(f"mlflow -> {self.tracking_uri} (experiment {config.study})")

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        self.on_run_end(config)

    def on_job_end(self, config: DictConfig, job_return: JobReturn, **kwargs: Any) -> None:
        run_dir = Path(config.hydra.runtime.output_dir).resolve()
        experiment = self.experiment(str(config.study))
        mlflow = client(self.tracking_uri)
        if mlflow.search_runs([experiment], filter_string=f"tags.run_dir = '{run_dir}'", max_results=1):
            return
        row = self.row(config, job_return, run_dir)
        saved = run_dir / CONFIG
        if saved.is_file():
            params = flat(OmegaConf.to_container(OmegaConf.load(saved)))
        else:
            params = flat(OmegaConf.to_container(config, resolve=False))
            params = {k: v for k, v in params.items() if not k.startswith("hydra.")}
        # the run's own times: it ended when its record was written, and took its seconds
        end = 1000 * ((run_dir / RUN).stat().st_mtime if (run_dir / RUN).is_file() else time.time())
        start = end - 1000 * (number(row.get("seconds")) or 0.0)
        tags = {name: str(row[name]) for name in TAGS if row.get(name) is not None}
        tags |= {"study": str(config.study), "run_dir": str(run_dir), "mlflow.runName": self.name(config)}
        if config.hydra.mode == RunMode.MULTIRUN:
            tags["sweep_dir"] = str(Path(config.hydra.sweep.dir).resolve())
        run = mlflow.create_run(experiment, start_time=int(start), tags=tags)
        run_id = run.info.run_id
        self.log(run_id, params, row, run_dir, start, end)
        for name in ARTIFACTS:
            if (run_dir / name).is_file():
                mlflow.log_artifact(run_id, str(run_dir / name))
        status = "FINISHED" if row.get("status") == "ok" else "FAILED"
        mlflow.set_terminated(run_id, status, end_time=int(end))

    def row(self, config: DictConfig, job_return: JobReturn, run_dir: Path) -> dict[str, Any]:
        """The run's row; a job that raised without writing one (a single run's bug) as a failure."""
        if (run_dir / RUN).is_file():
            return read_row(run_dir)
        choices = config.hydra.runtime.choices
        row: dict[str, Any] = {k: choices.get(k) for k in ("task", "puzzle", "optimizer")}
        row |= {"seed": OmegaConf.select(config, "seed"), "status": "failed"}
        if job_return.status == JobStatus.FAILED:
            error = job_return._return_value
            row["error"] = f"{type(error).__name__}: {error}"
        return row

    @staticmethod
    def name(config: DictConfig) -> str:
        """The run's name: its sweep subdirectory (optimizer=ga/seed=3), or a single run's folder."""
        output, sweep = Path(config.hydra.runtime.output_dir), Path(config.hydra.sweep.dir)
        return str(output.relative_to(sweep)) if output.is_relative_to(sweep) else output.name

    def log(
        self,
        run_id: str,
        params: dict[str, Any],
        row: dict[str, Any],
        run_dir: Path,
        start: float,
        end: float,
    ) -> None:
        """Parameters; the outcomes as metrics (the final `best` at step = evaluations); the trace as
        `best_so_far` (step = evaluations, timestamp = the run's start plus its seconds, so MLflow's
        time axes show the run's own time). Times in ms."""
        from mlflow.entities import Metric, Param

        mlflow = client(self.tracking_uri)
        groups = {key.split(".")[0] for key in params}
        step = int(number(row.get("evaluations")) or 0)
        metrics = []
        for key, value in row.items():
            value = number(value)
            if value is not None and key != "seed" and key.split(".")[0] not in groups:
                metrics.append(Metric(key, value, int(end), step))
        if (run_dir / TRACE).is_file():
            trace = pd.read_parquet(run_dir / TRACE, columns=["evaluations", "seconds", "best"])
            for evaluations, seconds, best in trace.itertuples(index=False):
                metrics.append(
                    Metric("best_so_far", float(best), int(start + 1000 * seconds), int(evaluations))
                )
        entries = [Param(k, str(v)[:6000]) for k, v in params.items()]
        for i in range(0, len(entries), 100):
            mlflow.log_batch(run_id, params=entries[i : i + 100])
        for i in range(0, len(metrics), 1000):
            mlflow.log_batch(run_id, metrics=metrics[i : i + 1000])
