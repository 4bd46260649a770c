"""Check the command line's overrides before Hydra runs them, so that a mistake ends in one line that
says what is wrong and what to type instead (Hydra's own messages span several lines and name
generated classes). Sweeps are checked value by value for group choices, and composed once with the
first value of each swept setting. Config directories a user adds with
`hydra.searchpath=[file://DIR]` (their own puzzles and optimisers) count as the project's own.
"""

from __future__ import annotations

import re
from pathlib import Path

from hydra import compose, initialize_config_dir
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import IntervalSweep, Override
from hydra.errors import ConfigCompositionException, MissingConfigException
from omegaconf import OmegaConf
from omegaconf.errors import ConfigAttributeError, ConfigKeyError, ValidationError

from core.errors import InputError
from experiments.schema import CONFIG_DIR

KINDS = {"Integer": "a whole number", "Float": "a number", "Boolean": "true or false", "String": "text"}


FLAGS_WITH_VALUE = {"--cfg", "-c", "--package", "-p", "--config-path", "-cp", "--config-name"}
FLAGS_WITH_VALUE |= {"-cn", "--config-dir", "-cd", "--experimental-rerun"}


def parse(argv: list[str]) -> list[Override]:
    """The command line's overrides: Hydra's flags (-m, --cfg job, ...) and their values left out."""
    kept = [
        a
        for i, a in enumerate(argv)
        if not a.startswith("-") and (i == 0 or argv[i - 1] not in FLAGS_WITH_VALUE)
    ]
    return OverridesParser.create().parse_overrides(kept)


def search_dirs(argv: list[str]) -> list[Path]:
    """The config directories added with hydra.searchpath=[file://DIR, ...]: a user's own components."""
    found = []
    for o in parse(argv):
        if o.key_or_group == "hydra.searchpath" and not o.is_delete():
            paths = o.value()
            for path in paths if isinstance(paths, list) else [paths]:
                if str(path).startswith("file://"):
                    found.append(Path(str(path).removeprefix("file://")))
    return found


def options(group: str, dirs: tuple[Path, ...] = ()) -> list[str]:
    """The configs a group offers: the YAML files in configs/<group>/ and in the user's directories
    (nested ones as folder/name)."""
    return sorted(
        {
            p.relative_to(d / group).with_suffix("").as_posix()
            for d in (CONFIG_DIR, *dirs)
            for p in (d / group).rglob("*.yaml")
        }
    )


def values(override: Override) -> list[str]:
    """Every value an override names (several for a sweep such as optimizer=ga,sa)."""
    interval = override.value()
    if isinstance(interval, IntervalSweep):  # interval(a, b), which Optuna samples from: a stands for it
        return [str(interval.start)]
    if override.is_sweep_override():
        return list(override.sweep_string_iterator())
    return [override.get_value_element_as_str()]


def check_choices(overrides: list[Override], dirs: tuple[Path, ...] = ()) -> None:
    """Each value given to a config group (optimizer=..., +experiment=...) names one of its files."""
    for o in overrides:
        group = o.key_or_group
        if (CONFIG_DIR / group).is_dir() and not (o.is_delete() or o.is_hydra_override()):
            unknown = [v for v in values(o) if v not in options(group, dirs)]
            if unknown:
                raise InputError(
                    f"unknown {group} {unknown[0]!r}; choose one of: {', '.join(options(group, dirs))}"
                )


def first_value(o: Override) -> str:
    """An override with a sweep cut to its first value (the search path kept whole)."""
    if o.key_or_group == "hydra.searchpath":
        return str(o.input_line)
    return o.get_key_element() if o.is_delete() else f"{o.get_key_element()}={values(o)[0]}"


def first_of_each(overrides: list[Override]) -> list[str]:
    """The overrides with each sweep cut to its first value, Hydra's own settings left out (but the
    search path, where a user's own configs are)."""
    return [
        first_value(o) for o in overrides if not o.is_hydra_override() or o.key_or_group == "hydra.searchpath"
    ]


def settings_of(path: str, overrides: list[str]) -> str:
    """The settings a config node takes, for the error that names an unknown one."""
    choices = [
        o
        for o in overrides
        if "=" in o
        and ((CONFIG_DIR / o.split("=")[0].lstrip("+")).is_dir() or o.startswith("hydra.searchpath"))
    ]
    with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
        cfg = compose("config", overrides=choices)
    node = OmegaConf.select(cfg, path) if path else cfg
    keys = [k for k in node if not str(k).startswith("_")] if node is not None else []
    return ", ".join(map(str, keys))


def one_line(err: Exception, overrides: list[str]) -> str:
    """Hydra's composition error as one line saying what to type instead."""
    cause = err.__cause__
    if isinstance(cause, (ConfigAttributeError, ConfigKeyError)) and cause.full_key:
        parent, _, key = cause.full_key.rpartition(".")
        where = parent or "the config"
        return (
            f"{where} has no setting {key!r}; it takes: {settings_of(parent, overrides)} "
            f"(prefix a new key with + to add it)"
        )
    if isinstance(cause, ValidationError) and cause.full_key and "is not Optional" in str(cause.msg):
        return f"{cause.full_key} cannot be null; give it a value (or leave the setting out)"
    if isinstance(cause, ValidationError) and cause.full_key and "is not a ListConfig" in str(cause.msg):
        return f"{cause.full_key} must be a list, e.g. {cause.full_key}=[2,4]"
    if isinstance(cause, ValidationError) and cause.full_key:
        wanted = re.search(r"converted to (\w+)", str(cause.msg))
        kind = KINDS.get(wanted.group(1), wanted.group(1)) if wanted else "another value"
        given = next((o.split("=", 1)[1] for o in overrides if o.startswith(f"{cause.full_key}=")), "?")
        return f"{cause.full_key} must be {kind}, got {given!r}"
    return str(err).strip().splitlines()[0]


def check_smoke(overrides: list[Override]) -> None:
    """`smoke` belongs to a study (each experiment's defaults list has it), so it needs +experiment."""
    keys = {o.key_or_group for o in overrides}
    if "smoke" in keys and "experiment" not in keys:
        raise InputError("smoke=on shrinks a study: add one, e.g. +experiment=colour_sweep smoke=on")


def launcher_settings(overrides: list[str]) -> list[str]:
    """The settings a launcher takes (hydra.launcher.*), for the error that names an unknown one."""
    with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
        cfg = compose("config", overrides=overrides, return_hydra_config=True)
    node = OmegaConf.select(cfg, "hydra.launcher")
    return [str(k) for k in node if not str(k).startswith("_")] if node is not None else []


def check_launcher(parsed: list[Override], overrides: list[str]) -> None:
    """Settings given to the sweep's launcher (hydra.launcher.n_jobs=4) must be ones it takes, of the right
    kind; n_jobs=0 runs nothing (joblib's own error is a traceback once the sweep starts)."""
    given = [o for o in parsed if o.key_or_group.startswith("hydra.launcher.") and not o.is_delete()]
    if not given:
        return
    chosen = [first_value(o) for o in parsed if o.key_or_group == "hydra/launcher"]
    settings = [*overrides, *chosen, *(first_value(o) for o in given)]
    try:
        with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
            compose("config", overrides=settings, return_hydra_config=True)
    except (ConfigCompositionException, MissingConfigException) as err:
        cause = err.__cause__
        if isinstance(cause, (ConfigAttributeError, ConfigKeyError)) and cause.full_key:
            launcher = chosen[0].split("=", 1)[1] if chosen else "local"
            takes = ", ".join(launcher_settings([*overrides, *chosen])) or "none"
            raise InputError(
                f"the {launcher} launcher has no setting {cause.full_key.rpartition('.')[2]!r}; "
                f"the settings it takes: {takes}"
            ) from None
        raise InputError(one_line(err, settings)) from None
    for o in given:
        if o.key_or_group == "hydra.launcher.n_jobs" and any(v.strip() == "0" for v in values(o)):
            raise InputError(
                "hydra.launcher.n_jobs=0 would run nothing; give how many runs go at once, e.g. "
                "hydra.launcher.n_jobs=2 (-1: every core, -2: all but one)"
            )


def check(argv: list[str]) -> None:
    """Raise InputError (one line) if the command line's overrides do not compose."""
    parsed = parse(argv)
    check_choices(parsed, tuple(search_dirs(argv)))
    check_smoke(parsed)
    overrides = first_of_each(parsed)
    try:
        with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
            compose("config", overrides=overrides)
    except (ConfigCompositionException, MissingConfigException) as err:
        raise InputError(one_line(err, overrides)) from None
    check_launcher(parsed, overrides)
