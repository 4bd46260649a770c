"""Build components from config with Hydra's `instantiate`, keeping user errors to one line."""

from __future__ import annotations

import re
from typing import Any

from hydra.errors import InstantiationException
from hydra.utils import get_class, instantiate
from omegaconf import DictConfig, ListConfig, OmegaConf, read_write

from core.errors import InputError
from core.space import Budget
from experiments.records import flatten

MOVED = {  # a class's `_target_` before it moved -> where it is now: old runs' config.yaml name the old one
    "experiments.tasks.colour_sweep.ColourSweep": "studies.colour_sweep.task.ColourSweep",
    "experiments.tasks.hardness_peak.HardnessPeak": "studies.hardness_peak.task.HardnessPeak",
}


def current_target(target: str) -> str:
    """Where the class a `_target_` names lives now (MOVED), so an old run folder still reports and
    reproduces; any other target as it is."""
    return MOVED.get(target, target)


def with_current_targets(node: Any) -> Any:
    """`node` with every `_target_` in it (at any depth) that names a moved class set to where the class
    is now, in place, interpolations untouched; a config that names none is left as it is."""
    if isinstance(node, DictConfig):
        for key in list(node.keys()):
            child = node._get_node(key)
            if isinstance(child, DictConfig | ListConfig):
                with_current_targets(child)
            elif key == "_target_" and child is not None and child._value() in MOVED:
                with read_write(node):
                    node[key] = MOVED[child._value()]
    elif isinstance(node, ListConfig):
        for child in node._iter_ex(resolve=False):
            with_current_targets(child)
    return node


def build(node: DictConfig, what: str) -> Any:
    """instantiate(node), re-raising the component's own input error rather than Hydra's wrapper. A
    class named by its old path (MOVED: an old run's config) is built from where it is now."""
    try:
        return instantiate(with_current_targets(node), _convert_="all")
    except InstantiationException as err:
        cause = err.__cause__
        if isinstance(cause, InputError):
            raise cause from None
        unexpected = re.search(r"unexpected keyword argument '(\w+)'", str(cause))
        key = unexpected.group(1) if unexpected else ""
        moved = getattr(named_class(node), "moved", {}).get(key)
        if moved:  # a setting that moved (a saved run's config, `+optimizer.schedule=...`): where it is now
            raise InputError(f"{what}.{key} is now {what}.{moved}") from None
        first = str(err).strip().splitlines()[0]
        if cause is not None:  # Hydra's first line names the class; the cause says what went wrong
            first = f"{first.rstrip(':')}: {type(cause).__name__}: {str(cause).strip().splitlines()[0]}"
        raise InputError(f"cannot build the {what}: {first}") from err


def named_class(node: Any) -> type | None:
    """The class a config node names in `_target_`, imported; None when it names none or that does not
    import (building it says why, in one line). Why: a trait is read from the class, never guessed from
    its name."""
    target = node.get("_target_") if isinstance(node, (dict, DictConfig)) else None
    if not target:
        return None
    try:
        found: type = get_class(current_target(str(target)))
    except Exception:  # not importable, or not a class: no traits to read
        return None
    return found


def settings(node: DictConfig, what: str) -> dict[str, Any]:
    """A config node's settings as a plain dict, resolved; a one-line error if it is not a mapping."""
    values = OmegaConf.to_container(node, resolve=True)
    if not isinstance(values, dict):
        raise InputError(f"{what} must be a mapping of settings, got {type(values).__name__}")
    return {str(k): v for k, v in values.items()}


def component_name(cfg: DictConfig, group: str, component: Any) -> str:
    """A component's name in every table: the config chosen for it (two_opt_swap), else its own name."""
    name: str = OmegaConf.select(cfg, f"choices.{group}") or component.name
    return name


def config_columns(
    cfg: DictConfig, groups: tuple[str, ...] = ("puzzle", "optimizer", "budget")
) -> dict[str, Any]:
    """What was run, one column per setting (`puzzle.width`, `optimizer.cxpb`, ...), from the config alone."""
    columns: dict[str, Any] = {}
    for group in groups:
        if group in cfg:
            columns.update(flatten(group, settings(cfg[group], group)))
    return columns


def make_budget(node: DictConfig, known_optimum: float | None) -> Budget:
    """The run's budget; with no explicit target, stop at the puzzle's known optimum."""
    target = node.target
    if target is None and node.stop_at_optimum:
        target = known_optimum
    return Budget(evaluations=node.evaluations, seconds=node.seconds, target=target)


def flat(node: Any, prefix: str = "") -> dict[str, Any]:
    """A config as {dotted key: value}, for comparing two of them key by key."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for k, v in node.items():
            out.update(flat(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: node}
