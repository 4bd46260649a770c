"""The sweep report's per-run curves (evaluations and seconds), integer targets with their ERT table,
and wall-clock beside CPU seconds (issue 25, part 3)."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from experiments.plots import MOST_TARGETS, RUN_LINE, best_so_far, convergence, target_grid
from experiments.stats import ert_targets, summarise
from tests.experiments.test_experiment_run import run_app


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """A tiny sweep through the app: two optimisers, three seeds, on the pentomino strip (gaps: integers)."""
    out = tmp_path_factory.mktemp("sweep")
    proc = run_app(
        "-m",
        "optimizer=sa,two_opt",
        "seed=0,1,2",
        "budget.evaluations=2000",
        "budget.stop_at_optimum=false",
        "hydra/launcher=basic",
        f"hydra.sweep.dir={out}",
    )
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.slow
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


@pytest.mark.slow
def test_every_task_records_cpu_seconds(tmp_path):
    """task=exact and the colour sweep's points time themselves: both clocks there too."""
    from puzzles.edge_matching.seed_sweep import greedy_point
    from studies.colour_sweep.table import COLUMNS

    proc = run_app("puzzle=queens", "task=exact", f"hydra.run.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    row = pd.read_parquet(tmp_path / "run.parquet").iloc[0]
    assert row["task"] == "exact" and row["seconds"] > 0 and row["cpu_seconds"] > 0
    point = greedy_point(5, 4, 0, seed_faithful=False)
    assert {"seconds", "cpu_seconds"} <= set(COLUMNS) and point["cpu_seconds"] >= 0


def tiny_runs_and_traces() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two optimisers: a's runs 0 and 1 (100 and 200 evaluations), b's runs 2 and 3 (run 3 has no trace)."""
    runs = pd.DataFrame(
        {
            "run_id": [0, 1, 2, 3],
            "puzzle": "p",
            "optimizer": ["a", "a", "b", "b"],
            "best": [3.0, 4.0, 2.0, 9.0],
            "evaluations": [100, 200, 50, 60],
            "seconds": [1.0, 2.0, 0.5, 0.6],
        }
    )
    traces = pd.DataFrame(
        {
            "run_id": [0, 0, 0, 1, 1, 2],
            "evaluations": [1, 30, 80, 1, 150, 1],
            "seconds": [0.01, 0.3, 0.8, 0.01, 1.5, 0.01],
            "best": [10.0, 5.0, 3.0, 9.0, 4.0, 2.0],
        }
    )
    return runs, traces


def test_fixed_target_ert_by_hand():
    runs, traces = tiny_runs_and_traces()
    table = ert_targets(runs, traces, ["puzzle", "optimizer"], np.array([5.0, 3.0, 2.0]))
    ert = table.set_index(["optimizer", "target"])["ert_evaluations"]
    assert ert[("a", 5.0)] == (30 + 150) / 2  # both reach 5: at 30 and at 150
    assert ert[("a", 3.0)] == (80 + 200) / 1  # run 1 never reaches 3: its whole 200 counts
    assert math.isinf(ert[("a", 2.0)])
    assert ert[("b", 5.0)] == (1 + 60) / 1  # run 3 has no trace: never, its 60 evaluations count
    assert table.set_index(["optimizer", "target"]).loc[("b", 2.0), "hits"] == 1
    assert list(table.columns) == ["puzzle", "optimizer", "target", "runs", "hits", "ert_evaluations"]


def test_integer_scores_get_every_integer_as_a_target():
    runs, traces = tiny_runs_and_traces()
    assert target_grid(runs, traces).tolist() == list(range(2, 11))  # best reached 2, worst start 10
    wide = traces.assign(best=traces["best"] * 20)  # 40 .. 200: thinned out to MOST_TARGETS integers
    targets = target_grid(runs.assign(best=runs["best"] * 20), wide)
    assert len(targets) == MOST_TARGETS and targets[0] == 40 and targets[-1] == 200
    assert np.all(targets == np.round(targets)) and np.all(np.diff(targets) > 0)
    fractional = target_grid(runs.assign(best=runs["best"] + 0.5), traces)
    assert len(fractional) == 20 and fractional[0] == 2.5 and fractional[-1] == 10


@pytest.mark.parametrize("x", ["evaluations", "seconds"])
def test_convergence_draws_one_thin_line_per_run_in_its_group_colour(x):
    runs, traces = tiny_runs_and_traces()
    runs, traces = runs[runs["run_id"] < 3], traces  # runs with traces: 2 of a, 1 of b
    fig = convergence(runs, traces, ["puzzle", "optimizer"], x=x)
    lines = fig.axes[0].get_lines()
    thin = [line for line in lines if line.get_linewidth() == RUN_LINE]
    medians = {line.get_label(): line.get_color() for line in lines if line.get_linewidth() != RUN_LINE}
    assert len(thin) == 3 and set(medians) == {"a", "b"}
    assert sorted(line.get_color() for line in thin) == sorted([medians["a"], medians["a"], medians["b"]])
    assert fig.axes[0].get_xscale() == "log" and fig.axes[0].get_xlabel().startswith(
        x[:4].replace("seco", "wall")
    )
    for line in lines:
        if (
            line.get_linewidth() != RUN_LINE
        ):  # a median: a run not yet started counts as worst, so it never rises
            y = np.asarray(line.get_ydata(), float)
            assert np.all(np.diff(y[np.isfinite(y)]) <= 0)
    ends = {len(line.get_xdata()) - int(np.isnan(line.get_ydata()).sum()) for line in thin}
    assert len(ends) > 1  # each run's line stops at its own end (100, 200, 50 evaluations)
    plt.close(fig)


def test_best_so_far_against_seconds_is_the_trace_step():
    _, traces = tiny_runs_and_traces()
    curve = best_so_far(traces[traces["run_id"] == 0], np.array([0.005, 0.01, 0.5, 0.9]), x="seconds")
    assert curve.columns.tolist() == ["run_id", "seconds", "best"]
    assert curve["best"].tolist()[1:] == [10.0, 5.0, 3.0] and math.isnan(curve["best"].iloc[0])


@pytest.mark.slow
def test_report_writes_seconds_curves_and_the_ert_table(sweep):
    for name in ("convergence.png", "convergence_seconds.png", "ert_targets.csv", "ert_targets.parquet"):
        assert (sweep / name).stat().st_size > 0
    runs, traces = pd.read_parquet(sweep / "runs.parquet"), pd.read_parquet(sweep / "traces.parquet")
    ert = pd.read_csv(sweep / "ert_targets.csv")
    lo, hi = int(runs["best"].min()), int(traces["best"].max())
    expected = list(range(lo, hi + 1)) if hi - lo < MOST_TARGETS else target_grid(runs, traces).tolist()
    assert sorted(ert["target"].unique()) == expected and len(ert) == 2 * len(expected)
    assert (ert["runs"] == 3).all() and (ert["hits"] <= 3).all()
    assert ert[ert["target"] == hi]["ert_evaluations"].tolist() == [1.0, 1.0]  # the first evaluation
    summary = pd.read_csv(sweep / "summary.csv").set_index("optimizer")
    at_optimum = ert[ert["target"] == runs["known_optimum"].iloc[0]].set_index("optimizer")["ert_evaluations"]
    assert len(at_optimum) == 2  # some run of each got there (seeded: the same every time)
    for name, value in at_optimum.items():  # the known optimum as a target: the summary's ERT
        assert value == pytest.approx(summary.loc[name, "ert_evaluations"])
    report = (sweep / "report.md").read_text()
    assert "ert_targets.csv" in report and "![convergence_seconds.png](convergence_seconds.png)" in report
