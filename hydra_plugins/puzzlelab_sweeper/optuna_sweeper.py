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
A study stopped at any point and run again ends as an unbroken one (tests/test_tuning_resume.py): a
seeded sampler (all but grid, whose trial n gets its n-th point) is built afresh for each trial with a
seed drawn from (hydra.sweeper.sampler.seed, trial number), so a trial's proposal depends on the seed,
its number and the trials told before it, not on a random state the stopped sweep took with it; trials
run in batches of n_jobs by trial number (0-1, 2-3, ... for n_jobs 2), in a resumed sweep as in an
unbroken one; each trial keeps the first number of its batch (user attribute BATCH), and races against
the trials told before its batch (experiments/racing.py).
At the end the study's best is written to `<sweep dir>/optimization_results.yaml` (name, study_name,
best_params, best_value), and for task=tune, at once, trials.csv and the tuned optimizer YAML
(experiments/tasks/tune.py write_tuned): cheap files, written before the sweep's slow report, with
Ctrl-C or SIGTERM held until they are whole; a stop then, or during the report that follows, ends the
sweep as experiments/sweep_lock.py's guard_end says (one line on how to write the report, the sweep
lock released), where SIGTERM ended the process with no word, no trials.csv and a stale lock.

Optuna is imported only when a sweep starts: Hydra imports every plugin module on every run (and
without registering it in sys.modules, so no `from __future__ import annotations` here: dataclasses
would look the module up).
"""

import copy
import logging
import math
import signal
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hydra.core.config_store import ConfigStore
from hydra.core.hydra_config import HydraConfig
from hydra.core.plugins import Plugins
from hydra.core.utils import JobReturn
from hydra.plugins.launcher import Launcher
from hydra.plugins.sweeper import Sweeper
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig, ListConfig, OmegaConf

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

if TYPE_CHECKING:
    from optuna import Study
    from optuna.distributions import BaseDistribution
    from optuna.samplers import BaseSampler
    from optuna.trial import FrozenTrial

log = logging.getLogger(__name__)

SAMPLERS = {
    "tpe": "TPESampler",
    "cmaes": "CmaEsSampler",
    "random": "RandomSampler",
    "grid": "GridSampler",
    "gp": "GPSampler",
}
NEEDS = {"cmaes": ("cmaes", "pip install cmaes"), "gp": ("torch", "pip install torch")}  # module, install
DIRECTIONS = ("minimize", "maximize")
RESULTS = "optimization_results.yaml"
MEASURED = ("task", "budget", "puzzle", "optimizer")  # the config groups that say what a trial measures
STOPS = (signal.SIGINT, signal.SIGTERM)


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


def distribution(override: Any) -> "BaseDistribution":
    """The Optuna distribution of one sweep override: an interval is a float range (log with
    tag(log, ...), whole numbers with tag(int, ...)); a range of whole numbers an int range with its
    step; any other list of values (choice, a,b,c, a float or shuffled range) a categorical."""
    from hydra.core.override_parser.types import Transformer
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    value = override.value()
    if override.is_interval_sweep():
        log_scale = "log" in value.tags
        if "int" in value.tags:
            return IntDistribution(int(value.start), int(value.end), log=log_scale)
        return FloatDistribution(float(value.start), float(value.end), log=log_scale)
    values = list(override.sweep_iterator(transformer=Transformer.encode))
    whole = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
    if override.is_range_sweep() and whole and len(values) > 1 and not value.shuffle and value.step > 0:
        return IntDistribution(values[0], values[-1], step=int(value.step))
    return CategoricalDistribution(values)


def search_space(arguments: Sequence[str]) -> "tuple[dict[str, BaseDistribution], list[str]]":
    """The distributions to sample (setting -> distribution) and the fixed overrides every trial gets,
    from `key=value` overrides in Hydra's syntax. A later override of the same setting wins (the
    command line's over hydra.sweeper.params)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parsed = OverridesParser.create().parse_overrides(list(arguments))
    latest = {
        override.get_key_element().lstrip("+~"): (text, override) for text, override in zip(arguments, parsed)
    }
    space: dict[str, BaseDistribution] = {}
    fixed = []
    for text, override in latest.values():
        if not override.is_sweep_override():
            fixed.append(text)
            continue
        try:
            space[override.get_key_element()] = distribution(override)
        except (ValueError, TypeError) as err:
            raise SweeperError(f"hydra.sweeper: cannot search {text!r}: {err}") from None
    return space, fixed


def grid_values(space: "Mapping[str, BaseDistribution]") -> dict[str, list[Any]]:
    """Every value of each setting, for the grid sampler: choices and whole-number ranges only."""
    from optuna.distributions import CategoricalDistribution, IntDistribution

    grid: dict[str, list[Any]] = {}
    for key, dist in space.items():
        if isinstance(dist, CategoricalDistribution):
            grid[key] = list(dist.choices)
        elif isinstance(dist, IntDistribution) and not dist.log:
            grid[key] = list(range(dist.low, dist.high + 1, dist.step))
        else:
            raise SweeperError(
                f"hydra.sweeper.sampler.name=grid needs listed values: give {key} as choice(...), a,b,c "
                "or range(...), not an interval"
            )
    return grid


def make_sampler(spec: Mapping[str, Any], space: "Mapping[str, BaseDistribution]") -> "BaseSampler":
    """The Optuna sampler `spec` names (tpe, cmaes, random, grid, gp), with the rest of `spec` (seed,
    ...) as its keyword arguments; a mistake is one line."""
    import optuna

    options = dict(spec)
    name = str(options.pop("name", "tpe")).lower()
    if name not in SAMPLERS:
        raise SweeperError(
            f"hydra.sweeper.sampler.name={name} is not a sampler here; use one of {', '.join(SAMPLERS)}"
        )
    cls = getattr(optuna.samplers, SAMPLERS[name], None)
    if cls is None:
        raise SweeperError(
            f"hydra.sweeper.sampler.name={name} needs a newer Optuna than {optuna.__version__}: "
            "pip install -U optuna"
        )
    if name in NEEDS and find_spec(NEEDS[name][0]) is None:
        module, install = NEEDS[name]
        raise SweeperError(
            f"hydra.sweeper.sampler.name={name} needs {module}, which is not installed: {install} "
            "(or use another sampler)"
        )
    if name == "grid":
        options["search_space"] = grid_values(space)
    try:
        sampler: BaseSampler = cls(**options)
    except (TypeError, ValueError) as err:
        raise SweeperError(f"hydra.sweeper.sampler: {SAMPLERS[name]}: {err}") from None
    return sampler


def trial_seed(seed: int, number: int) -> int:
    """The seed of trial `number`'s sampler: drawn from (the sampler's seed, the trial number), so
    trials' seeds are independent streams, and the same whenever, and however often, the trial is asked."""
    import numpy as np

    return int(np.random.SeedSequence([seed, number]).generate_state(1)[0])


def per_trial(build: Callable[[int], "BaseSampler"], seed: int) -> "BaseSampler":
    """A sampler that is `build(trial_seed(seed, number))` for each trial: Optuna's samplers keep
    their random state in the sampler object, which a stopped sweep loses; built afresh per trial from
    public constructors only, a trial's proposal depends on the seed, its number and the study's trials
    (TPE, random, CMA-ES and GP keep all else in the study)."""
    from optuna.samplers import BaseSampler

    class PerTrialSeed(BaseSampler):
        def __init__(self) -> None:
            self.number: int | None = None
            self.inner = build(seed)  # checks the options now; each trial gets its own
            self.shown = f"{type(self.inner).__name__}, seeded per trial"

        def of(self, trial: "FrozenTrial") -> "BaseSampler":
            if trial.number != self.number:
                self.number, self.inner = trial.number, build(trial_seed(seed, trial.number))
            return self.inner

        def before_trial(self, study: "Study", trial: "FrozenTrial") -> None:
            self.of(trial).before_trial(study, trial)

        def infer_relative_search_space(self, study: "Study", trial: "FrozenTrial") -> Any:
            return self.of(trial).infer_relative_search_space(study, trial)

        def sample_relative(self, study: "Study", trial: "FrozenTrial", search_space: Any) -> Any:
            return self.of(trial).sample_relative(study, trial, search_space)

        def sample_independent(self, study: "Study", trial: "FrozenTrial", name: str, dist: Any) -> Any:
            return self.of(trial).sample_independent(study, trial, name, dist)

        def after_trial(self, study: "Study", trial: "FrozenTrial", state: Any, values: Any) -> None:
            self.of(trial).after_trial(study, trial, state, values)

        def reseed_rng(self) -> None:  # the seeds come from the trial numbers
            pass

    return PerTrialSeed()


def objective(ret: JobReturn) -> tuple[float | None, str]:
    """A trial job's objective, or None and why it has none."""
    try:
        value = ret.return_value
    except Exception as err:  # the job raised: JobReturn re-raises it here
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        return None, f"it raised {type(err).__name__}: {first}"
    if value is None:
        return None, "it returned no objective (a failed run: see its run record)"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None, f"it returned {value!r}, not a number"
    if math.isnan(number):
        return None, "its objective is NaN"
    return number, ""


def tell(study: "Study", number: int, value: float | None, state: Any) -> None:
    """Tell Optuna a trial's outcome. The grid sampler, told its last point, asks the study to stop,
    which Optuna allows only inside study.optimize: the outcome is stored all the same."""
    try:
        study.tell(number, value, state=state)
    except RuntimeError as err:
        if "Study.stop" not in str(err):
            raise


def contiguous(batch: Sequence[tuple[int, dict[str, Any]]]) -> list[list[tuple[int, dict[str, Any]]]]:
    """The batch in runs of consecutive trial numbers: each run is launched with its first number as
    the first job number, so a job's number is its trial's (experiments/tasks/tune.py reads it)."""
    groups: list[list[tuple[int, dict[str, Any]]]] = []
    for item in batch:
        if groups and groups[-1][-1][0] + 1 == item[0]:
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups


def trial_of(study: "Study", number: int) -> "FrozenTrial":
    """The study's trial of this number, as stored now (a racing job may have written to it)."""
    return next(t for t in study.get_trials(deepcopy=False) if t.number == number)


def plain(node: Any) -> Any:
    """A config node as plain Python (dicts and lists), anything else as it is."""
    if isinstance(node, DictConfig | ListConfig):
        try:
            return OmegaConf.to_container(node, resolve=True)
        except Exception:  # an interpolation only a job resolves: compared as written
            return OmegaConf.to_container(node, resolve=False)
    return node


def flat(node: Any, prefix: str) -> dict[str, Any]:
    """A plain config as {dotted key: value} (a list is one value)."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            out.update(flat(value, f"{prefix}.{key}"))
        return out
    return {prefix: node}


def measured(config: DictConfig) -> dict[str, Any]:
    """The settings that say what a trial measures, flat: the task's (instances, seeds, racing, as in
    force: experiments/racing.py in_force), the budget, the puzzle and the optimiser; and the seed,
    unless the task runs seeds of its own."""
    from experiments import racing
    from experiments.tasks import trait

    out: dict[str, Any] = {}
    for group in MEASURED:
        if config.get(group) is not None:
            node = plain(config.get(group))
            if group == "task" and isinstance(node, dict) and trait(node, "races"):
                node = racing.in_force(node)
            out.update(flat(node, group))
    if "task.seeds" not in out:
        out["seed"] = plain(config.get("seed"))
    return out


def searched(key: str, space: Mapping[str, Any]) -> bool:
    """Whether the search sets this setting (itself, or a group it is in)."""
    return any(key == s or key.startswith(f"{s}.") for s in space)


def stop_now(signum: int, frame: Any) -> None:
    """SIGTERM as Ctrl-C: the app then says in one line how to finish, and its exit hooks run."""
    raise KeyboardInterrupt


@contextmanager
def stops_held(sweep_dir: Path) -> Iterator[None]:
    """Within the block, Ctrl-C and SIGTERM wait for it to end; after it, and for the rest of the sweep's
    end (its report), either stops the sweep as experiments/sweep_lock.py's guard_end says: one line on
    how to write the report, the lock released. Main thread only: elsewhere signals stay as they are."""
    from experiments import sweep_lock

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    before = {number: signal.signal(number, lambda signum, frame: held.append(signum)) for number in STOPS}
    try:
        yield
    finally:
        for number, handler in before.items():  # put back first: guard_end keeps them to restore
            signal.signal(number, handler)
        guard = getattr(sweep_lock, "guard_end", None)
        if guard is not None:
            guard(sweep_dir)
        else:  # a sweep_lock without it: SIGTERM as Ctrl-C, which the app says in one line
            for number in STOPS:
                signal.signal(number, stop_now)
    if held:
        ending = getattr(sweep_lock, "Ending", None)
        raise KeyboardInterrupt if ending is None else ending(held[0], sweep_dir)


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
        return per_trial(lambda s: make_sampler({**self.sampler, "seed": s}, space), seed)

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
