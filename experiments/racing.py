"""Racing over instances: a tuning trial reports each run to the study's pruner as it finishes, so a
setting clearly worse than the best so far stops after a few instances instead of running them all.

Two rules (task.race). `wilcoxon`: Optuna's `WilcoxonPruner`, a one-sided Wilcoxon signed-rank test of
this trial's runs against the best trial's on the same (instance, seed) pairs, from race_after runs on;
a trial as good as the best is never stopped, so it runs every pair. `elitist`, after irace's elitist
race: the same test at every run from race_after (irace's firstTest) on eliminates a worse trial; a
trial that race_ties tests in a row (irace's elitistLimit) did not eliminate, and that is not ahead of
the best on the pairs so far (its mean run value no better), stops as tied with the best. It is told to
Optuna as pruned, so the tuned setting is always a trial that ran every pair: a tie does not replace
the elite, and a trial ahead runs on and can. Survivors, trial by trial: the trials that ran every pair
(Optuna's complete ones), from which the tuned setting is picked; no trial stops as tied before the
study has race_survivors of them (irace's minNbSurvival), so the pick is among at least that many.

The trial's job opens the study the sweeper keeps (`hydra.sweeper.storage`), reports to its own trial,
and on a stop records why in the trial's user attributes, where the sweeper reads it and tells Optuna
the trial was pruned. A trial races against the trials told before its batch began (those numbered
below the batch's first, which the sweeper keeps in the trial's BATCH attribute): the best trial and
the survivors a job sees are the same however the jobs are timed, and when a stopped sweep's trial is
run again after others were told: racing is as reproducible as the rest of the study, and resumes to
the same stops.
"""

from __future__ import annotations

import copy
import inspect
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hydra.core.hydra_config import HydraConfig

from core.errors import InputError
from experiments.build import named_class
from experiments.optuna_study import BATCH, PRUNED, AsOf, SweeperError, default_name, located, open_study

if TYPE_CHECKING:
    from optuna import Trial

RACES = ("wilcoxon", "elitist", "off")
FIRST_TEST = {"wilcoxon": 2, "elitist": 4, "off": 2}  # task.race_after when null: the rule's own
SETTINGS = ("race", "race_p", "race_after", "race_ties", "race_survivors")  # the task's, in Tune
ELITIST_ONLY = ("race_ties", "race_survivors")


def settings(task: Mapping[str, Any]) -> dict[str, Any]:
    """The task's race settings, each absent one at its default: the Tune constructor is their one home."""
    from experiments.tasks.tune import Tune  # here: tune.py imports this module

    defaults = inspect.signature(Tune).parameters
    return {key: task.get(key, defaults[key].default) for key in SETTINGS}


def in_force(task: Mapping[str, Any]) -> dict[str, Any]:
    """The task's settings as they act: race_after null is the rule's first test, and the elitist
    rule's own settings are left out under another rule (they measure nothing there, and studies made
    before they existed keep their identity)."""
    out = {**dict(task), **settings(task)}
    if out["race_after"] is None and out["race"] in FIRST_TEST:
        out["race_after"] = FIRST_TEST[out["race"]]
    if out["race"] != "elitist":
        for key in ELITIST_ONLY:
            out.pop(key, None)
    return out


def run_value(row: dict[str, Any], statistic: str) -> float:
    """What one run tells the pruner: its best, or for ERT the evaluations it spent (to the optimum,
    or its whole budget when it missed it); lower is better either way."""
    if statistic != "ert":
        return float(row["best"])
    return float(row["evals_to_optimum"] if row.get("success") else row["evaluations"])


@dataclass
class RacingTrial:
    """This trial in the study, with the pruner that judges it (and, for the elitist rule, its ties)."""

    trial: Trial
    p_threshold: float
    runs: int
    race: str
    after: int
    ties: int
    survivors: int
    before: int | None = None  # the first trial number of this trial's batch: it races the trials below
    values: dict[int, float] = field(default_factory=dict)  # this trial's runs reported: step -> value

    def view(self) -> AsOf:
        return AsOf(self.trial.study, self.before)

    def report(self, value: float, step: int, done: int) -> str | None:
        """Report one run (`step`: its pair's fixed number, the same in every trial); why the trial
        stops, or None to go on. `done` runs of `runs` are finished. The pruner judges the runs this
        job has reported so far (a trial run again after a stop has more stored: the stopped job's, which
        it reads back one by one) against the study as its batch found it (AsOf), where
        Trial.should_prune would judge every stored report against the study as it is now."""
        study = self.trial.study
        with warnings.catch_warnings():  # a resumed trial's steps are already reported: kept as they were
            warnings.simplefilter("ignore")
            self.trial.report(value, step)
            self.values[step] = value
            me = copy.copy(next(t for t in study.get_trials(deepcopy=False) if t.number == self.trial.number))
            me.intermediate_values = dict(self.values)
            stop = study.pruner.prune(self.view(), me)  # type: ignore[arg-type]
        why = self.worse(done) if stop else self.tied(done) if self.race == "elitist" else None
        if why is not None:
            self.trial.set_user_attr(PRUNED, why)
        return why

    def worse(self, done: int) -> str:
        best = self.view().best_trial.number
        return (
            f"pruned after {done} of {self.runs} runs: worse than trial {best} on the same instances "
            f"(Wilcoxon signed-rank, p < {self.p_threshold:g})"
        )

    def tied(self, done: int) -> str | None:
        """Why the elitist rule stops this trial as tied with the best, or None: `ties` tests from
        `after` runs on eliminated no one, the study has `survivors` trials that ran every pair, and
        this trial is not ahead of the best on the pairs they share."""
        from optuna.study import StudyDirection
        from optuna.trial import TrialState

        tests = done - self.after + 1  # one test at each run from the first test on (irace's eachTest 1)
        if done >= self.runs or tests < self.ties:
            return None
        study = self.view()
        finished = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        if len(finished) < self.survivors:
            return None
        best = study.best_trial
        theirs = best.intermediate_values
        shared = [step for step in self.values if step in theirs]
        if not shared:
            return None
        lead = sum(self.values[s] - theirs[s] for s in shared)
        if (lead > 0) if study.direction == StudyDirection.MAXIMIZE else (lead < 0):
            return None  # ahead of the best: it runs on, and can become the best
        return (
            f"stopped: tied with the best after {tests} tests without elimination ({done} of {self.runs} "
            f"runs, against trial {best.number}: not eliminated at p < {self.p_threshold:g}, not ahead on "
            f"the runs shared; survivors: {len(finished)} of the study's trials ran every pair)"
        )


def needs_storage(race: str) -> str:
    """Why a race cannot run on a study kept in memory."""
    return (
        f"task.race={race} compares each trial with the study's best, which its job must read: the study "
        "is kept in memory (hydra.sweeper.storage=null); give a storage (the default "
        "sqlite:///{sweep_dir}/optuna.db, or journal) or set task.race=off"
    )


def whole(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def check(race: str, p_threshold: float, after: int | None, ties: int, survivors: int) -> None:
    """The race settings, or one line saying which is wrong."""
    if race not in RACES:
        raise InputError(f"task.race must be one of {', '.join(RACES)}, got {race!r}")
    if isinstance(p_threshold, bool) or not isinstance(p_threshold, int | float) or not 0 < p_threshold < 1:
        raise InputError(f"task.race_p must be between 0 and 1 (e.g. 0.1), got {p_threshold!r}")
    if after is not None and not whole(after, 2):
        raise InputError(
            f"task.race_after must be a whole number >= 2 (runs before a trial can stop), or null for the "
            f"rule's own ({FIRST_TEST['wilcoxon']} for wilcoxon, {FIRST_TEST['elitist']} for elitist), "
            f"got {after!r}"
        )
    if not whole(ties, 1):
        raise InputError(
            f"task.race_ties must be a whole number >= 1 (tests without elimination before a tied trial "
            f"stops), got {ties!r}"
        )
    if not whole(survivors, 1):
        raise InputError(
            f"task.race_survivors must be a whole number >= 1 (trials that run every pair before one "
            f"stops as tied), got {survivors!r}"
        )


def optuna_sweeper() -> Any:
    """hydra.sweeper of this job when its sweeper keeps an Optuna study the job can report to (the
    class declares `keeps_study = True`), else None."""
    if not HydraConfig.initialized():
        return None
    sweeper = HydraConfig.get().sweeper
    found = named_class(sweeper)  # none, or one that does not import: no study to race against
    return sweeper if getattr(found, "keeps_study", False) is True else None


def study_name() -> str | None:
    """The name of the Optuna study this job is a trial of (None outside hydra/sweeper=optuna)."""
    sweeper = optuna_sweeper()
    if sweeper is None:
        return None
    return default_name(sweeper.get("study_name"), Path(str(HydraConfig.get().sweep.dir)))


def open_race(
    race: str,
    p_threshold: float,
    after: int | None,
    runs: int,
    ties: int,
    survivors: int,
) -> RacingTrial | None:
    """The race for this trial's job, or None where there is nothing to race against (racing off, or
    task=tune run outside an Optuna sweep)."""
    check(race, p_threshold, after, ties, survivors)
    first = FIRST_TEST[race] if after is None else after
    sweeper = optuna_sweeper()
    if race == "off" or sweeper is None:
        return None
    hc = HydraConfig.get()
    if sweeper.get("storage") is None:
        raise InputError(needs_storage(race))
    import optuna
    from optuna.pruners import WilcoxonPruner

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sweep_dir = Path(str(hc.sweep.dir))
    with warnings.catch_warnings():  # WilcoxonPruner is marked experimental
        warnings.simplefilter("ignore")
        pruner = WilcoxonPruner(p_threshold=p_threshold, n_startup_steps=first)
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
    trial = optuna.trial.Trial(study, found[0]._trial_id)
    before = found[0].user_attrs.get(BATCH)
    return RacingTrial(trial, p_threshold, runs, race, first, ties, survivors, before)
