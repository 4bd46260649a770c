"""The sweep report's per-run curves (evaluations and seconds), integer targets with their ERT table,
and wall-clock beside CPU seconds (issue 25, part 3)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from experiments.stats import summarise
from tests.test_experiment_run import run_app


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """A tiny sweep through the app: two optimisers, three seeds, on the pentomino strip (gaps: integers)."""
    out = tmp_path_factory.mktemp("sweep")
    proc = run_app(
        "-m",
        "optimizer=sa,two_opt",
        "seed=0,1,2",
        "budget.evaluations=400",
        "budget.stop_at_optimum=false",
        "hydra/launcher=basic",
        f"hydra.sweep.dir={out}",
    )
    assert proc.returncode == 0, proc.stderr
    return out


def test_runs_carry_wall_and_cpu_seconds(sweep):
    runs = pd.read_csv(sweep / "runs.csv")
    assert len(runs) == 6 and {"seconds", "cpu_seconds"} <= set(runs.columns)
    assert runs["cpu_seconds"].notna().all() and (runs["cpu_seconds"] >= 0).all()
    assert (runs["seconds"] > 0).all()
    summary = pd.read_csv(sweep / "summary.csv").set_index("optimizer")
    for name, g in runs.groupby("optimizer"):
        assert summary.loc[name, "wall_seconds_total"] == pytest.approx(g["seconds"].sum())
        assert summary.loc[name, "cpu_seconds_total"] == pytest.approx(g["cpu_seconds"].sum())


def test_time_totals_of_a_constructed_frame():
    runs = pd.DataFrame(
        {
            "optimizer": ["a", "a", "b"],
            "best": [1.0, 2.0, 3.0],
            "seconds": [1.5, 2.5, 4.0],
            "cpu_seconds": [3.0, 1.0, np.nan],
        }
    )
    s = summarise(runs, ["optimizer"]).set_index("optimizer")
    assert s.loc["a", "wall_seconds_total"] == 4.0 and s.loc["a", "cpu_seconds_total"] == 4.0
    assert s.loc["b", "wall_seconds_total"] == 4.0 and math.isnan(s.loc["b", "cpu_seconds_total"])
    old = summarise(runs.drop(columns="cpu_seconds"), ["optimizer"])  # records from before cpu_seconds
    assert old["cpu_seconds_total"].isna().all()


def test_every_task_records_cpu_seconds(tmp_path):
    """task=exact and the colour sweep's points time themselves: both clocks there too."""
    from experiments.tasks.colour_sweep import COLUMNS, greedy_point

    proc = run_app("puzzle=queens", "task=exact", f"hydra.run.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    row = pd.read_parquet(tmp_path / "run.parquet").iloc[0]
    assert row["task"] == "exact" and row["seconds"] > 0 and row["cpu_seconds"] > 0
    point = greedy_point(5, 4, 0, seed_faithful=False)
    assert {"seconds", "cpu_seconds"} <= set(COLUMNS) and point["cpu_seconds"] >= 0
