"""puzzlelab from Python: any puzzle with any optimiser in a few lines, through the same configs, run
records and tables as the command line (a notebook's runs and a sweep's runs are one kind of thing).

    from experiments import api

    for optimizer in ("lahc", "sa"):
        for seed in range(5):
            api.run(puzzle="queens", optimizer=optimizer, seed=seed, overrides=["puzzle.n=30"])
    runs = api.table()      # the runs table, as runs.csv of a sweep: one row per run
    api.report()            # summary, comparisons, plots, report.md, IOHprofiler export

A component is a config name ("sa", "sa_compiled") or a mapping with a `_target_` (a class in the
user's own module and its settings); `overrides` are command-line overrides ("budget.evaluations=5000").
Each run writes its record under `out` (default results/api/) in a directory named by what was asked,
and a finished run is read back rather than run again, as a resumed sweep does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from omegaconf import DictConfig, open_dict

from experiments import report as reporting
from experiments.gather import gather_runs, gather_traces
from experiments.records import is_complete, read_row, results_root, write_config
from experiments.run import GROUPS, run_task
from experiments.schema import CONFIG_DIR, run_subdir, setup

Component = str | Mapping[str, Any] | None


def default_out() -> Path:
    """results/api/ (under $PUZZLELAB_RESULTS when set), read when a run needs it, not at import: a
    PUZZLELAB_RESULTS set but empty is then one InputError line, not a failed import."""
    return results_root() / "api"


def config(
    puzzle: Component = None,
    optimizer: Component = None,
    task: Component = None,
    seed: int = 0,
    overrides: Sequence[str] = (),
    config_dirs: Sequence[Path | str] = (),
) -> DictConfig:
    """The config the command line would compose (None: the default component), with the choices made."""
    given = {"puzzle": puzzle, "optimizer": optimizer, "task": task}
    dirs = [Path(d).resolve() for d in config_dirs]
    setup(dirs, headless=False)
    asked = [f"{g}={c}" for g, c in given.items() if isinstance(c, str)]
    asked += [f"~{g}" for g, c in given.items() if isinstance(c, Mapping)]
    asked += [f"hydra.searchpath=[{','.join(f'file://{d}' for d in dirs)}]"] if dirs else []
    GlobalHydra.instance().clear()
    with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
        cfg = compose("config", overrides=[*asked, *overrides, f"seed={seed}"], return_hydra_config=True)
    choices = cfg.hydra.runtime.choices
    with open_dict(cfg):
        del cfg["hydra"]
        for group, component in given.items():
            if isinstance(component, Mapping):
                cfg[group] = dict(component)
        cfg.choices = {
            g: choices.get(g) for g in GROUPS if choices.get(g) and not isinstance(given[g], Mapping)
        }
        cfg.progress = False
    return cfg


def label(component: str | Mapping[str, Any]) -> str:
    """A component as a run directory names it: its config name, or its class and settings."""
    if isinstance(component, str):
        return component
    settings = ",".join(f"{k}={v}" for k, v in sorted(component.items()) if k != "_target_")
    return f"{str(component['_target_']).rsplit('.', 1)[-1]}({settings})"


def run(
    puzzle: Component = None,
    optimizer: Component = None,
    task: Component = None,
    seed: int = 0,
    overrides: Sequence[str] = (),
    out: Path | str | None = None,
    config_dirs: Sequence[Path | str] = (),
) -> dict[str, Any]:
    """Run one config and seed; its record goes to `out`/<what was asked>/seed=<seed>/. Returns its row
    (the run table's columns) with `run_dir`."""
    cfg = config(puzzle, optimizer, task, seed, overrides, config_dirs)
    given = {"puzzle": puzzle, "optimizer": optimizer, "task": task}
    asked = [f"{group}={label(c)}" for group, c in given.items() if c is not None]
    run_dir = Path(out if out is not None else default_out()) / run_subdir(
        ",".join(sorted([*asked, *overrides])), seed
    )
    if not is_complete(run_dir):
        write_config(cfg, run_dir)
        run_task(cfg, run_dir)
    return {**read_row(run_dir), "run_dir": str(run_dir)}


def table(*dirs: Path | str) -> pd.DataFrame:
    """Every run under `dirs` (default results/api/) as one table: the columns of a sweep's runs.csv."""
    return gather_runs([Path(d) for d in dirs or (default_out(),)])


def traces(runs: pd.DataFrame) -> pd.DataFrame:
    """The traces of these runs (evaluations, seconds, best), keyed by `run_id`: a sweep's traces.parquet."""
    return gather_traces(runs)


def report(*dirs: Path | str, out: Path | str | None = None) -> Path:
    """The command line's report over the runs under `dirs`: tables, statistics, plots, report.md and
    the IOHprofiler export, written to `out` (default: the first directory). Returns where."""
    roots = [Path(d) for d in dirs or (default_out(),)]
    return reporting.report(roots, Path(out) if out else None, quiet=True)
