"""Tuning with hydra/sweeper=optuna (hydra_plugins/puzzlelab_sweeper, Optuna's ask/tell): a trial runs
the optimiser over instances and seeds (ordinary run records), returns their median best; the best
trial becomes an optimizer YAML; the same command again continues the study with its trial numbers."""

from __future__ import annotations

import statistics
from pathlib import Path

import optuna
import pandas as pd
import pytest
import yaml

from core.errors import InputError
from experiments.build import build
from experiments.tasks.tune import score
from tests.test_experiment_run import run_app

TUNE = [
    "-m",
    "task=tune",
    "puzzle=eternity2_like",
    "puzzle.n=4",
    "optimizer=sa_compiled",
    "budget.evaluations=3000",
    "task.instances=[1,2]",
    "task.seeds=[0]",
    "hydra/sweeper=optuna",
    "hydra.sweeper.n_jobs=2",
    "hydra.sweeper.sampler.seed=0",
    "optimizer.t_start=tag(log, interval(0.3, 3.0))",
    "optimizer.t_end=tag(log, interval(0.01, 0.3))",
    "hydra/launcher=basic",
]


def trials_of(sweep_dir: Path) -> list[optuna.trial.FrozenTrial]:
    return optuna.load_study(study_name=None, storage=f"sqlite:///{sweep_dir}/optuna.db").get_trials()


@pytest.mark.slow
def test_a_tuning_sweep_scores_trials_writes_the_best_optimizer_and_resumes(tmp_path, compose_config):
    first = run_app(*TUNE, "hydra.sweeper.n_trials=3", f"hydra.sweep.dir={tmp_path}")
    assert first.returncode == 0, first.stderr
    trials = pd.read_csv(tmp_path / "trials.csv")
    assert len(trials) == 3 and sorted(trials["trial"]) == [0, 1, 2]  # a job's number is its trial's
    assert trials["objective"].is_monotonic_increasing
    for _, trial in trials.iterrows():  # each trial's objective is the median of its own run records
        runs = [pd.read_parquet(p).iloc[0] for p in sorted(Path(trial["trial_dir"]).rglob("run.parquet"))]
        assert len(runs) == 2 and {r["puzzle.instance_seed"] for r in runs} == {1, 2}
        assert all(r["optimizer.t_start"] == trial["optimizer.t_start"] for r in runs)
        assert trial["objective"] == statistics.median(r["best"] for r in runs)
    best = yaml.safe_load((tmp_path / "optimization_results.yaml").read_text())
    assert set(best) == {"name", "best_params", "best_value"} and best["name"] == "optuna"
    assert best["best_value"] == trials["objective"].iloc[0]
    assert best["best_params"]["optimizer.t_start"] == trials["optimizer.t_start"].iloc[0]
    # the study is in the sweep folder, each trial told with its objective
    study = trials_of(tmp_path)
    assert [(t.number, t.state.name) for t in study] == [(0, "COMPLETE"), (1, "COMPLETE"), (2, "COMPLETE")]
    assert sorted(t.value for t in study) == sorted(trials["objective"])
    # the tuned optimizer YAML is ready to use: it composes on the search path and builds the tuned SA
    cfg = compose_config(f"hydra.searchpath=[file://{tmp_path / 'configs'}]", "optimizer=sa_compiled_tuned")
    tuned = build(cfg.optimizer, "optimizer")
    assert tuned.params["t_start"] == best["best_params"]["optimizer.t_start"]
    assert tuned.params["t_end"] == best["best_params"]["optimizer.t_end"]
    runs = pd.read_csv(tmp_path / "runs.csv")  # the report gathers the tuning runs as any others
    assert len(runs) == 6 and set(runs["task"]) == {"optimise"} and (runs["status"] == "ok").all()
    # the same command again: its 3 trials are complete, so it runs none and keeps the best
    again = run_app(*TUNE, "hydra.sweeper.n_trials=3", f"hydra.sweep.dir={tmp_path}")
    assert again.returncode == 0, again.stderr
    assert "3 of 3 trials complete, 0 to run" in again.stdout and "Launching" not in again.stdout
    assert yaml.safe_load((tmp_path / "optimization_results.yaml").read_text()) == best


@pytest.mark.slow
def test_a_resumed_study_continues_its_trial_numbers_and_runs_a_stopped_sweeps_trial_again(tmp_path):
    first = run_app(*TUNE, "hydra.sweeper.n_trials=2", f"hydra.sweep.dir={tmp_path}")
    assert first.returncode == 0, first.stderr
    # a sweep stopped while trial 2 ran (Ctrl-C, a killed process) leaves it RUNNING in the study
    study = optuna.load_study(study_name=None, storage=f"sqlite:///{tmp_path}/optuna.db")
    space = {
        "optimizer.t_start": optuna.distributions.FloatDistribution(0.3, 3.0, log=True),
        "optimizer.t_end": optuna.distributions.FloatDistribution(0.01, 0.3, log=True),
    }
    stopped = study.ask(space)
    assert stopped.number == 2
    more = run_app(*TUNE, "hydra.sweeper.n_trials=4", f"hydra.sweep.dir={tmp_path}")
    assert more.returncode == 0, more.stderr
    assert "2 of 4 trials complete, 2 to run (1 left running by a stopped sweep, run again)" in more.stdout
    trials = trials_of(tmp_path)
    assert [(t.number, t.state.name) for t in trials] == [(n, "COMPLETE") for n in range(4)]
    assert trials[2].params == stopped.params  # the stopped trial, run again with its own settings
    table = pd.read_csv(tmp_path / "trials.csv")
    assert sorted(table["trial"]) == [0, 1, 2, 3]
    row = table.set_index("trial").loc[2]
    assert row["optimizer.t_start"] == stopped.params["optimizer.t_start"]
    # the resumed sampler proposes new settings, not the first run's again (its seed moved on)
    assert trials[3].params not in [t.params for t in trials[:3]]


def test_failed_trials_are_told_to_optuna_as_fail_and_the_sweep_goes_on(tmp_path):
    proc = run_app(
        "-m",
        "puzzle=eternity2_like",
        "puzzle.n=4",
        "optimizer=sa_compiled",
        "budget.evaluations=1000",
        "hydra/sweeper=optuna",
        "hydra.sweeper.n_trials=2",
        "hydra.sweeper.n_jobs=1",
        "optimizer.t_start=interval(-2.0, -1.0)",  # a negative temperature: every run fails
        "hydra/launcher=basic",
        f"hydra.sweep.dir={tmp_path}",
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr  # failed runs: the sweep exits non-zero
    assert [t.state.name for t in trials_of(tmp_path)] == ["FAIL", "FAIL"]
    assert "trial 1 failed" in proc.stdout and not (tmp_path / "optimization_results.yaml").exists()


@pytest.mark.slow
def test_tuned_settings_that_cannot_be_written_fail_the_sweep_in_one_line(tmp_path):
    (tmp_path / "configs").write_text("a file where the tuned optimizer's folder goes")
    proc = run_app(*TUNE, "hydra.sweeper.n_trials=1", "hydra.sweeper.n_jobs=1", f"hydra.sweep.dir={tmp_path}")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("error: the tuned settings could not be written (") and "optuna.db" in last
    assert len(trials_of(tmp_path)) == 1 and (tmp_path / "trials.csv").is_file()  # the trial is kept


@pytest.mark.slow
def test_a_bad_sampler_name_is_one_line(tmp_path):
    proc = run_app(*TUNE, "hydra.sweeper.sampler.name=tpee", f"hydra.sweep.dir={tmp_path}")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        "error: hydra.sweeper.sampler.name=tpee is not a sampler here; use one of tpe, cmaes, random, grid, gp"
    )


def test_trial_statistics():
    rows = [
        {"status": "ok", "best": 4.0, "success": False, "evaluations": 100, "evals_to_optimum": None},
        {"status": "ok", "best": 0.0, "success": True, "evaluations": 30, "evals_to_optimum": 30},
        {"status": "ok", "best": 1.0, "success": False, "evaluations": 100, "evals_to_optimum": None},
    ]
    assert score(rows, "median") == 1.0 and score(rows, "mean") == pytest.approx(5 / 3)
    assert score(rows, "ert") == 230.0  # (100 + 30 + 100) evaluations over one success
    with pytest.raises(InputError, match="failed"):
        score([*rows, {"status": "failed"}], "median")


def test_the_ready_tuning_experiment_composes(compose_config):
    cfg = compose_config("+experiment=tune_sa_eternity2_like")
    assert cfg.task._target_ == "experiments.tasks.tune.Tune" and cfg.puzzle.n == 8
    assert cfg.optimizer._target_ == "heuristics.compiled.CompiledSA"
    assert list(cfg.task.instances) == list(range(1, 11)) and cfg.task.race == "wilcoxon"


RACE = [  # four cooling settings on a grid; two keep the search hot to the end and lose
    "-m",
    "task=tune",
    "puzzle=eternity2_like",
    "puzzle.n=5",
    "optimizer=sa_compiled",
    "budget.evaluations=5000",
    "task.instances=[1,2,3,4]",
    "task.seeds=[0,1]",
    "hydra/sweeper=optuna",
    "hydra.sweeper.n_trials=4",
    "hydra.sweeper.n_jobs=1",
    "hydra.sweeper.sampler.name=grid",
    "hydra.sweeper.sampler.seed=1",
    "optimizer.t_start=100",
    "optimizer.t_end=choice(0.05, 40.0, 60.0, 90.0)",
    "hydra/launcher=basic",
]


def test_racing_stops_a_worse_setting_early_and_says_why(tmp_path):
    proc = run_app(*RACE, f"hydra.sweep.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    trials = pd.read_csv(tmp_path / "trials.csv").set_index("trial")
    study = {t.number: t for t in trials_of(tmp_path)}
    pruned = trials[trials["stopped"] != "all runs"]
    assert len(pruned) >= 1 and (trials["runs_planned"] == 8).all()
    for number, trial in trials.iterrows():
        runs = [pd.read_parquet(p).iloc[0] for p in Path(trial["trial_dir"]).rglob("seed=*/run.parquet")]
        assert len(runs) == trial["runs"]  # the runs it had, each a run record
        assert trial["objective"] == statistics.median(r["best"] for r in runs)
        stored = study[number]
        assert len(stored.intermediate_values) == trial["runs"]  # every run reported to the pruner
        assert sorted(stored.intermediate_values.values()) == sorted(r["best"] for r in runs)
        if number in pruned.index:
            assert stored.state.name == "PRUNED" and trial["runs"] < 8
            rival = int(trial["stopped"].split("worse than trial ")[1].split()[0])
            assert trial["stopped"].startswith(f"pruned after {trial['runs']} of 8 runs: worse than trial")
            assert study[rival].state.name == "COMPLETE" and rival < number  # told before this one ran
        else:
            assert stored.state.name == "COMPLETE" and trial["runs"] == 8 and trial["stopped"] == "all runs"
    # finished trials first in trials.csv; the tuned setting is the best of those
    table = pd.read_csv(tmp_path / "trials.csv")
    finished = table["stopped"] == "all runs"
    assert (
        finished.iloc[: finished.sum()].all()
        and table["objective"].iloc[0] == trials["objective"][finished.values].min()
    )
    best = yaml.safe_load((tmp_path / "optimization_results.yaml").read_text())
    assert best["best_value"] == table["objective"].iloc[0]


@pytest.mark.slow
def test_racing_is_reproducible_and_off_runs_every_pair(tmp_path):
    first, second, off = tmp_path / "a", tmp_path / "b", tmp_path / "off"
    for where, extra in ((first, []), (second, ["hydra.sweeper.storage=journal"]), (off, ["task.race=off"])):
        proc = run_app(*RACE, *extra, f"hydra.sweep.dir={where}")
        assert proc.returncode == 0, proc.stderr
    columns = ["trial", "optimizer.t_end", "objective", "runs", "stopped"]
    a, b = (pd.read_csv(d / "trials.csv")[columns] for d in (first, second))
    pd.testing.assert_frame_equal(a, b)  # the same stops with another storage: racing is reproducible
    unraced = pd.read_csv(off / "trials.csv")
    assert (unraced["runs"] == 8).all() and (unraced["stopped"] == "all runs").all()
    assert unraced["runs"].sum() > a["runs"].sum()
