"""The Python API: docs/toolbox.md's example runs, and a run from Python is the command line's run."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

from experiments import api
from experiments.records import TIMING_COLUMNS
from tests import ROOT
from tests.experiments.test_experiment_run import run_app

QUEENS = ["puzzle.n=12", "budget.evaluations=1500", "budget.stop_at_optimum=false"]


@pytest.mark.slow
def test_the_example_script_runs_and_writes_the_command_lines_tables(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's code, wherever it is installed from
    proc = subprocess.run(
        [sys.executable, "examples/python_api.py", str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("attacking pairs after") == 6
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert len(runs) == 6 and set(runs["optimizer"]) == {"lahc", "sa"} and (runs["puzzle.n"] == 20).all()
    assert pd.read_csv(tmp_path / "summary.csv")["n"].tolist() == [3, 3]
    assert (tmp_path / "report.md").is_file() and (tmp_path / "iohprofiler.zip").is_file()


@pytest.mark.slow
def test_a_run_from_python_is_the_command_lines_run(tmp_path):
    cli = run_app("puzzle=queens", "optimizer=lahc", "seed=4", *QUEENS, f"hydra.run.dir={tmp_path / 'cli'}")
    assert cli.returncode == 0, cli.stderr
    row = api.run(puzzle="queens", optimizer="lahc", seed=4, overrides=QUEENS, out=tmp_path / "api")
    saved = pd.read_parquet(tmp_path / "cli" / "run.parquet").iloc[0].to_dict()
    same = [k for k in saved if k not in TIMING_COLUMNS]
    assert {k: row[k] for k in same} == {k: saved[k] for k in same}
    trace = pd.read_parquet(f"{row['run_dir']}/trace.parquet")
    cli_trace = pd.read_parquet(tmp_path / "cli" / "trace.parquet")
    assert trace[["evaluations", "best"]].equals(cli_trace[["evaluations", "best"]])
    again = api.run(puzzle="queens", optimizer="lahc", seed=4, overrides=QUEENS, out=tmp_path / "api")
    assert again == row  # a finished run is read back, not run again
    own = api.run(
        puzzle="queens",
        optimizer={"_target_": "heuristics.lahc.LateAcceptance", "history": 7},
        overrides=QUEENS,
        out=tmp_path / "api",
    )
    assert own["optimizer"] == "lahc" and own["optimizer.history"] == 7
    assert "optimizer=LateAcceptance(history=7)" in own["run_dir"]
    assert len(api.table(tmp_path / "api")) == 2
