"""Hydra callbacks: at the end of a multirun, gather the sweep into one table and plots, say what
failed (the app then exits non-zero), and, after a tuning sweep, write the best settings as an
optimizer YAML."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

import pandas as pd
from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from core.errors import InputError
from experiments import sweep_lock
from experiments.records import REFUSED, UNRECORDED
from experiments.tasks import trait

outcome: dict[str, int] = {}  # the last sweep's failures, read by experiments.run.main for its exit code


def unrecorded(sweep_dir: Path) -> pd.DataFrame:
    """Runs that failed where no record could be written (experiments/run.py notes them), as
    (run_dir, error) rows."""
    notes = sweep_dir / UNRECORDED
    lines = notes.read_text().splitlines() if notes.is_file() else []
    rows = [dict(zip(("run_dir", "error"), line.split("\t", 1))) for line in lines]
    return pd.DataFrame(rows, columns=["run_dir", "error"])


def refused(sweep_dir: Path) -> pd.DataFrame:
    """Runs kept but refused because their config changed since they ran, as (run_dir, error) rows."""
    rows = []
    for refusal in sorted(sweep_dir.rglob(REFUSED)):
        keys = refusal.read_text().strip().split("; run it again")[0].split(" composed now in ", 1)[-1]
        rows.append({"run_dir": str(refusal.parent), "error": f"refused, config changed: {keys}"})
    return pd.DataFrame(rows, columns=["run_dir", "error"])


def summarise_sweep(sweep_dir: Path, pictures: bool = True) -> int:
    """Write the sweep's report and print its failures by reason; the number of failed (or refused)
    runs, and at least 1 when no run left a record."""
    from experiments.gather import gather_runs
    from experiments.report import failure_lines, failures, report

    try:
        runs = gather_runs([sweep_dir])
    except FileNotFoundError:
        runs = pd.DataFrame(columns=["run_dir", "status", "error"])
    extra = unrecorded(sweep_dir)
    failed = pd.concat(
        [runs.loc[runs["status"] != "ok", ["run_dir", "error"]], refused(sweep_dir), extra], ignore_index=True
    )
    if len(runs):
        try:
            out = report([sweep_dir], pictures=pictures)
            print(f"sweep report -> {out / 'report.md'}")
        except OSError as err:
            print(f"error: cannot write the sweep's report to {sweep_dir}: {err.strerror}", file=sys.stderr)
            return max(len(failed), 1)
        except Exception as err:  # a report bug must not pass as a clean sweep (Hydra only warns)
            print(
                f"error: the sweep's report failed ({type(err).__name__}: {err}); its runs are kept, and "
                f"python -m experiments.report {sweep_dir} writes it again",
                file=sys.stderr,
            )
            return max(len(failed), 1)
    else:
        print(f"no run of this sweep left a record in {sweep_dir}", file=sys.stderr)
    if len(failed):
        lines = failure_lines(failures(failed.assign(status="failed")), dirs=5)
        total = len(runs) + len(extra)
        print(f"{len(failed)} of {total} runs failed or were refused:", *lines[1:], sep="\n", file=sys.stderr)
    return len(failed) if len(runs) else max(len(failed), 1)


class ReportCallback(Callback):
    """Write the sweep's tables, plots and report beside its runs, and say what failed."""

    def __init__(self, pictures: bool = True) -> None:
        self.pictures = pictures  # hydra.callbacks.report.pictures=false: the tables alone, faster

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        try:  # in the sweep's own process only: workers run no multirun callback
            sweep_lock.acquire(Path(config.hydra.sweep.dir))
        except InputError as err:  # SystemExit: Hydra only warns of a callback's exception
            raise SystemExit(f"error: {err}") from None
        with contextlib.suppress(OSError):  # notes of this sweep only
            (Path(config.hydra.sweep.dir) / UNRECORDED).unlink(missing_ok=True)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        sweep_dir = Path(config.hydra.sweep.dir)
        outcome["failed"] = summarise_sweep(sweep_dir, self.pictures) if sweep_dir.is_dir() else 1
        if trait(config.get("task"), "tuning"):  # Tune declares it
            outcome["failed"] = max(outcome["failed"], report_tuned(sweep_dir, config))
        sweep_lock.release(sweep_dir / sweep_lock.LOCK)


def report_tuned(sweep_dir: Path, config: DictConfig) -> int:
    """Write a tuning sweep's best settings and say where; 1 and one line when that fails (Hydra
    would only warn of a callback's exception, and the sweep would pass as clean), else 0."""
    from experiments.tasks.tune import write_tuned

    try:
        tuned = write_tuned(sweep_dir, config.hydra.runtime.choices.get("optimizer"), config.task)
    except Exception as err:
        print(
            f"error: the tuned settings could not be written ({type(err).__name__}: {err}); the study is "
            f"kept in {sweep_dir / 'optuna.db'}: fix that and run the same command again, which runs no "
            "trial twice and writes them",
            file=sys.stderr,
        )
        return 1
    if tuned:
        print(f"tuned settings -> {tuned} (trials: {sweep_dir / 'trials.csv'})")
    return 0
