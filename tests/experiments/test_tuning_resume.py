"""A tuning study interrupted at any point and run again gives the trials, pruning decisions and tuned
setting of an uninterrupted one (issue 58, item 3): each trial's proposal is a function of the sampler's
seed, its trial number and the trials told before its batch; each trial races against the trials told
before its batch; batches are the same in a resumed sweep as in an unbroken one."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import optuna
import pandas as pd
import pytest
import yaml
from hydra.core.utils import JobReturn, JobStatus
from optuna.distributions import FloatDistribution
from optuna.trial import TrialState

from experiments.optuna_study import PRUNED, open_study
from hydra_plugins.puzzlelab_sweeper.optuna_sweeper import OptunaSweeper
from tests import ROOT
from tests.experiments.test_experiment_run import run_app

# the slow tier (--dist loadgroup) runs this file on one worker: its fixtures, built once
pytestmark = pytest.mark.xdist_group("tuning_resume")

STUDY = [  # 8 TPE trials (2 start-up draws), two at a time, racing on 6 boards; a hot t_end loses
    "-m",
    "task=tune",
    "puzzle=eternity2_like",
    "puzzle.n=5",
    "optimizer=sa_compiled",
    "budget.evaluations=5000",
    "task.instances=[1,2,3,4,5,6]",
    "task.seeds=[0]",
    "hydra/sweeper=optuna",
    "hydra.sweeper.n_jobs=2",
    "hydra.sweeper.n_trials=8",
    "hydra.sweeper.sampler.seed=1",
    "+hydra.sweeper.sampler.n_startup_trials=2",
    "optimizer.t_start=100",
    "optimizer.t_end=tag(log, interval(0.01, 60))",
    "optimizer.period=tag(log, interval(1000, 100000))",
    "hydra/launcher=basic",
    "hydra.callbacks.report.pictures=false",  # the report's tables; its pictures are tested elsewhere
]
COLUMNS = ["trial", "optimizer.t_end", "optimizer.period", "objective", "runs", "stopped", "median_best"]


def outcome(sweep_dir: Path) -> dict[str, Any]:
    """What a study gave: every trial as stored (settings, state, value, each run reported, user
    attributes), trials.csv, Optuna's best and the tuned optimizer YAML (its folder left out)."""
    study = optuna.load_study(study_name=None, storage=f"sqlite:///{sweep_dir}/optuna.db")
    tuned = (sweep_dir / "configs" / "optimizer" / "sa_compiled_tuned.yaml").read_text()
    best = yaml.safe_load((sweep_dir / "optimization_results.yaml").read_text())
    return {
        "trials": [
            (t.number, t.state.name, t.params, t.value, t.intermediate_values, t.user_attrs)
            for t in study.trials
        ],
        "table": pd.read_csv(sweep_dir / "trials.csv")[COLUMNS].sort_values("trial").to_dict("records"),
        "best": (best["best_params"], best["best_value"]),
        "tuned": tuned.replace(str(sweep_dir), "<sweep dir>").replace(
            str(sweep_dir.resolve()), "<sweep dir>"
        ),
    }


def assert_same(resumed: dict[str, Any], unbroken: dict[str, Any]) -> None:
    for key in ("trials", "table", "best", "tuned"):
        assert resumed[key] == unbroken[key], key


def stopped_sweep(sweep_dir: Path, runs: int = 0, marker: str = "", sig: int = signal.SIGKILL) -> str:
    """Start the study's sweep and send `sig` once `runs` runs of its trials have finished and a line
    has held `marker`; its output."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "experiments.run", *STUDY, f"hydra.sweep.dir={sweep_dir}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    lines: list[str] = []

    def read() -> None:  # a marker alone (runs=0) is answered as its line arrives: a trial lasts < 1 s
        for line in proc.stdout or []:
            lines.append(line)
            if marker and not runs and marker in line and proc.poll() is None:
                proc.send_signal(sig)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    while proc.poll() is None:
        done = len(list(sweep_dir.glob("*/seed=0/instance_seed=*/seed=0/run.parquet")))
        if done >= runs and any(marker in line for line in list(lines)):
            if runs:  # else the reader sent it
                proc.send_signal(sig)
            break
        time.sleep(0.02)
    proc.wait(timeout=120)
    reader.join(timeout=10)
    out = "".join(lines)
    assert proc.returncode != 0, out  # stopped, not finished
    return out


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory) -> dict[str, Any]:
    where = tmp_path_factory.mktemp("unbroken")
    proc = run_app(*STUDY, f"hydra.sweep.dir={where}")
    assert proc.returncode == 0, proc.stderr
    found = outcome(where)
    states = [t[1] for t in found["trials"]]
    assert states.count("PRUNED") >= 1 and states.count("COMPLETE") >= 4  # racing and sampling both at work
    return found


def again(sweep_dir: Path) -> dict[str, Any]:
    proc = run_app(*STUDY, f"hydra.sweep.dir={sweep_dir}")
    assert proc.returncode == 0, proc.stderr
    return outcome(sweep_dir)


@pytest.mark.slow
def test_a_study_killed_mid_trial_and_run_again_is_the_unbroken_study(tmp_path, unbroken):
    stopped_sweep(tmp_path, runs=32)  # kill -9 mid-trial 5; trial 4, of its batch, finished and not told
    assert_same(again(tmp_path), unbroken)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("runs", "marker"),
    [
        (9, ""),  # in trial 1's runs: the run it stops is not reported, and is run again
        (0, "#7 :"),  # as trial 7 starts: trial 6, pruned after 4 runs and not told, is run again
    ],
)
def test_a_study_stopped_with_ctrl_c_and_run_again_is_the_unbroken_study(tmp_path, unbroken, runs, marker):
    if marker:
        trial_6 = next(t for t in unbroken["trials"] if t[0] == 6)
        assert trial_6[1] == "PRUNED" and len(trial_6[4]) < 6
    out = stopped_sweep(tmp_path, runs=runs, marker=marker, sig=signal.SIGINT)
    assert "interrupted: every finished run is recorded" in out
    assert_same(again(tmp_path), unbroken)


@pytest.mark.slow
@pytest.mark.parametrize(
    "first",
    [
        4,  # whole batches
        5,  # trial 4 alone in its batch, told before trial 5 is asked: which in the unbroken study is not
    ],
)
def test_fewer_trials_then_the_same_command_with_all_of_them_is_the_unbroken_study(tmp_path, unbroken, first):
    first_run = run_app(*STUDY, f"hydra.sweeper.n_trials={first}", f"hydra.sweep.dir={tmp_path}")
    assert first_run.returncode == 0, first_run.stderr
    assert_same(again(tmp_path), unbroken)


def tell_as_the_sweeper(sweep_dir: Path, number: int) -> None:
    """Tell trial `number` what its finished job gave, as the sweeper does at its batch's end."""
    study = optuna.load_study(study_name=None, storage=f"sqlite:///{sweep_dir}/optuna.db")
    trial = next(t for t in study.trials if t.number == number)
    row = next(
        r for p in sweep_dir.rglob("trial.parquet") if (r := pd.read_parquet(p).iloc[0])["trial"] == number
    )
    if PRUNED in trial.user_attrs:
        study.tell(number, None, state=TrialState.PRUNED)
    else:
        study.tell(number, float(row["objective"]), state=TrialState.COMPLETE)


@pytest.mark.slow
def test_a_study_killed_between_the_tells_of_a_batch_races_as_the_unbroken_study(tmp_path, unbroken):
    # unbroken, trial 5 is pruned against trial 3, the best told before its batch (4-5); trial 4 is
    # better than trial 3: a trial 5 run again after trial 4 was told must still race against trial 3
    trials = {t[0]: t for t in unbroken["trials"]}
    assert trials[5][1] == "PRUNED" and "worse than trial 3 " in trials[5][5][PRUNED]
    assert trials[4][1] == "COMPLETE" and trials[4][3] < trials[3][3]
    stopped_sweep(tmp_path, marker="#5 :")  # trial 4's job ended, trial 5's began; the sweep is killed ...
    tell_as_the_sweeper(tmp_path, 4)  # ... after it told trial 4, before trial 5
    assert_same(again(tmp_path), unbroken)


# --- the sweeper's loop with jobs that need no app: fast --------------------------------------------

SPACE = {"x": FloatDistribution(-5.0, 5.0), "y": FloatDistribution(0.01, 10.0, log=True)}


class Jobs:
    """A launcher whose job `number` returns (x - 1)^2 + log(y)^2, and that is killed (KeyboardInterrupt,
    its batch left untold) when it reaches job `kill_at`."""

    def __init__(self, kill_at: int | None = None) -> None:
        self.kill_at = kill_at

    def launch(self, overrides: list[list[str]], initial_job_idx: int) -> list[JobReturn]:
        import math

        out = []
        for number, job in enumerate(overrides, initial_job_idx):
            if number == self.kill_at:
                raise KeyboardInterrupt
            params = dict(o.split("=", 1) for o in job if not o.startswith("hydra."))
            value = (float(params["x"]) - 1) ** 2 + math.log(float(params["y"])) ** 2
            ret = JobReturn(overrides=job, status=JobStatus.COMPLETED)
            ret.return_value = value
            ret.hydra_cfg = {}  # type: ignore[assignment]  # a finished job (a lost one has none)
            out.append(ret)
        return out


def sweep(storage: str, n_trials: int, sampler: dict[str, Any], kill_at: int | None = None) -> None:
    sweeper = OptunaSweeper(sampler=sampler, n_trials=n_trials, n_jobs=3, storage=storage, study_name="s")
    sweeper.launcher = Jobs(kill_at)  # type: ignore[assignment]
    study = open_study(storage, "s", sweeper.sampler_for(SPACE))
    with contextlib.suppress(KeyboardInterrupt):  # a killed sweep: its batch left running
        sweeper.run_trials(study, SPACE, [], n_trials)


def told(storage: str) -> list[tuple[int, str, dict[str, Any], float | None]]:
    return [(t.number, t.state.name, t.params, t.value) for t in open_study(storage, "s").trials]


@pytest.mark.parametrize("name", ["tpe", "random", "cmaes"])
def test_each_trials_proposal_is_the_same_however_the_sweep_was_stopped(tmp_path, name):
    sampler = {"name": name, "seed": 3, **({"n_startup_trials": 3} if name in ("tpe", "cmaes") else {})}
    sweep(f"journal:{tmp_path}/a.journal", 10, sampler)
    unbroken = told(f"journal:{tmp_path}/a.journal")
    assert len({str(t[2]) for t in unbroken}) == 10
    for kill_at in (1, 4, 8):  # inside a batch, at a batch's first job, in the last batch
        storage = f"journal:{tmp_path}/killed-{kill_at}.journal"
        sweep(storage, 10, sampler, kill_at)
        assert len(told(storage)) < 10
        sweep(storage, 10, sampler)
        assert told(storage) == unbroken, kill_at
    for first in (6, 4, 5):  # some, then all: 6 whole batches; 4 and 5 end in a smaller batch, told early
        storage = f"journal:{tmp_path}/first-{first}.journal"
        sweep(storage, first, sampler)
        sweep(storage, 10, sampler)
        assert told(storage) == unbroken, first


def test_a_trial_races_against_the_trials_told_before_its_batch():
    import warnings

    from optuna.pruners import WilcoxonPruner

    from experiments.racing import RacingTrial

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # WilcoxonPruner is experimental
        study = optuna.create_study(pruner=WilcoxonPruner(p_threshold=0.1, n_startup_steps=2))
    for value in (5.0, 3.0):  # trials 0 and 1; trial 1 is of trial 2's batch (1-2), told before 2 ran again
        trial = study.ask()
        for step in range(6):
            trial.report(value, step)
        study.tell(trial, value)
    assert study.best_trial.number == 1
    outcomes = {}
    for before in (1, None):  # its batch's first trial; None: asked before batches were kept, the whole study
        race = RacingTrial(study.ask(), 0.1, 6, "wilcoxon", 2, 2, 3, before=before)
        outcomes[before] = [race.report(4.0, step, step + 1) for step in range(6)]
    assert outcomes[1] == [None] * 6  # better than trial 0 on every board: runs them all
    assert outcomes[None][3] == (
        "pruned after 4 of 6 runs: worse than trial 1 on the same instances (Wilcoxon signed-rank, p < 0.1)"
    )


def test_a_trial_is_asked_with_the_study_as_its_batch_found_it():
    from experiments.optuna_study import AsOf

    study = optuna.create_study()
    for number in range(5):  # batch 2-4 (n_jobs 3): trials 2 and 3 told since, trial 4 being asked
        trial = study.ask({"x": FloatDistribution(0.0, 1.0)})
        if number < 4:
            trial.report(float(number), 0)
            study.tell(trial, float(number))
    view = AsOf(study, before=2, asking=4)
    shown = [(t.number, t.state.name, t.values, t.intermediate_values, t.params) for t in view.trials]
    params = [t.params for t in study.trials]
    assert shown == [
        (0, "COMPLETE", [0.0], {0: 0.0}, params[0]),
        (1, "COMPLETE", [1.0], {0: 1.0}, params[1]),
        (2, "RUNNING", None, {}, params[2]),  # as when trial 4 was asked in an unbroken sweep
        (3, "RUNNING", None, {}, params[3]),
        (4, "RUNNING", None, {}, params[4]),
    ]
    assert [t.state.name for t in study.trials] == ["COMPLETE"] * 4 + ["RUNNING"]  # the study as it was
    for read in (  # every way Optuna's samplers read a study's trials
        view.get_trials(deepcopy=False),
        view._get_trials(deepcopy=False, use_cache=True),
        view._storage.get_all_trials(study._study_id, deepcopy=False),
    ):
        assert read == view.trials
    running = [t.number for t in view._storage.get_all_trials(study._study_id, states=(TrialState.RUNNING,))]
    assert running == [2, 3, 4]
    assert view.best_trial.number == 0 and not view._is_multi_objective()
    assert [t.number for t in AsOf(study, before=2).get_trials()] == [0, 1]  # a pruner's: the batches before
