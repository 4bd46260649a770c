"""Racing over instances: a tuning trial reports each run to the study's pruner as it finishes, so a
setting clearly worse than the best so far stops after a few instances instead of running them all.

The pruner is Optuna's `WilcoxonPruner`: a one-sided Wilcoxon signed-rank test of this trial's runs
against the best trial's on the same (instance, seed) pairs. The trial's job opens the study the
sweeper keeps (`hydra.sweeper.storage`), reports to its own trial, and on a stop records why in the
trial's user attributes, where the sweeper reads it and tells Optuna the trial was pruned. A batch's
trials are told only when the whole batch ends, so the best trial a job compares against is the same
however the jobs are timed: racing is as reproducible as the rest of the study.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hydra.core.hydra_config import HydraConfig

from core.errors import InputError
from experiments.optuna_study import PRUNED, SweeperError, default_name, located, open_study

if TYPE_CHECKING:
    from optuna import Trial

RACES = ("wilcoxon", "off")


def run_value(row: dict[str, Any], statistic: str) -> float:
    """What one run tells the pruner: its best, or for ERT the evaluations it spent (to the optimum,
    or its whole budget when it missed it); lower is better either way."""
    if statistic != "ert":
        return float(row["best"])
    return float(row["evals_to_optimum"] if row.get("success") else row["evaluations"])


@dataclass
class RacingTrial:
    """This trial in the study, with the pruner that judges it."""

    trial: Trial
    p_threshold: float
    runs: int

    def report(self, value: float, step: int, done: int) -> str | None:
        """Report one run (`step`: its pair's fixed number, the same in every trial); why the trial
        stops, or None to go on. `done` runs of `runs` are finished."""
        with warnings.catch_warnings():  # a resumed trial's steps are already reported: kept as they were
            warnings.simplefilter("ignore")
            self.trial.report(value, step)
            stop = self.trial.should_prune()
        if not stop:
            return None
        best = self.trial.study.best_trial.number
        why = (
            f"pruned after {done} of {self.runs} runs: worse than trial {best} on the same instances "
            f"(Wilcoxon signed-rank, p < {self.p_threshold:g})"
        )
        self.trial.set_user_attr(PRUNED, why)
        return why


NEEDS_STORAGE = (
    "task.race=wilcoxon compares each trial with the study's best, which its job must read: the study "
    "is kept in memory (hydra.sweeper.storage=null); give a storage (the default "
    "sqlite:///{sweep_dir}/optuna.db, or journal) or set task.race=off"
)


def check(race: str, p_threshold: float, after: int) -> None:
    """The race settings, or one line saying which is wrong."""
    if race not in RACES:
        raise InputError(f"task.race must be one of {', '.join(RACES)}, got {race!r}")
    if not isinstance(p_threshold, int | float) or not 0 < p_threshold < 1:
        raise InputError(f"task.race_p must be between 0 and 1 (e.g. 0.1), got {p_threshold!r}")
    if not isinstance(after, int) or isinstance(after, bool) or after < 2:
        raise InputError(
            f"task.race_after must be a whole number >= 2 (runs before a trial can stop), got {after!r}"
        )


def optuna_sweeper() -> Any:
    """hydra.sweeper of this job when it is a trial of hydra/sweeper=optuna, else None."""
    if not HydraConfig.initialized():
        return None
    sweeper = HydraConfig.get().sweeper
    return sweeper if str(sweeper.get("_target_", "")).endswith(".OptunaSweeper") else None


def study_name() -> str | None:
    """The name of the Optuna study this job is a trial of (None outside hydra/sweeper=optuna)."""
    sweeper = optuna_sweeper()
    if sweeper is None:
        return None
    return default_name(sweeper.get("study_name"), Path(str(HydraConfig.get().sweep.dir)))


def open_race(race: str, p_threshold: float, after: int, runs: int) -> RacingTrial | None:
    """The race for this trial's job, or None where there is nothing to race against (racing off, or
    task=tune run outside an Optuna sweep)."""
    check(race, p_threshold, after)
    sweeper = optuna_sweeper()
    if race == "off" or sweeper is None:
        return None
    hc = HydraConfig.get()
    if sweeper.get("storage") is None:
        raise InputError(NEEDS_STORAGE)
    import optuna
    from optuna.pruners import WilcoxonPruner

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sweep_dir = Path(str(hc.sweep.dir))
    with warnings.catch_warnings():  # WilcoxonPruner is marked experimental
        warnings.simplefilter("ignore")
        pruner = WilcoxonPruner(p_threshold=p_threshold, n_startup_steps=after)
    try:  # the sweeper opened it first and checked its identity: here only a file damaged since
        study = open_study(
            located(sweeper.get("storage"), sweep_dir),
            default_name(sweeper.get("study_name"), sweep_dir),
            direction=str(sweeper.get("direction", "minimize")).lower(),
            pruner=pruner,
        )
    except SweeperError as err:  # the trial's failure, in one line
        raise InputError(str(err)) from None
    number = hc.job.num
    found = [t for t in study.get_trials(deepcopy=False) if t.number == number]
    if not found:
        raise InputError(
            f"trial {number} is not in the study {study.study_name!r}: run the sweep, not this job alone"
        )
    return RacingTrial(optuna.trial.Trial(study, found[0]._trial_id), p_threshold, runs)
