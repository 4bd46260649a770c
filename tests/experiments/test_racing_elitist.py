"""The elitist race (task.race=elitist, experiments/racing.py): a trial tied with the best stops after
race_ties tests that eliminate no one, says so in trials.csv, is told to Optuna as pruned and is never
the tuned setting; none stops as tied before the study has race_survivors trials that ran every pair;
a trial ahead of the best runs on. Tied trials here are exact ties: the searched setting, the compiled
SA's `chunk` (moves between looks at the clock), changes nothing under an evaluation budget."""

from __future__ import annotations

from pathlib import Path

import optuna
import pandas as pd
import pytest
import yaml

from experiments.racing import RacingTrial, in_force
from tests.experiments.test_experiment_run import run_app

TIED = [  # four settings that make the same runs, one at a time
    "-m",
    "task=tune",
    "puzzle=eternity2_like",
    "puzzle.n=5",
    "optimizer=sa_compiled",
    "budget.evaluations=5000",
    "task.instances=[1,2,3,4]",
    "task.seeds=[0,1]",
    "task.race=elitist",
    "hydra/sweeper=optuna",
    "hydra.sweeper.n_trials=4",
    "hydra.sweeper.n_jobs=1",
    "hydra.sweeper.sampler.name=grid",
    "hydra.sweeper.sampler.seed=1",
    "optimizer.chunk=choice(1024,2048,4096,8192)",
    "hydra/launcher=basic",
]


def sweep(folder: Path, *extra: str) -> pd.DataFrame:
    proc = run_app(*TIED, *extra, f"hydra.sweep.dir={folder}")
    assert proc.returncode == 0, proc.stderr
    return pd.read_csv(folder / "trials.csv")


def states(folder: Path) -> dict[int, str]:
    study = optuna.load_study(study_name=None, storage=f"sqlite:///{folder}/optuna.db")
    return {t.number: t.state.name for t in study.get_trials()}


@pytest.mark.slow  # runs the app several times: the longer checks
def test_a_tied_trial_stops_after_the_set_tests_and_says_why(tmp_path):
    # the elitist defaults: first test after 4 runs, two tests without elimination, so 5 runs of 8
    table = sweep(tmp_path, "task.race_survivors=1").set_index("trial")
    assert table.loc[0, "runs"] == 8 and table.loc[0, "stopped"] == "all runs"  # no best yet: every pair
    for number in (1, 2, 3):
        assert table.loc[number, "runs"] == 5, table.loc[number, "stopped"]
        assert table.loc[number, "stopped"] == (
            "stopped: tied with the best after 2 tests without elimination (5 of 8 runs, against trial 0: "
            "not eliminated at p < 0.1, not ahead on the runs shared; survivors: 1 of the study's trials "
            "ran every pair)"
        )
        runs = list(Path(table.loc[number, "trial_dir"]).rglob("seed=*/run.parquet"))
        assert len(runs) == 5  # the runs it had, each a run record
    assert states(tmp_path) == {0: "COMPLETE", 1: "PRUNED", 2: "PRUNED", 3: "PRUNED"}
    # the tuned setting is the trial that ran every pair, listed first
    assert pd.read_csv(tmp_path / "trials.csv")["trial"].iloc[0] == 0
    best = yaml.safe_load((tmp_path / "optimization_results.yaml").read_text())
    assert best["best_params"] == {"optimizer.chunk": int(table.loc[0, "optimizer.chunk"])}


@pytest.mark.slow  # runs the app several times: the longer checks
def test_no_trial_stops_as_tied_before_the_study_has_its_survivors(tmp_path):
    extra = ("task.race_survivors=2", "task.race_after=2", "task.race_ties=3")
    table = sweep(tmp_path, *extra).set_index("trial")
    # trials 0 and 1 run every pair: the study has fewer than 2 survivors when they run
    assert list(table.loc[[0, 1], "runs"]) == [8, 8] and set(table.loc[[0, 1], "stopped"]) == {"all runs"}
    for number in (2, 3):  # tests at runs 2, 3 and 4: three without elimination
        assert table.loc[number, "runs"] == 4
        assert table.loc[number, "stopped"].startswith(
            "stopped: tied with the best after 3 tests without elimination (4 of 8 runs, against trial"
        )
        assert table.loc[number, "stopped"].endswith("survivors: 2 of the study's trials ran every pair)")
    assert states(tmp_path) == {0: "COMPLETE", 1: "COMPLETE", 2: "PRUNED", 3: "PRUNED"}


def race_against(best: list[float]) -> tuple[optuna.Study, RacingTrial]:
    """An in-memory study whose best trial ran `best` on pairs 0, 1, ...; a new trial raced elitist."""
    study = optuna.create_study(storage=optuna.storages.InMemoryStorage())
    done = study.ask()
    for step, value in enumerate(best):
        done.report(value, step)
    study.tell(done, sorted(best)[len(best) // 2])
    return study, RacingTrial(study.ask(), 0.1, len(best), "elitist", after=2, ties=2, survivors=1)


def test_a_trial_ahead_of_the_best_runs_on_and_one_level_with_it_stops():
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    best = [5.0, 6.0, 5.0, 7.0, 6.0, 5.0]
    _, ahead = race_against(best)
    assert [ahead.report(v - 1, step, step + 1) for step, v in enumerate(best)] == [None] * len(best)
    _, level = race_against(best)
    said = [level.report(v, step, step + 1) for step, v in enumerate(best[:3])]
    assert said[:2] == [None, None] and said[2] is not None and "after 2 tests" in said[2]
    assert level.trial.user_attrs["pruned"] == said[2]  # the sweeper reads it and tells Optuna: pruned
    _, worse = race_against(best)  # behind by a run, but not significantly: tied, not eliminated
    said = [worse.report(v + (step == 0), step, step + 1) for step, v in enumerate(best[:3])]
    assert said[2] is not None and said[2].startswith("stopped: tied with the best")


def test_the_elitist_settings_are_part_of_a_studys_identity_only_when_they_act():
    task = {"race": "wilcoxon", "race_p": 0.1, "race_after": None, "race_ties": 2, "race_survivors": 3}
    assert in_force(task) == {"race": "wilcoxon", "race_p": 0.1, "race_after": 2}  # as studies made before
    elitist = in_force({**task, "race": "elitist"})
    assert elitist["race_after"] == 4 and elitist["race_ties"] == 2 and elitist["race_survivors"] == 3
    assert in_force({"race": "elitist", "race_after": 5})["race_after"] == 5
