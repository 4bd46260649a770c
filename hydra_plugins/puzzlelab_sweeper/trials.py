"""A trial's outcome and place: its job's objective, telling Optuna, batches launched by consecutive
trial numbers, and what a trial measures (the settings a study's identity holds) (optuna_sweeper.py)."""

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hydra.core.utils import JobReturn
from omegaconf import DictConfig, ListConfig, OmegaConf

if TYPE_CHECKING:
    from optuna import Study
    from optuna.trial import FrozenTrial

MEASURED = ("task", "budget", "puzzle", "optimizer")  # the config groups that say what a trial measures


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
