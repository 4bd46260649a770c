"""hydra/sweeper=optuna: Optuna (>= 4) proposes each trial's settings through its ask/tell interface.

Hydra finds sweepers only under the `hydra_plugins` package, hence this module. It replaces
hydra-optuna-sweeper (which needs Optuna < 3) and reads the same `hydra.sweeper.*` keys:

    sampler:    name (tpe, cmaes, random, grid, gp), seed, and any other keyword of that Optuna sampler
                (+hydra.sweeper.sampler.n_startup_trials=5)
    direction:  minimize or maximize
    n_trials:   the trials the study should have complete; a study resumed runs only the missing ones
    n_jobs:     trials launched at once
    storage:    the study's database, by default sqlite:///{sweep_dir}/optuna.db ({sweep_dir} is replaced
                by hydra.sweep.dir): the same command (so the same sweep folder) continues the same study
                with its trial numbers; journal:<path> is Optuna's journal file (for trials on a
                cluster's shared file system), any other URL a database server; null keeps it in memory
                (experiments/optuna_study.py)
    study_name: by default <study>/<sweep folder name>
    params:     {setting: Hydra's sweep syntax}: interval(a, b), tag(log, interval(a, b)), tag(int, ...),
                choice(a, b), a,b,c, range(a, b[, step]); sweeps on the command line join them, and a
                fixed value on the command line takes a setting out of the search

A study keeps its identity (experiments/optuna_study.py): what it searches (each setting's interval or
choices), its direction, and the settings that say what a trial measures (task: instances, seeds,
racing; budget; puzzle; optimiser). A sweep whose identity differs from the study it opens is refused
in one line naming what differs and a new study name, before any trial: the two would share trials, and
the study's best would pass as this sweep's. A trial is one job; its return value is the objective; a
job that the pruner stopped (task=tune racing over instances) is told as PRUNED and counts toward
n_trials. A failed job, or one that returns None or NaN, is told to Optuna as FAIL and the sweep goes
on. Trials that a stopped sweep (Ctrl-C, a killed process) left RUNNING are launched again, with their
own numbers and settings, when the same command runs again.
A study stopped at any point and run again ends as an unbroken one (tests/experiments/test_tuning_resume.py):
a seeded sampler (all but grid, whose trial n gets its n-th point) is built afresh for each trial with a
seed drawn from (hydra.sweeper.sampler.seed, trial number), and proposes from the study as the trial's
batch found it (samplers.py), so a trial's proposal depends on the seed, its number and the trials of
the batches before its own, not on a random state the stopped sweep took with it, nor on whether its
batch's earlier trials were told since (a study first run with fewer trials); trials run in batches of
n_jobs by trial number (0-1, 2-3, ... for n_jobs 2), in a resumed sweep as in an unbroken one; each
trial keeps the first number of its batch (user attribute BATCH), and races against the trials told
before its batch (experiments/racing.py).
At the end the study's best is written to `<sweep dir>/optimization_results.yaml` (name, study_name,
best_params, best_value), and for task=tune, at once, trials.csv and the tuned optimizer YAML
(experiments/tasks/tune.py write_tuned): cheap files, written before the sweep's slow report, with
Ctrl-C or SIGTERM held until they are whole; a stop then, or during the report that follows, ends the
sweep as experiments/sweep_lock.py's guard_end says (one line on how to write the report, the sweep
lock released), where SIGTERM ended the process with no word, no trials.csv and a stale lock.

Its parts, one job each: search_space.py (Hydra's sweep syntax as Optuna distributions), samplers.py
(the sampler, seeded per trial), trials.py (a trial's objective, telling Optuna, batches, what a trial
measures), signals.py (Ctrl-C and SIGTERM at the sweep's end); this module is the sweeper that joins them.

Optuna is imported only when a sweep starts: Hydra imports every plugin module on every run (and
without registering it in sys.modules, so no `from __future__ import annotations` here: dataclasses
would look the module up).
"""

import copy
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hydra.core.config_store import ConfigStore
from hydra.core.hydra_config import HydraConfig
from hydra.core.plugins import Plugins
from hydra.plugins.launcher import Launcher
from hydra.plugins.sweeper import Sweeper
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig, OmegaConf

from experiments.optuna_study import (
    BATCH,
    PRUNED,
    SweeperError,
    damage,
    dashboard,
    default_name,
    identity_of,
    located,
    open_study,
)
from hydra_plugins.puzzlelab_sweeper.samplers import make_sampler, per_trial
from hydra_plugins.puzzlelab_sweeper.search_space import grid_values, search_space
from hydra_plugins.puzzlelab_sweeper.signals import stops_held
from hydra_plugins.puzzlelab_sweeper.trials import (
    contiguous,
    measured,
    objective,
    plain,
    searched,
    tell,
    trial_of,
)

if TYPE_CHECKING:
    from optuna import Study
    from optuna.distributions import BaseDistribution
    from optuna.samplers import BaseSampler

log = logging.getLogger(__name__)

DIRECTIONS = ("minimize", "maximize")
RESULTS = "optimization_results.yaml"


@dataclass
class OptunaSweeperConf:
    _target_: str = "hydra_plugins.puzzlelab_sweeper.optuna_sweeper.OptunaSweeper"
    sampler: dict[str, Any] = field(default_factory=lambda: {"name": "tpe", "seed": None})
    direction: str = "minimize"
    n_trials: int = 20
    n_jobs: int = 2
    storage: str | None = "sqlite:///{sweep_dir}/optuna.db"  # {sweep_dir}: hydra.sweep.dir
    study_name: str | None = None
    params: dict[str, Any] | None = None


ConfigStore.instance().store(
    group="hydra/sweeper", name="optuna", node=OptunaSweeperConf, provider="puzzlelab"
)


class OptunaSweeper(Sweeper):
    """Ask Optuna for n_jobs trials at a time, launch them as Hydra jobs, tell Optuna their objectives."""

    keeps_study = True  # declared: a trial's job finds the study in hydra.sweeper (experiments/racing.py)

    def __init__(
        self,
        sampler: Any = None,
        direction: str = "minimize",
        n_trials: int = 20,
        n_jobs: int = 2,
        storage: str | None = None,
        study_name: str | None = None,
        params: Any = None,
    ) -> None:
        self.sampler = dict(plain(sampler) or {})
        self.direction = str(direction).lower()
        self.n_trials, self.n_jobs = n_trials, n_jobs
        self.storage = None if storage is None else str(storage)
        self.study_name = study_name
        self.params: dict[str, Any] = dict(plain(params) or {})
        self.launcher: Launcher | None = None
        self.task: dict[str, Any] = {}
        self.measured: dict[str, Any] = {}
        self.config: DictConfig | None = None
        self.sweep_dir = Path(".")

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig) -> None:
        if not HydraConfig.initialized():  # hydra.sweep.dir's ${hydra:...} needs it; launchers set it per job
            HydraConfig.instance().set_config(copy.deepcopy(config))
        self.launcher = Plugins.instance().instantiate_launcher(
            hydra_context=hydra_context, task_function=task_function, config=config
        )
        self.sweep_dir = Path(str(config.hydra.sweep.dir))
        self.storage = located(self.storage, self.sweep_dir)
        self.task = plain(config.get("task")) or {}
        self.measured = measured(config)
        self.config = config

    def check(self) -> None:
        if self.direction not in DIRECTIONS:
            raise SweeperError(f"hydra.sweeper.direction must be minimize or maximize, got {self.direction}")
        for key in ("n_trials", "n_jobs"):
            value, least = getattr(self, key), 1 if key == "n_jobs" else 0
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise SweeperError(f"hydra.sweeper.{key} must be a whole number >= {least}, got {value!r}")

    def check_race(self) -> None:
        """A tuning trial that races (task=tune, task.race) must find the study: checked before any job."""
        from core.errors import InputError
        from experiments import racing
        from experiments.tasks import trait

        if not trait(self.task, "races"):
            return
        given = racing.settings(self.task)  # the task's defaults, from its constructor
        try:
            racing.check(
                given["race"],
                given["race_p"],
                given["race_after"],
                given["race_ties"],
                given["race_survivors"],
            )
        except InputError as err:
            raise SweeperError(str(err)) from None
        if given["race"] != "off" and self.storage is None:
            raise SweeperError(racing.needs_storage(given["race"]))

    def identity(self, space: "Mapping[str, BaseDistribution]", arguments: Sequence[str]) -> dict[str, str]:
        """This sweep's study identity: its search, direction, and what a trial measures (the composed
        config, less the settings searched, plus hydra.sweeper.params' fixed values, which the jobs
        get but this config does not; the command line's win over them)."""
        given = {a.split("=", 1)[0].lstrip("+~") for a in arguments}
        settings = {k: v for k, v in self.measured.items() if not searched(k, space)}
        settings.update({k: plain(v) for k, v in self.params.items() if k not in space and k not in given})
        return identity_of(space, self.direction, settings)

    def sweep(self, arguments: list[str]) -> None:
        from optuna.exceptions import StorageInternalError
        from sqlalchemy.exc import SQLAlchemyError

        self.check()
        self.check_race()
        space, fixed = search_space([*(f"{k}={v}" for k, v in self.params.items()), *arguments])
        if not space:
            raise SweeperError(
                "hydra/sweeper=optuna has nothing to tune: give settings to search in hydra.sweeper.params "
                "or on the command line, e.g. 'optimizer.t_start=tag(log, interval(0.1, 5.0))'"
            )
        try:
            self.run_study(space, fixed, self.identity(space, arguments))
        except (ValueError, SQLAlchemyError, StorageInternalError) as err:  # the study's file damaged
            found = damage(self.storage, str(self.storage), err)
            if found is None:
                raise
            raise found from None

    def sampler_for(self, space: "Mapping[str, BaseDistribution]") -> "BaseSampler":
        """The study's sampler: a seeded one built afresh for each trial from (seed, trial number);
        grid (whose seed only shuffles its points once, and whose trial n gets point n) and an unseeded
        one as they are."""
        seed = self.sampler.get("seed")
        name = str(self.sampler.get("name", "tpe")).lower()
        if seed is None or name == "grid":
            return make_sampler(self.sampler, space)
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise SweeperError(
                f"hydra.sweeper.sampler.seed must be a whole number >= 0 or null, got {seed!r}"
            )
        return per_trial(lambda s: make_sampler({**self.sampler, "seed": s}, space), seed, self.n_jobs)

    def run_study(
        self, space: "dict[str, BaseDistribution]", fixed: list[str], identity: dict[str, str]
    ) -> None:
        """Open (or create) the study and run its trials still to go; then its end files."""
        sampler = self.sampler_for(space)
        n_trials = self.n_trials
        if str(self.sampler.get("name", "tpe")).lower() == "grid":
            n_trials = min(n_trials, math.prod(len(v) for v in grid_values(space).values()))
        name = default_name(self.study_name, self.sweep_dir)
        inside = self.storage is not None and f"{self.sweep_dir}/" in self.storage  # its files shared too
        folder = self.sweep_dir if inside else None
        study = open_study(self.storage, name, sampler, self.direction, identity=identity, folder=folder)
        self.run_trials(study, space, fixed, n_trials)
        with stops_held(self.sweep_dir):  # cheap and wanted most: whole before the slow report
            if self.write_results(study):
                self.write_tuned()

    def run_trials(
        self, study: "Study", space: "Mapping[str, BaseDistribution]", fixed: list[str], n_trials: int
    ) -> None:
        """Run the study's trials still to go, in batches of n_jobs by trial number (trials 0-1, 2-3,
        ... for n_jobs 2), trials a stopped sweep left running first, each in its own batch: a resumed
        sweep asks each trial with the same trials told as an unbroken one, and each trial races against
        the same ones (those told before its batch, whose first number it keeps as BATCH)."""
        from optuna.trial import TrialState

        # a trial the pruner stopped (racing) is finished too: it counts toward n_trials
        complete = len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED)))
        left = sorted(study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)), key=lambda t: t.number)
        to_go = max(n_trials - complete, 0)
        pending = [(t.number, dict(t.params)) for t in left][:to_go]  # a stopped sweep's trials, first
        shown = getattr(study.sampler, "shown", type(study.sampler).__name__)
        log.info(
            f"Optuna study {study.study_name!r} in {self.storage or 'memory'} ({shown}): "
            f"{complete} of {n_trials} trials complete, {to_go} to run"
            + (f" ({len(pending)} left running by a stopped sweep, run again)" if pending else "")
        )
        size = self.n_jobs
        while to_go > 0:
            batch: list[tuple[int, dict[str, Any]]] = []
            while (
                pending and len(batch) < to_go and (not batch or pending[0][0] // size == batch[0][0] // size)
            ):
                batch.append(pending.pop(0))
            while len(batch) < to_go:
                number = len(study.get_trials(deepcopy=False))  # the number Optuna gives the next trial
                if batch and number // size != batch[0][0] // size:
                    break  # the batch's numbers are taken: the next trial starts the next batch
                trial = study.ask(dict(space))
                trial.set_user_attr(BATCH, trial.number // size * size)
                batch.append((trial.number, dict(trial.params)))
            self.run(study, batch, fixed)
            to_go -= len(batch)

    def run(self, study: "Study", batch: list[tuple[int, dict[str, Any]]], fixed: list[str]) -> None:
        """Launch a batch of trials (number, settings) and tell Optuna each one's objective. A sweep
        stopped here leaves them RUNNING in the study, to be run again by the same command."""
        from optuna.trial import TrialState

        assert self.launcher is not None, "setup() first"
        # each job is composed again from its own overrides, where a sweep folder named by the command
        # line (configs/config.yaml) would be named by the trial's: the jobs get this sweep's folder
        here = "hydra.sweep.dir='" + str(self.sweep_dir).replace("'", "\\'") + "'"
        for group in contiguous(batch):
            overrides = [[*(f"{k}={v}" for k, v in params.items()), *fixed, here] for _, params in group]
            returns = self.launcher.launch(overrides, initial_job_idx=group[0][0])
            for (number, _), ret in zip(group, returns):
                value, why = objective(ret)
                if ret.hydra_cfg is None:  # a cluster job cancelled or lost: the launcher made this return
                    log.warning(
                        f"trial {number}: its job ended without finishing; left running in the study, "
                        "so the same command runs it again (its finished runs are read back)"
                    )
                elif value is None:
                    log.warning(f"trial {number} failed: {why}; told to Optuna as FAIL")
                    tell(study, number, None, TrialState.FAIL)
                elif PRUNED in (attrs := trial_of(study, number).user_attrs):
                    tell(study, number, None, TrialState.PRUNED)
                    log.info(f"Trial {number}: {value:g} on the runs it had ({attrs[PRUNED]})")
                else:
                    tell(study, number, value, TrialState.COMPLETE)
                    log.info(f"Trial {number}: {value:g}")

    def write_results(self, study: "Study") -> bool:
        """The study's best trial in optimization_results.yaml (name, study_name, best_params,
        best_value); False when no trial is complete."""
        try:
            best = study.best_trial
        except ValueError:
            log.warning(f"no trial of the study {study.study_name!r} is complete: no {RESULTS} written")
            return False
        self.sweep_dir.mkdir(parents=True, exist_ok=True)
        results = {
            "name": "optuna",
            "study_name": study.study_name,  # trials.csv keeps this study's trials (tasks/tune.py)
            "best_params": dict(best.params),
            "best_value": best.value,
        }
        OmegaConf.save(OmegaConf.create(results), self.sweep_dir / RESULTS)
        log.info(f"Best trial {best.number}: {best.value:g} with {best.params} -> {self.sweep_dir / RESULTS}")
        if self.storage is not None:
            log.info(f"See the study: {dashboard(self.storage)}")
        return True

    def write_tuned(self) -> None:
        """For task=tune, trials.csv and the tuned optimizer YAML now, before the sweep's report (which
        writes them again, and says in one line why when they cannot be written)."""
        from experiments.tasks import trait
        from experiments.tasks.tune import write_tuned

        if self.config is None or not trait(self.task, "tuning"):
            return
        try:
            tuned = write_tuned(
                self.sweep_dir, self.config.hydra.runtime.choices.get("optimizer"), self.config.task
            )
        except Exception:  # the report's end tries again and says why (experiments/callbacks.py)
            return
        if tuned is not None:
            log.info(f"Tuned settings -> {tuned} (trials: {self.sweep_dir / 'trials.csv'})")
