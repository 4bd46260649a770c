"""What a tuning sweep searches: Hydra's sweep syntax (interval, tag(log, ...), choice, a,b,c, range)
read as Optuna distributions, and a grid sampler's listed values (no `from __future__ import
annotations`: Hydra's plugin scan loads every module of this package, optuna_sweeper.py)."""

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from experiments.optuna_study import SweeperError

if TYPE_CHECKING:
    from optuna.distributions import BaseDistribution


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
