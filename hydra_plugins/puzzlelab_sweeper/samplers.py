"""The study's sampler: the one `hydra.sweeper.sampler` names, with its options, and (seeded) built
afresh for each trial from (seed, trial number) and proposing from the study as the trial's batch found
it, so a stopped and resumed study, or one first run with fewer trials, asks as an unbroken one
(optuna_sweeper.py)."""

from collections.abc import Callable, Mapping
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

from experiments.optuna_study import AsOf, SweeperError
from hydra_plugins.puzzlelab_sweeper.search_space import grid_values

if TYPE_CHECKING:
    from optuna import Study
    from optuna.distributions import BaseDistribution
    from optuna.samplers import BaseSampler
    from optuna.trial import FrozenTrial

SAMPLERS = {
    "tpe": "TPESampler",
    "cmaes": "CmaEsSampler",
    "random": "RandomSampler",
    "grid": "GridSampler",
    "gp": "GPSampler",
}
NEEDS = {"cmaes": ("cmaes", "pip install cmaes"), "gp": ("torch", "pip install torch")}  # module, install


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


def per_trial(build: Callable[[int], "BaseSampler"], seed: int, batch: int) -> "BaseSampler":
    """A sampler that is `build(trial_seed(seed, number))` for each trial: Optuna's samplers keep
    their random state in the sampler object, which a stopped sweep loses; built afresh per trial from
    public constructors only, a trial's proposal depends on the seed, its number and the study's trials
    (TPE, random, CMA-ES and GP keep all else in the study). It proposes from the study as the trial's
    batch (`batch` trials by number: the sweeper's n_jobs) found it (AsOf): the trials of the batches
    before, and the batch's trials asked before it as RUNNING, though a sweep that ended after a smaller
    last batch has told them since."""
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

        def found(self, study: "Study", trial: "FrozenTrial") -> Any:  # an AsOf, read as a Study
            return AsOf(study, trial.number // batch * batch, asking=trial.number)

        def before_trial(self, study: "Study", trial: "FrozenTrial") -> None:
            self.of(trial).before_trial(self.found(study, trial), trial)

        def infer_relative_search_space(self, study: "Study", trial: "FrozenTrial") -> Any:
            return self.of(trial).infer_relative_search_space(self.found(study, trial), trial)

        def sample_relative(self, study: "Study", trial: "FrozenTrial", search_space: Any) -> Any:
            return self.of(trial).sample_relative(self.found(study, trial), trial, search_space)

        def sample_independent(self, study: "Study", trial: "FrozenTrial", name: str, dist: Any) -> Any:
            return self.of(trial).sample_independent(self.found(study, trial), trial, name, dist)

        def after_trial(self, study: "Study", trial: "FrozenTrial", state: Any, values: Any) -> None:
            self.of(trial).after_trial(study, trial, state, values)  # told: the study as it is

        def reseed_rng(self) -> None:  # the seeds come from the trial numbers
            pass

    return PerTrialSeed()
