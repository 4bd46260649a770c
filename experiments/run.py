"""The Hydra app: `python -m experiments.run [overrides]` runs one config; `-m` sweeps.

User mistakes end with one line naming the problem. In a sweep, a failed run is recorded as
failed (with its error) and the sweep goes on; a run whose record is complete is skipped, so a
re-run of an interrupted sweep (same `hydra.sweep.dir`) does only what is missing.
"""
from __future__ import annotations

import sys
import traceback
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from experiments.records import is_complete, write_config, write_record
from experiments.schema import register
from experiments.tasks import get_task
from core import InputError

register()


def run_subdir(varying: str, seed) -> str:
    """A sweep run's directory: what varies, then the seed (e.g. optimizer=ga/seed=3)."""
    return f"{varying}/seed={seed}" if varying else f"seed={seed}"


OmegaConf.register_new_resolver("run_subdir", run_subdir, replace=True)


def failure_row(cfg: DictConfig, error: BaseException) -> dict:
    """A failed run's record: what was asked, and the one-line error."""
    return {"status": "failed", "error": f"{type(error).__name__}: {error}", "seed": int(cfg.seed),
            "task": cfg.task}


def execute(cfg: DictConfig, run_dir: Path, multirun: bool) -> dict | None:
    """Run the configured task in `run_dir`, with one-line errors and failures recorded."""
    if multirun and is_complete(run_dir):
        print(f"skip (already complete): {run_dir}")
        return None
    write_config(cfg, run_dir)
    try:
        task = get_task(cfg.task)
        return task(cfg, run_dir)
    except (InputError, OmegaConfBaseException) as err:
        if not multirun:
            print(f"error: {err}", file=sys.stderr)
            sys.exit(2)
        write_record(run_dir, failure_row(cfg, err))
    except Exception as err:  # a bug: keep the traceback, but let the sweep go on
        if not multirun:
            raise
        (run_dir / "error.txt").write_text(traceback.format_exc())
        write_record(run_dir, failure_row(cfg, err))
    print(f"failed: {run_dir}", file=sys.stderr)
    return None


@hydra.main(version_base="1.3", config_path="../configs", config_name="config")
def main(cfg: DictConfig) -> None:
    hc = HydraConfig.get()
    multirun = hc.mode == RunMode.MULTIRUN
    if multirun:
        cfg.progress = False
    run_dir = Path(hc.runtime.output_dir)
    row = execute(cfg, run_dir, multirun)
    if row is not None:
        from experiments.tasks.optimise import summary_line
        print(summary_line(row, run_dir) if "best" in row else f"done -> {run_dir}")


if __name__ == "__main__":
    main()
