"""The Hydra app: `python -m experiments.run [overrides]` runs one config; `-m` sweeps.

User mistakes end with one line naming the problem. In a sweep, a failed run is recorded as
failed (with its error) and the sweep goes on; a run whose record is complete is skipped, so a
re-run of an interrupted sweep (same `hydra.sweep.dir`) does only what is missing, and runs again a
run whose record was left damaged (empty or cut-off files), saying so in one line.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import hydra
import matplotlib
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from core import InputError
from experiments import overrides
from experiments.build import build
from experiments.records import RUN, RunRecord, damage, discard, read_row, write_config, write_record
from experiments.schema import register

GROUPS = ("puzzle", "optimizer", "task")


def run_subdir(varying: str, seed: int) -> str:
    """A sweep run's directory: what varies, then the seed (e.g. optimizer=ga/seed=3)."""
    return f"{varying}/seed={seed}" if varying else f"seed={seed}"


def setup(config_dirs: Sequence[Path] = (), headless: bool = True) -> None:
    """What the app needs before Hydra composes a config: the schemas (also of the components in a
    user's own config directories), the resolvers, and pictures drawn to files (never to a screen,
    which workers and clusters do not have; a notebook keeps its own backend: headless=False)."""
    if headless:
        matplotlib.use("Agg")
    register()
    for config_dir in config_dirs:
        register(config_dir)
    OmegaConf.register_new_resolver("run_subdir", run_subdir, replace=True)


def note_choices(cfg: DictConfig) -> None:
    """Keep the config chosen in each group (two_opt_swap, not the class's two_opt) with the run."""
    choices = HydraConfig.get().runtime.choices
    cfg.choices = {group: choices.get(group) for group in GROUPS if choices.get(group)}


def check_seed(cfg: DictConfig) -> None:
    """A seed is a whole number >= 0 (numpy's generators refuse the rest, with a traceback)."""
    if not isinstance(cfg.seed, int) or isinstance(cfg.seed, bool) or cfg.seed < 0:
        raise InputError(f"seed must be a whole number >= 0, got {cfg.seed!r}; e.g. seed=3")


def failure(cfg: DictConfig, error: BaseException) -> RunRecord:
    """A failed run's record: what was asked, and the one-line error."""
    seed = cfg.seed if isinstance(cfg.seed, int) else -1
    return RunRecord(
        task=OmegaConf.select(cfg, "choices.task") or "unknown",
        seed=seed,
        puzzle=OmegaConf.select(cfg, "choices.puzzle"),
        optimizer=OmegaConf.select(cfg, "choices.optimizer"),
        status="failed",
        error=f"{type(error).__name__}: {error}",
    )


def run_task(cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
    """Build the configured task and run it: it writes the run's record and returns its row."""
    check_seed(cfg)
    row: dict[str, Any] = build(cfg.task, "task")(cfg, run_dir)
    return row


def execute(cfg: DictConfig, run_dir: Path, multirun: bool) -> dict | None:
    """Run the configured task in `run_dir`, with one-line errors and failures recorded."""
    write_config(cfg, run_dir)
    try:
        return run_task(cfg, run_dir)
    except (InputError, OmegaConfBaseException) as err:
        if not multirun:
            print(f"error: {err}", file=sys.stderr)
            sys.exit(2)
        write_record(run_dir, failure(cfg, err))
    except Exception as err:  # a bug: keep the traceback, but let the sweep go on
        if not multirun:
            raise
        (run_dir / "error.txt").write_text(traceback.format_exc())
        write_record(run_dir, failure(cfg, err))
    print(f"failed: {run_dir}", file=sys.stderr)
    return None


def objective(row: dict[str, Any] | None) -> float | None:
    """What a run returns to a sweeper that minimises (hydra/sweeper=optuna): its best score, or a
    tuning trial's statistic over its runs; None for a failed run or one without a score."""
    value = None if row is None else row.get("objective", row.get("best"))
    return None if value is None or value != value else float(value)


@hydra.main(version_base="1.3", config_path="../configs", config_name="config")
def app(cfg: DictConfig) -> float | None:
    hc = HydraConfig.get()
    multirun = hc.mode == RunMode.MULTIRUN
    run_dir = Path(hc.runtime.output_dir)
    if multirun:
        problem = damage(run_dir)
        if problem:
            print(f"damaged record, run again: {run_dir}: {problem}", file=sys.stderr)
            discard(run_dir)
        elif (run_dir / RUN).is_file():  # present and, as damage() just read it, whole
            print(f"skip (already complete): {run_dir}")
            return objective(read_row(run_dir))
    if multirun:
        cfg.progress = False
    note_choices(cfg)
    row = execute(cfg, run_dir, multirun)
    if row is not None:
        from experiments.tasks.optimise import summary_line

        print(summary_line(row, run_dir) if row.get("best") is not None else f"done -> {run_dir}")
    return objective(row)


def main() -> None:
    """Entry point: set up, check the command line in one line per mistake, then let Hydra run it."""
    try:
        setup(overrides.search_dirs(sys.argv[1:]))
        overrides.check(sys.argv[1:])
    except InputError as err:
        sys.exit(f"error: {err}")
    app()


if __name__ == "__main__":
    main()
