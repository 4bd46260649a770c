"""Config schemas, generated from the components' own signatures: a typo or a wrong type fails when
the config is composed, and every default has one home, the constructor.

A component's base YAML (`configs/<group>/<name>.yaml`, or a study's `studies/<name>/conf/<group>/`)
names its class in `_target_` and extends `schema/<group>/<name>`, the dataclass `hydra_zen.builds`
makes from that class's signature; it sets only what differs from the constructor's defaults.
Variants extend their base YAML.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import MISSING, Field, dataclass, field, fields, make_dataclass
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from hydra.utils import get_object
from hydra_zen import builds
from omegaconf import DictConfig, OmegaConf

from core.errors import InputError
from hydra_plugins.puzzlelab_studies.study_configs import study_config_dirs

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"
GROUPS = ("puzzle", "optimizer", "task")


DEFAULT_EVALUATIONS = 20000  # the budget of a run given neither evaluations nor seconds


@dataclass
class BudgetConf:
    """The run's budget; `experiments.build.make_budget` turns it into a `core.Budget`. With neither
    evaluations nor seconds set, the app sets DEFAULT_EVALUATIONS (a seconds budget alone runs that long)."""

    evaluations: int | None = None  # stop after this many fitness evaluations
    seconds: float | None = None  # ... or after this many seconds
    target: float | None = None  # ... or once best <= target; null: the puzzle's known optimum
    stop_at_optimum: bool = True  # with target null, stop at the known optimum (when there is one)


def run_subdir(varying: str, seed: int) -> str:
    """A sweep run's directory: what varies, then the seed (e.g. optimizer=ga/seed=3)."""
    return f"{varying}/seed={seed}" if varying else f"seed={seed}"


def project_config_dirs() -> tuple[Path, ...]:
    """The project's config directories: configs/, then each study's conf/ (the search path Hydra gets
    from hydra_plugins/puzzlelab_studies), so listings of a group's configs see the studies' too."""
    return (CONFIG_DIR, *study_config_dirs())


def setup(config_dirs: Sequence[Path] = (), headless: bool = True) -> None:
    """What the app needs before Hydra composes a config: the schemas (of the project's components, the
    studies' included, and of those in a user's own config directories), the resolvers, and pictures
    drawn to files (never to a screen, which workers and clusters do not have; a notebook keeps its own
    backend: headless=False)."""
    if headless:
        import matplotlib

        matplotlib.use("Agg")
    for config_dir in (*project_config_dirs(), *config_dirs):
        register(config_dir)
    OmegaConf.register_new_resolver("run_subdir", run_subdir, replace=True)
    OmegaConf.register_new_resolver("user_groups", user_groups, replace=True)


HIDDEN_GROUPS = ("schema", "smoke_study")  # the generated schemas; the studies' smoke settings (smoke=on)
HYDRA_GROUPS = ("hydra/launcher", "hydra/sweeper", "hydra/callbacks")  # Hydra's groups a user sets


def user_groups() -> str:
    """The config groups a user chooses from with their options, one line each, as --help lists them
    (configs/hydra/help/puzzlelab.yaml): Hydra's $APP_CONFIG_GROUPS lists internal groups too."""
    from hydra.core.global_hydra import GlobalHydra

    if not GlobalHydra.instance().is_initialized():  # resolved outside the app: nothing to list
        return ""
    from hydra.core.object_type import ObjectType

    repository = GlobalHydra.instance().config_loader().repository  # type: ignore[attr-defined]

    def options(group: str, kind: ObjectType = ObjectType.CONFIG) -> list[str]:
        """A group's options, read from one repository: Hydra's loader copies it on every listing."""
        return list(repository.get_group_options(group, kind))

    def below(parent: str) -> list[str]:
        found = [f"{parent}/{name}" for name in options(parent, ObjectType.GROUP)]
        return found + [sub for group in found for sub in below(group)]

    top = [name for name in options("", ObjectType.GROUP) if name not in (*HIDDEN_GROUPS, "hydra")]
    ours = [group for name in top for group in [name, *below(name)]]
    theirs = options("hydra", ObjectType.GROUP)
    shown = ours + [group for group in HYDRA_GROUPS if group.split("/")[1] in theirs]
    return "\n".join(f"{group}: {', '.join(sorted(options(group)))}" for group in sorted(shown))


def component_targets(config_dir: Path = CONFIG_DIR) -> dict[tuple[str, str], str]:
    """(group, name) -> `_target_` of every base YAML in the component groups (a variant's is its base's)."""
    found = {}
    for group in GROUPS:
        for path in sorted((config_dir / group).glob("*.yaml")):
            target = config_target(path, config_dir / group)
            if target:
                found[group, path.stem] = target
    return found


def component(target: str, config_dir: Path) -> type:
    """The class a config names; a one-line error when it does not import (a user's module not on the path)."""
    try:
        found: type = get_object(target)
    except Exception as err:
        raise InputError(
            f"cannot import {target} (named in {config_dir}): {err}; run from the folder that holds its "
            "module, or add that folder to PYTHONPATH"
        ) from None
    return found


def register(config_dir: Path = CONFIG_DIR) -> None:
    """Store every component's generated schema under schema/<group>/<name>, and the budget's.

    Called again for each directory a user adds to Hydra's search path, so their own components get
    schemas (and checked settings) exactly as the project's do.
    """
    store = ConfigStore.instance()
    for (group, name), target in component_targets(config_dir).items():
        store.store(group=f"schema/{group}", name=name, node=schema_of(component(target, config_dir)))
    store.store(group="schema/budget", name="budget", node=BudgetConf)


def schema_of(cls: type) -> Any:
    """A component's schema: the dataclass `hydra_zen.builds` makes from its signature, where each setting
    it composes (`composes`: {setting: (a class, the settings the component sets itself)}) is a nested
    node of that class's own settings, their defaults shown (so `optimizer.breaks.schedule=[200,210]`
    is checked when composed, as any setting is, and a key the class does not take is refused)."""
    schema: Any = builds(cls, populate_full_signature=True)
    nested = [
        (setting, node, field(default_factory=node))
        for setting, (part, own) in getattr(cls, "composes", {}).items()
        for node in [settings_schema(part, own)]
    ]
    return make_dataclass(schema.__name__, nested, bases=(schema,)) if nested else schema


def settings_schema(cls: type, own: Sequence[str] = ()) -> type:
    """The settings of `cls` but `own` as a dataclass without `_target_`: built into a mapping (the
    composing component builds `cls` from it), typed and defaulted as `cls`'s own schema."""
    built: Any = builds(cls, populate_full_signature=True, zen_exclude=tuple(own))
    kept = [(f.name, f.type, _same_default(f)) for f in fields(built) if f.name != "_target_"]
    return make_dataclass(f"{cls.__name__}Settings", kept)


def _same_default(found: Field) -> Any:
    """A new field with the default (or default factory) of `found`."""
    if found.default_factory is MISSING:
        return field(default=found.default)
    return field(default_factory=found.default_factory)


def settings_of(group: str, name: str, config_dir: Path = CONFIG_DIR) -> dict[str, Any]:
    """A component config's settings as a run starts with them: its class's signature defaults, then
    every YAML on its defaults list (a variant's base first), then its own keys."""
    node: dict[str, Any] = OmegaConf.to_container(OmegaConf.load(config_dir / group / f"{name}.yaml"))  # type: ignore[assignment]
    values: dict[str, Any] = {}
    for entry in node.get("defaults", []):
        if isinstance(entry, str) and entry != "_self_" and (config_dir / group / f"{entry}.yaml").is_file():
            values.update(settings_of(group, entry, config_dir))
    target = config_target(config_dir / group / f"{name}.yaml", config_dir / group)
    if target and not values:
        parameters = inspect.signature(component(target, config_dir)).parameters.items()
        values = {k: p.default for k, p in parameters if p.default is not inspect.Parameter.empty}
    values.update({k: v for k, v in node.items() if k not in ("defaults", "_target_")})
    return values


def settings_table(group: str = "optimizer", config_dir: Path = CONFIG_DIR) -> str:
    """Every config of a group with its settings and their values, as a Markdown table: generated from
    the constructors and the YAML files, so the documentation never types a default twice."""
    budget = group == "optimizer"  # an optimiser also states the budget of a run that sets none
    lines = [
        f"| {group} | settings (value a run starts with) |" + (" budget when none is set |" if budget else "")
    ]
    lines.append("|---|---|" + ("---|" if budget else ""))
    for path in sorted((config_dir / group).glob("*.yaml")):
        shown = ", ".join(
            f"`{k}={_short_value(v)}`" for k, v in settings_of(group, path.stem, config_dir).items()
        )
        lines.append(
            f"| `{path.stem}` | {shown or '(none)'} |"
            + (f" {default_budget(path, config_dir)} |" if budget else "")
        )
    return "\n".join(lines)


def default_budget(path: Path, config_dir: Path) -> str:
    """The budget of a run of this optimiser config that sets none: its class's `default_seconds`
    (a constructive or time-driven solver) or DEFAULT_EVALUATIONS."""
    target = config_target(path, config_dir / "optimizer")
    seconds = getattr(component(target, config_dir), "default_seconds", None) if target else None
    return f"{seconds:g} s" if seconds else f"{DEFAULT_EVALUATIONS:,} evaluations"


def config_target(path: Path, group_dir: Path) -> str | None:
    """The `_target_` of a config file, following its defaults list within its group (a variant
    names its base): the one reader of `_target_` for tables and pairings."""
    node = OmegaConf.load(path)
    if not isinstance(node, DictConfig):
        raise InputError(f"{path}: a component config must be a mapping, found a list")
    if node.get("_target_"):
        return str(node["_target_"])
    for entry in node.get("defaults", []):
        if isinstance(entry, str) and entry != "_self_" and not entry.startswith("/"):
            parent = group_dir / f"{entry}.yaml"
            if parent.is_file():
                return config_target(parent, group_dir)
    return None


def _short_value(value: Any) -> str:
    """A setting's value as a table cell shows it: floats to 4 significant digits, None as null."""
    if value is None:
        return "null"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value).replace("|", "\\|")


if __name__ == "__main__":
    print(settings_table())
