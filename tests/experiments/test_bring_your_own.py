"""A user's own puzzle and optimiser, in a folder outside the repository, run from config by `_target_`
(their YAML on Hydra's search path) and show up in every table, report and plot."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.conftest import outside_app

# the slow tier (--dist loadgroup) runs this file on one worker: its fixtures, built once
pytestmark = pytest.mark.xdist_group("outside_sweep")


@pytest.mark.slow
def test_own_components_appear_in_every_table_report_and_plot(outside_sweep):
    runs = pd.read_csv(outside_sweep / "runs.csv")
    assert len(runs) == 8 and (runs["status"] == "ok").all()
    assert set(runs["optimizer"]) == {"walk", "lahc"} and set(runs["puzzle"]) == {"hidden_order"}
    walk = runs[runs["optimizer"] == "walk"]
    assert (walk["optimizer.swaps"] == 1).all() and (walk["evaluations"] == 400).all()
    assert (runs["score_name"] == "pairs out of order").all()
    assert (runs["best"] == runs["score.pairs_out_of_order"]).all()
    summary = pd.read_csv(outside_sweep / "summary.csv")
    assert set(summary["optimizer"]) == {"walk", "lahc"} and summary["n"].tolist() == [2, 2, 2, 2]
    comparisons = pd.read_csv(outside_sweep / "comparisons.csv")
    assert {frozenset(p) for p in zip(comparisons["a"], comparisons["b"])} == {frozenset({"lahc", "walk"})}
    assert "walk" in (outside_sweep / "report.md").read_text()
    for picture in ("convergence.png", "final.png", "ecdf.png"):
        assert (outside_sweep / picture).stat().st_size > 0
    for run_dir in runs["run_dir"]:
        assert (outside_sweep.parent / run_dir / "best.png").stat().st_size > 0


@pytest.mark.slow
def test_own_runs_reproduce_and_own_settings_are_checked(outside_sweep):
    lab = outside_sweep.parent
    walk_run = next(p.parent for p in outside_sweep.rglob("run.parquet") if "optimizer=walk" in str(p))
    proc = outside_app(lab, "experiments.reproduce", str(walk_run))
    assert proc.returncode == 0 and "reproduced" in proc.stdout, proc.stdout + proc.stderr
    # the user's class signature is its schema: a typo fails in one line that lists its settings
    typo = outside_app(
        lab, "experiments.run", "hydra.searchpath=[file://conf]", "optimizer=walk", "optimizer.swapz=2"
    )
    assert typo.returncode != 0
    assert typo.stderr.strip() == (
        "error: optimizer has no setting 'swapz'; it takes: swaps (prefix a new key with + to add it)"
    )
