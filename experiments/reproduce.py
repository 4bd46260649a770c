"""`python -m experiments.reproduce <run dir>`: re-run a run from its saved config and seed, and check
that it found the same: every table the run writes is the same (its row, so the best score; its trace,
evaluation counts and best values; a colour sweep's points, `colour_sweep.parquet`; an exact task's
`exact.parquet` or per-case tables), each Parquet file and its CSV copy. What differs is named by
table, column and first row.

Timing columns (wall-clock and CPU seconds, threads) are not compared: each table's writer declares
its own (`records.write_table(timing=...)`, kept in the Parquet file's metadata), and a column a fresh
or saved table declares is skipped in it and its CSV copy. A run with a budget in seconds cannot
promise the same trace on another machine; reproduce says so rather than reporting a false difference
as a bug.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from core.errors import InputError
from experiments.records import CONFIG, RUN, TRACE, declared_timing
from experiments.run import run_task, setup


def plain(value):
    """A table value as the Python value a user reads (11.0, not np.float64(11.0))."""
    return value.item() if isinstance(value, np.generic) else value


def differences(
    saved: pd.DataFrame, fresh: pd.DataFrame, what: str, timing: frozenset[str] = frozenset()
) -> list[str]:
    """Human-readable differences between two tables, column by column (`timing` ignored: the machine's)."""
    cols = [c for c in saved.columns if c not in timing]
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


RECORD = {
    RUN: "run",
    TRACE: "trace",
}  # the run record's own tables, named as the lines have always named them
TABLES = (".parquet", ".csv")


def written(folder: Path) -> list[str]:
    """Every table under `folder` (Parquet and its CSV copy), as paths relative to it: the run record's
    row and trace first, then the rest in order."""
    found = sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.suffix in TABLES and p.is_file() and not p.name.startswith(".")
    )
    return sorted(found, key=lambda name: (name not in RECORD, name.endswith(".csv"), name))


def read_table(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


def compare_tables(saved_dir: Path, fresh_dir: Path, names: list[str]) -> list[str]:
    """What differs between the saved run's tables and the fresh run's, table by table (the fresh run
    names the tables: every one its task writes; timing columns are the machine's and not compared)."""
    out = []
    for name in names:
        what = RECORD.get(name, name)
        if not (saved_dir / name).is_file():
            out.append(f"{what}: written now, not in the saved run")
            continue
        try:
            saved = read_table(saved_dir / name)
        except (OSError, ValueError) as err:  # pyarrow's ArrowInvalid, pandas' parser errors: ValueErrors
            out.append(f"{what}: the saved table is unreadable ({str(err).strip().splitlines()[0]})")
            continue
        timing = (declared_timing(fresh_dir / name) or frozenset()) | (
            declared_timing(saved_dir / name) or frozenset()
        )
        out += differences(saved, read_table(fresh_dir / name), what, timing)
    return out


FIX = "it is not the config the run saved: restore it, or run the run again"
NEEDED = ("seed", "puzzle._target_", "task._target_")  # and optimizer._target_ when it has an optimizer


def one_line(err: Exception) -> str:
    """An error's message in one line: YAML's problem and where, else its first line."""
    mark = getattr(err, "problem_mark", None)
    if isinstance(err, yaml.MarkedYAMLError) and mark is not None:
        return f"{err.problem} at line {mark.line + 1}, column {mark.column + 1}"
    return next((line.strip() for line in str(err).splitlines() if line.strip()), type(err).__name__)


def load_config(run_dir: Path) -> DictConfig:
    """The run's saved config, or one line saying why it is none (a damaged or hand-edited file)."""
    path = run_dir / CONFIG
    try:
        cfg = OmegaConf.load(path)
    except (yaml.YAMLError, UnicodeDecodeError, OSError, OmegaConfBaseException) as err:
        raise InputError(f"{path} cannot be read as YAML ({one_line(err)}); {FIX}") from None
    if not isinstance(cfg, DictConfig):
        raise InputError(f"{path} is not a run's config: expected a mapping, found a list")
    needed = NEEDED + (("optimizer._target_",) if "optimizer" in cfg else ())
    missing = [key for key in needed if not isinstance(OmegaConf.select(cfg, key, default=None), int | str)]
    if missing:
        raise InputError(f"{path} has no {', '.join(missing)}; {FIX}")
    return cfg


def reproduce(run_dir: Path, compared: list[str] | None = None) -> list[str]:
    """Re-run the run in `run_dir` into a scratch directory and compare every table the run writes (its
    row, its trace, a colour sweep's points, an exact task's tables, each Parquet and its CSV); return
    what differs (empty: identical). `compared`, when given, is filled with the tables compared."""
    run_dir = Path(run_dir)
    if not (run_dir / CONFIG).is_file() or not (run_dir / RUN).is_file():
        raise InputError(f"{run_dir} is not a finished run directory (needs {CONFIG} and {RUN})")
    cfg = load_config(run_dir)
    cfg.progress = False
    with tempfile.TemporaryDirectory() as scratch:
        with contextlib.redirect_stdout(io.StringIO()):  # the task's own lines: the verdict is ours
            try:
                run_task(cfg, Path(scratch))
            except OmegaConfBaseException as err:  # a key the task needs, missing or unresolvable
                raise InputError(f"{run_dir / CONFIG}: {one_line(err)}; {FIX}") from None
        names = written(Path(scratch))
        diffs = compare_tables(run_dir, Path(scratch), names)
    if compared is not None:
        compared[:] = names
    return diffs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Re-run a run from its saved config and check it matches.")
    parser.add_argument("run_dir", type=Path)
    args = parser.parse_args(argv)
    setup()
    try:
        cfg = load_config(args.run_dir) if (args.run_dir / CONFIG).is_file() else None
        compared: list[str] = []
        diffs = reproduce(args.run_dir, compared)
    except InputError as err:
        sys.exit(f"error: {err}")
    if not diffs:
        print(
            f"reproduced: {args.run_dir} (every table the same, timing columns aside: "
            f"{', '.join(n for n in compared if not n.endswith('.csv'))} and their CSVs)"
        )
        return
    if cfg is not None and OmegaConf.select(cfg, "budget.seconds") is not None:
        print("note: this run had a budget in seconds, so its trace depends on the machine's speed")
    print(f"NOT reproduced: {args.run_dir}")
    for line in diffs:
        print(f"  {line}")
    sys.exit(1)


if __name__ == "__main__":
    main()
