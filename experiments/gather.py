"""Gather run records from sweep directories into one tidy runs table and one trace table."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.records import OUTCOME_COLUMNS, RUN, TRACE, TRACE_COLUMNS, damage

CONFIG_PREFIXES = ("puzzle", "optimizer", "budget")


def run_dirs(roots: list[Path]) -> list[Path]:
    """Every directory under `roots` holding a complete run record, in a stable order; a damaged
    record is left out with one line saying so (re-running its sweep runs it again)."""
    found = sorted({p.parent.resolve() for root in roots for p in Path(root).rglob(RUN)})
    whole = []
    for d in found:
        problem = damage(d)
        if problem:
            print(
                f"left out, damaged record: {d}: {problem} (re-run its sweep to run it again)",
                file=sys.stderr,
            )
        else:
            whole.append(d)
    return whole


def gather_runs(roots: list[Path]) -> pd.DataFrame:
    """One row per run, with its directory and a stable run id."""
    frames = []
    for d in run_dirs(roots):
        df = pd.read_parquet(d / RUN)
        df["run_dir"] = str(d)
        frames.append(df)
    if not frames:
        raise FileNotFoundError(f"no run records ({RUN}) under {', '.join(map(str, roots))}")
    runs = pd.concat(frames, ignore_index=True)
    runs["run_id"] = np.arange(len(runs))
    return runs


def gather_traces(runs: pd.DataFrame) -> pd.DataFrame:
    """Every run's trace, tagged with its run id."""
    frames = []
    for run_id, d in zip(runs["run_id"], runs["run_dir"]):
        path = Path(d) / TRACE
        if path.is_file():
            t = pd.read_parquet(path)
            t.insert(0, "run_id", run_id)
            frames.append(t)
    if not frames:
        return pd.DataFrame(columns=["run_id", *TRACE_COLUMNS])
    return pd.concat(frames, ignore_index=True)


def varying_columns(runs: pd.DataFrame) -> list[str]:
    """The swept parameters: config columns whose value differs between runs (seed excluded).

    An optimiser's own parameters count only where they vary among runs of that optimiser.
    """
    keys = []
    for col in runs.columns:
        if col in OUTCOME_COLUMNS or col == "seed" or col.startswith("score."):
            continue
        if col in ("puzzle", "optimizer", "task") or col.startswith(CONFIG_PREFIXES):
            by = (
                runs.groupby("optimizer", dropna=False)[col]
                if col.startswith("optimizer.")
                else [(None, runs[col])]
            )
            if any(s.astype(str).nunique() > 1 for _, s in by):
                keys.append(col)
    return keys


def group_keys(runs: pd.DataFrame) -> list[str]:
    """Columns that name a group of runs differing only by seed."""
    keys = [c for c in ("puzzle", "optimizer") if c in runs.columns]
    return keys + [c for c in varying_columns(runs) if c not in keys]


def instance_columns(runs: pd.DataFrame, keys: list[str]) -> list[str]:
    """Swept columns that pick a problem instance (each puzzle names its own), on which runs pair up."""
    named = {k for ks in runs.get("instance_keys", pd.Series(dtype=str)).dropna() for k in ks.split()}
    return [k for k in keys if k in named]
