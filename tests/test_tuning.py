"""Tuning with hydra-optuna-sweeper: a trial runs the optimiser over instances and seeds (ordinary run
records), returns their median best; the best trial becomes an optimizer YAML; a re-run resumes."""

from __future__ import annotations

import statistics
from pathlib import Path

import pandas as pd
import pytest
import yaml

from core import InputError
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
    "hydra.sweeper.n_trials=3",
    "hydra.sweeper.n_jobs=1",
    "hydra.sweeper.sampler.seed=0",
    "optimizer.t_start=tag(log, interval(0.3, 3.0))",
    "optimizer.t_end=tag(log, interval(0.01, 0.3))",
    "hydra/launcher=basic",
]


def test_a_tuning_sweep_scores_trials_writes_the_best_optimizer_and_resumes(tmp_path, compose_config):
    first = run_app(*TUNE, f"hydra.sweep.dir={tmp_path}")
    assert first.returncode == 0, first.stderr
    trials = pd.read_csv(tmp_path / "trials.csv")
    assert len(trials) == 3 and sorted(trials["trial"]) == [0, 1, 2]
    assert trials["objective"].is_monotonic_increasing
    for _, trial in trials.iterrows():  # each trial's objective is the median of its own run records
        runs = [pd.read_parquet(p).iloc[0] for p in sorted(Path(trial["trial_dir"]).rglob("run.parquet"))]
        assert len(runs) == 2 and {r["puzzle.instance_seed"] for r in runs} == {1, 2}
        assert all(r["optimizer.t_start"] == trial["optimizer.t_start"] for r in runs)
        assert trial["objective"] == statistics.median(r["best"] for r in runs)
    best = yaml.safe_load((tmp_path / "optimization_results.yaml").read_text())
    assert best["best_value"] == trials["objective"].iloc[0]
    assert best["best_params"]["optimizer.t_start"] == trials["optimizer.t_start"].iloc[0]
    # the tuned optimizer YAML is ready to use: it composes on the search path and builds the tuned SA
    cfg = compose_config(f"hydra.searchpath=[file://{tmp_path / 'configs'}]", "optimizer=sa_compiled_tuned")
    tuned = build(cfg.optimizer, "optimizer")
    assert tuned.params["t_start"] == best["best_params"]["optimizer.t_start"]
    assert tuned.params["t_end"] == best["best_params"]["optimizer.t_end"]
    runs = pd.read_csv(tmp_path / "runs.csv")  # the report gathers the tuning runs as any others
    assert len(runs) == 6 and set(runs["task"]) == {"optimise"} and (runs["status"] == "ok").all()
    again = run_app(*TUNE, f"hydra.sweep.dir={tmp_path}")
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("skip (already complete)") == 6  # the seeded sampler asks the same trials
    assert yaml.safe_load((tmp_path / "optimization_results.yaml").read_text()) == best


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
    assert cfg.optimizer._target_ == "heuristics.compiled.CompiledSA" and list(cfg.task.instances) == [
        1,
        2,
        3,
        4,
    ]
