"""`python -m experiments.reproduce <run dir>`: re-run a run from its saved config and seed, and check
that it found the same: the same best score and the same trace (evaluation counts and best values).

Wall-clock columns are not compared. A run with a budget in seconds cannot promise the same trace on
another machine; reproduce says so rather than reporting a false difference as a bug.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf

from core import InputError
from experiments.records import CONFIG, RUN, TIMING_COLUMNS, TRACE
from experiments.run import run_task, setup


def plain(value):
    """A table value as the Python value a user reads (11.0, not np.float64(11.0))."""
    return value.item() if isinstance(value, np.generic) else value


def differences(saved: pd.DataFrame, fresh: pd.DataFrame, what: str) -> list[str]:
    """Human-readable differences between two tables, column by column (timing ignored: the machine's)."""
    cols = [c for c in saved.columns if c not in TIMING_COLUMNS]
    if len(saved) != len(fresh):
        return [f"{what}: {len(saved)} rows saved, {len(fresh)} now"]
    out = []
    for col in cols:
        if col not in fresh:
            out.append(f"{what}: column {col!r} missing now")
            continue
        a, b = saved[col].to_numpy(), fresh[col].to_numpy()
        same = [x == y or (pd.isna(x) and pd.isna(y)) for x, y in zip(a, b)]
        if not all(same):
            i = int(np.argmin(same))
            out.append(f"{what}: {col} differs first at row {i}: saved {plain(a[i])!r}, now {plain(b[i])!r}")
    return out


def reproduce(run_dir: Path) -> list[str]:
    """Re-run the run in `run_dir` into a scratch directory; return what differs (empty: identical)."""
    run_dir = Path(run_dir)
    if not (run_dir / CONFIG).is_file() or not (run_dir / RUN).is_file():
        raise InputError(f"{run_dir} is not a finished run directory (needs {CONFIG} and {RUN})")
    cfg = OmegaConf.load(run_dir / CONFIG)
    if not isinstance(cfg, DictConfig):
        raise InputError(f"{run_dir / CONFIG} is not a run's config: expected a mapping, found a list")
    cfg.progress = False
    with tempfile.TemporaryDirectory() as scratch:
        run_task(cfg, Path(scratch))
        fresh_run = pd.read_parquet(Path(scratch) / RUN)
        fresh_trace = pd.read_parquet(Path(scratch) / TRACE) if (Path(scratch) / TRACE).is_file() else None
    diffs = differences(pd.read_parquet(run_dir / RUN), fresh_run, "run")
    if fresh_trace is not None and (run_dir / TRACE).is_file():
        diffs += differences(pd.read_parquet(run_dir / TRACE), fresh_trace, "trace")
    return diffs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Re-run a run from its saved config and check it matches.")
    parser.add_argument("run_dir", type=Path)
    args = parser.parse_args(argv)
    setup()
    try:
        cfg = OmegaConf.load(args.run_dir / CONFIG) if (args.run_dir / CONFIG).is_file() else None
        diffs = reproduce(args.run_dir)
    except InputError as err:
        sys.exit(f"error: {err}")
    if not diffs:
        print(f"reproduced: {args.run_dir} (same best and same trace)")
        return
    if cfg is not None and OmegaConf.select(cfg, "budget.seconds") is not None:
        print("note: this run had a budget in seconds, so its trace depends on the machine's speed")
    print(f"NOT reproduced: {args.run_dir}")
    for line in diffs:
        print(f"  {line}")
    sys.exit(1)


if __name__ == "__main__":
    main()
