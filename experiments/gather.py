"""Gather run records from sweep directories into one tidy runs table and one trace table."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from experiments.records import OUTCOME_COLUMNS, RUN, TRACE, TRACE_COLUMNS, damage, needs_trace

CONFIG_PREFIXES = ("puzzle", "optimizer", "budget")


IDENTITY = ("task", "status", "seed")  # columns every run record of ours has (RunRecord), failures too


def not_ours(path: Path) -> str | None:
    """Why the Parquet file at `path` is not a puzzlelab run record (None: it reads as one, or cannot be
    read at all, which `damage` says). Ours have the RunRecord columns `task`, `status` and `seed`."""
    try:
        names = pq.read_schema(path).names
    except (OSError, ValueError):  # empty or cut off: a damaged record of ours, or anything; damage() says
        return None
    missing = [c for c in IDENTITY if c not in names]
    if missing:
        return f"no column {', '.join(repr(c) for c in missing)} of a run record ({', '.join(IDENTITY)})"
    return None


def incomplete(run_dir: Path) -> str | None:
    """What a record that reads whole lacks: the trace its run writes before its row (records.needs_trace:
    a finished optimisation); None when it lacks nothing, or its row cannot be read (damage() says)."""
    if (Path(run_dir) / TRACE).is_file():
        return None
    try:
        row = pd.read_parquet(Path(run_dir) / RUN).iloc[0].to_dict()
    except (OSError, ValueError, IndexError):
        return None
    return f"{TRACE} is missing" if needs_trace(row) else None


def left_out(run_dir: Path) -> tuple[str, pd.DataFrame | None]:
    """Whether the record in `run_dir` is left out of a gathered table: the one line saying why ("" when it
    is kept) and, when it is kept, its one-row table."""
    path = Path(run_dir) / RUN
    foreign = not_ours(path)
    if foreign:
        return f"ignored, not a puzzlelab run record: {path} ({foreign})", None
    missing = incomplete(run_dir)
    if missing:
        return f"left out, incomplete record: {run_dir}: {missing} (re-run its sweep to run it again)", None
    problem = damage(run_dir)
    if problem:
        return f"left out, damaged record: {run_dir}: {problem} (re-run its sweep to run it again)", None
    return "", pd.read_parquet(path)


def kept(roots: list[Path], resolve: bool = True) -> list[tuple[Path, pd.DataFrame]]:
    """Every run record under `roots` that is whole and ours, with its one-row table, in a stable order;
    each one left out is said in one line on stderr (re-running its sweep runs a damaged or incomplete
    one again). `resolve`: the directories as absolute paths (else as found under `roots`)."""
    found = sorted(
        {(p.parent.resolve() if resolve else p.parent) for root in roots for p in Path(root).rglob(RUN)}
    )
    whole = []
    for d in found:
        line, table = left_out(d)
        if line:
            print(line, file=sys.stderr)
        elif table is not None:
            whole.append((d, table))
    return whole


def gather_runs(roots: list[Path]) -> pd.DataFrame:
    """One row per run, with its directory and a stable run id."""
    frames = []
    for d, table in kept(roots):
        frames.append(table.assign(run_dir=str(d)))
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
