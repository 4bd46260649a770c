"""Check the command line's overrides before Hydra runs them, so that a mistake ends in one line that
says what is wrong and what to type instead (Hydra's own messages span several lines and name
generated classes). Sweeps are checked value by value for group choices, and composed once with the
first value of each swept setting. Config directories a user adds with
`hydra.searchpath=[file://DIR]` (their own puzzles and optimisers) count as the project's own.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from hydra import compose, initialize_config_dir
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import IntervalSweep, Override
from hydra.errors import ConfigCompositionException, MissingConfigException, OverrideParseException
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import ConfigAttributeError, ConfigKeyError, ValidationError

from core.errors import InputError, whole
from experiments.build import named_class
from experiments.schema import CONFIG_DIR, project_config_dirs

KINDS = {"Integer": "a whole number", "Float": "a number", "Boolean": "true or false", "String": "text"}


FLAGS_WITH_VALUE = {"--cfg", "-c", "--package", "-p", "--config-path", "-cp", "--config-name"}
FLAGS_WITH_VALUE |= {"-cn", "--config-dir", "-cd", "--experimental-rerun"}


def parse(argv: list[str]) -> list[Override]:
    """The command line's overrides: Hydra's flags (-m, --cfg job, ...) and their values left out. One
    that Hydra's grammar cannot read is one line naming it (Hydra's own is a traceback)."""
    kept = [
        a
        for i, a in enumerate(argv)
        if not a.startswith("-") and (i == 0 or argv[i - 1] not in FLAGS_WITH_VALUE)
    ]
    parser = OverridesParser.create()
    try:
        return parser.parse_overrides(kept)
    except OverrideParseException as err:
        for arg in kept:
            try:
                parser.parse_overrides([arg])
            except OverrideParseException as one:
                raise InputError(unreadable(arg, one)) from None
        raise InputError(f"cannot read the overrides: {str(err).splitlines()[0]}") from None


def unreadable(arg: str, err: OverrideParseException) -> str:
    """Why Hydra's grammar cannot read one override, and how to write it so it can."""
    key, _, value = arg.partition("=")
    quoted = f"'{key}=\"{value}\"'"  # as a shell passes it on: the quotes are Hydra's
    foreign = sorted({c for c in value if not c.isascii()})
    if foreign and value[:1] not in "\"'":
        shown = ", ".join(repr(c) for c in foreign)
        return (
            f"cannot read the override {arg!r}: Hydra reads {shown} only inside quotes; quote the value: "
            f"{quoted}"
        )
    lines = [line for line in str(err).splitlines() if line.strip() and not line.startswith("See https")]
    reason = lines[1] if lines[0].startswith("Error parsing override") and len(lines) > 1 else lines[0]
    reason = reason.split(" expecting ")[0].strip()
    said = "" if reason.startswith("LexerNoViableAltException") else f" ({reason})"  # it only echoes arg
    unclosed = [o for o, c in ("[]", "()", "{}") if value.count(o) > value.count(c)]
    if unclosed:
        how = f"a {unclosed[0]} is not closed; close it, or quote the value: {quoted}"
    elif value.count('"') % 2 or value.count("'") % 2:
        how = "a quote is not closed; close it"
    else:
        how = f"quote a value with spaces or other special characters: {quoted}"
    return f"cannot read the override {arg!r}{said}: {how}"


def with_added(argv: list[str], *added: str) -> list[str]:
    """The command line with overrides added beside the user's own: Hydra's argparse reads overrides
    only as one run of words, so one appended after a flag (`--cfg job`) would be refused."""
    last = max(
        (
            i
            for i, a in enumerate(argv)
            if not a.startswith("-") and (i == 0 or argv[i - 1] not in FLAGS_WITH_VALUE)
        ),
        default=len(argv) - 1,
    )
    return [*argv[: last + 1], *added, *argv[last + 1 :]]


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
    """The configs a group offers: the YAML files in configs/<group>/, in each study's
    conf/<group>/ and in the user's directories (nested ones as folder/name)."""
    return sorted(
        {
            p.relative_to(d / group).with_suffix("").as_posix()
            for d in (*project_config_dirs(), *dirs)
            for p in (d / group).rglob("*.yaml")
        }
    )


def is_group(name: str) -> bool:
    """Whether `name` is one of the project's config groups (a folder of configs/ or of a study's conf/)."""
    return any((d / name).is_dir() for d in project_config_dirs())


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
        if is_group(group) and not (o.is_delete() or o.is_hydra_override()):
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


def node_of(path: str, overrides: list[str]) -> DictConfig | None:
    """The config node at `path` as the command line's group choices compose it (its other settings left
    out: the one that failed among them)."""
    choices = [
        o
        for o in overrides
        if "=" in o and (is_group(o.split("=")[0].lstrip("+")) or o.startswith("hydra.searchpath"))
    ]
    with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
        cfg = compose("config", overrides=choices)
    node = OmegaConf.select(cfg, path) if path else cfg
    return node if isinstance(node, DictConfig) else None


def settings_of(path: str, overrides: list[str]) -> str:
    """The settings a config node takes, for the error that names an unknown one."""
    node = node_of(path, overrides)
    keys = [k for k in node if not str(k).startswith("_")] if node is not None else []
    return ", ".join(map(str, keys))


def moved_to(path: str, key: str, overrides: list[str]) -> str | None:
    """Where a setting the component at `path` no longer takes went ("optimizer.schedule is now
    optimizer.breaks.schedule"), from its class's `moved` ({old key: new key}); None if it names none."""
    node = node_of(path, overrides) if path else None
    moved = getattr(named_class(node), "moved", {}).get(key)
    return f"{path}.{key} is now {path}.{moved}" if moved else None


def composed(path: str, overrides: list[str]) -> bool:
    """Whether `path` holds the settings of a part its component composes (`composes`, as
    optimizer.breaks): that part takes its own settings only, so a key added with + is refused too."""
    parent, _, key = path.rpartition(".")
    return bool(parent) and key in getattr(named_class(node_of(parent, overrides)), "composes", {})


def one_line(err: Exception, overrides: list[str]) -> str:
    """Hydra's composition error as one line saying what to type instead."""
    cause = err.__cause__
    if isinstance(cause, (ConfigAttributeError, ConfigKeyError)) and cause.full_key:
        parent, _, key = cause.full_key.rpartition(".")
        moved = moved_to(parent, key, overrides)
        if moved:
            return moved
        where = parent or "the config"
        takes = settings_of(parent, overrides)
        return (
            f"{where} has no setting {key!r}; "
            + (f"it takes: {takes}" if takes else "it takes none")
            + ("" if composed(parent, overrides) else " (prefix a new key with + to add it)")
        )
    added = re.match(r"Could not override '([\w/.]+)'\. No match in the defaults list", str(err))
    if added:  # a group no default chooses (experiment, smoke_study): Hydra's message gives no hint
        group = added.group(1)
        given = next((o for o in overrides if o.split("=")[0] == group), f"{group}=...")
        return (
            f"{str(err).strip().splitlines()[0]} Did you mean +{given}? (a + adds a group no default chooses)"
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


N_JOBS = "hydra.launcher.n_jobs"
MULTIRUN_FLAGS = ("-m", "--multirun")


def local_worker_launchers() -> tuple[type, ...]:
    """The launchers whose jobs are worker processes of the sweep's own process, on this machine:
    joblib's (loky starts all n_jobs workers at once, and a worker outlives a sweep killed with -9).
    Hydra's launchers declare no such trait, so this lists them as classes (a subclass counts), never
    as a piece of their names; imported at each call, as Hydra's plugin scan loads plugin modules afresh
    (a class kept from before it is not the launcher's)."""
    try:
        from hydra_plugins.hydra_joblib_launcher.joblib_launcher import JoblibLauncher
    except ImportError:  # the plugin is not installed: no launcher here runs local workers
        return ()
    return (JoblibLauncher,)


def local_workers(launcher: DictConfig) -> bool:
    """Whether `hydra.launcher` runs the sweep's jobs as local worker processes (by its class)."""
    found = named_class(launcher)
    return found is not None and issubclass(found, local_worker_launchers())


def runs_every_combination(sweeper: DictConfig) -> bool:
    """Whether `hydra.sweeper` is Hydra's basic sweeper (or a subclass), which hands its launcher every
    combination of the swept values, rather than a sweeper with trials of its own (Optuna's)."""
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper  # the class its _target_ names

    found = named_class(sweeper)
    return found is not None and issubclass(found, BasicSweeper)


def cores() -> int:
    """The cores this process may use, as joblib counts them for n_jobs=-1 (the CPU affinity and a
    container's CPU quota included), so a cap and "every core" agree."""
    import joblib

    return int(joblib.cpu_count())


def runs_at_once(sweeper: DictConfig, parsed: list[Override]) -> int | None:
    """The most runs the sweep hands its launcher at once: every run of a basic sweep (its params and
    the command line's sweeps, as Hydra's BasicSweeper multiplies them; max_batch_size at most), or a
    sweeper's own n_jobs (Optuna's trials at a time); None when that cannot be told."""
    if not runs_every_combination(sweeper):
        n = sweeper.get("n_jobs")
        return n if whole(n) and n > 0 else None
    if any(o.key_or_group.startswith("hydra.sweeper.params") for o in parsed):
        return None  # params set on the command line: read as Hydra reads them, not here
    params = sweeper.get("params") or {}
    lines = [f"{k}={v}" for k, v in params.items()]
    lines += [str(o.input_line) for o in parsed if not o.is_hydra_override()]
    counts: dict[str, int] = {}
    try:
        for o in OverridesParser.create().parse_overrides(lines):
            if o.is_sweep_override() and not o.is_discrete_sweep():
                return None
            counts[o.get_key_element()] = len(list(o.sweep_string_iterator())) if o.is_sweep_override() else 1
    except Exception:  # a glob over a group, say: Hydra expands it later; no cap by the run count
        return None
    runs, batch = math.prod(counts.values()), sweeper.get("max_batch_size")
    return min(runs, batch) if whole(batch) and batch > 0 else runs


def cap_workers(argv: list[str]) -> tuple[list[str], str | None]:
    """The command line with the joblib launcher's n_jobs cut to what can run (the runs the sweep hands
    it at once and the cores here), and the note that says so; unchanged, None, when it fits.

    Why: loky starts every worker asked for at once, whatever the work: n_jobs=1000 on a 3-run sweep
    forked hundreds of workers, which finished nothing in 100 s. Negative values (-1: every core, -2:
    all but one) are joblib's own, and kept."""
    parsed = parse(argv)
    flagged = any(a in MULTIRUN_FLAGS for a in argv)
    if not flagged and not any(o.key_or_group in ("experiment", "hydra.mode") for o in parsed):
        return argv, None  # one run (only a study's YAML or hydra.mode makes a sweep without -m)
    wanted = ("hydra.launcher.", "hydra/launcher", "hydra.sweeper.", "hydra/sweeper", "hydra.mode")
    hydra_settings = [
        first_value(o)
        for o in parsed
        if o.key_or_group.startswith(wanted) and not o.key_or_group.startswith("hydra.sweeper.params")
    ]
    try:
        with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
            cfg = compose(
                "config", overrides=[*first_of_each(parsed), *hydra_settings], return_hydra_config=True
            )
    except Exception:  # check() has said what is wrong with the command line; nothing to cap here
        return argv, None
    multirun = flagged or cfg.hydra.get("mode") == RunMode.MULTIRUN
    launcher = cfg.hydra.launcher
    n = launcher.get("n_jobs")
    if not multirun or not local_workers(launcher) or not whole(n) or n <= 0:
        return argv, None
    here, runs = cores(), runs_at_once(cfg.hydra.sweeper, parsed)
    cap = min(here, runs) if runs is not None else here
    if n <= cap:
        return argv, None
    given = [i for i, a in enumerate(argv) if a.lstrip("+").split("=", 1)[0] == N_JOBS]
    if given:  # in its place
        capped = [
            *argv[: given[0]],
            f"{N_JOBS}={cap}",
            *(a for i, a in enumerate(argv) if i > given[0] and i not in given),
        ]
    else:
        capped = with_added(argv, f"{N_JOBS}={cap}")
    why = (
        "the runs this sweep launches at once: more workers would sit idle"
        if runs is not None and runs < here
        else "the cores this process may use: more workers would only slow each other"
    )
    note = f"note: {N_JOBS}={n} capped at {cap}, {why}"
    return capped, note
