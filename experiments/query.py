"""`python -m experiments.query "SQL"`: one SQL query over every run record under results/.

DuckDB reads the run records' Parquet files in place (no server, no import step) as two views:
`runs` (every `run.parquet`: one row per run, every config setting a column, `run_dir` added) and
`traces` (every `trace.parquet`: evaluations, seconds, best, with the `run_dir` it came from), so
runs of every sweep, ad-hoc run and tuning trial answer one query. Columns named with a dot are
quoted: `"optimizer.t_start"`. The records are those a report gathers (experiments/gather.py): a
damaged or incomplete record, or a `run.parquet` that is not a run record of ours, is left out with one
line on stderr and the query answered over the rest.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import duckdb
import pandas as pd

from core.errors import InputError
from experiments.gather import kept
from experiments.records import RUN, TRACE, file_in_the_way, results_root, write_table


def view(con: duckdb.DuckDBPyConnection, name: str, files: list[Path], file: str) -> None:
    """A view over the Parquet `files` (each named `file`), each row tagged with its run directory."""
    listed = ", ".join("'" + str(f).replace("'", "''") + "'" for f in files)
    con.execute(
        f"CREATE VIEW {name} AS SELECT * EXCLUDE (filename), "
        f"regexp_replace(filename, '/{file}$', '') AS run_dir "
        f"FROM read_parquet([{listed}], union_by_name = true, filename = true)"
    )


def connect(root: Path | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with the views `runs` and `traces` over the records under `root` (default:
    results/, or $PUZZLELAB_RESULTS): the records the report would gather (a damaged or incomplete
    record, or a file that is not a run record of ours, is left out in one line on stderr, as gather
    says it)."""
    root = results_root() if root is None else root
    if not any(Path(root).rglob(RUN)):
        raise InputError(f"no run records ({RUN}) under {root}; run something first, or give --root")
    dirs = [d for d, _ in kept([Path(root)], resolve=False)]
    if not dirs:
        raise InputError(f"no whole run records ({RUN}) under {root}: every one was left out (above)")
    con = duckdb.connect()
    view(con, "runs", [d / RUN for d in dirs], RUN)
    traces = [d / TRACE for d in dirs if (d / TRACE).is_file()]
    if traces:
        view(con, "traces", traces, TRACE)
    return con


def query(sql: str, root: Path | None = None) -> pd.DataFrame:
    """The query's result as a DataFrame; a mistake in the SQL is one InputError line."""
    con = connect(root)
    try:
        return con.execute(sql).df()
    except duckdb.Error as err:
        first = str(err).strip().splitlines()[0]
        raise InputError(
            f"the query failed: {first} (columns: python -m experiments.query --columns)"
        ) from None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="One SQL query (DuckDB) over every run record.")
    parser.add_argument("sql", nargs="?", help='e.g. "SELECT optimizer, min(best) FROM runs GROUP BY ALL"')
    parser.add_argument(
        "--root", type=Path, help="where to look for run records (results/, or $PUZZLELAB_RESULTS)"
    )
    parser.add_argument("--out", type=Path, help="also write the result as a table (.parquet and .csv)")
    parser.add_argument("--columns", action="store_true", help="list the columns of the runs view")
    args = parser.parse_args(argv)
    if args.columns:
        args.sql = "SELECT column_name, column_type FROM (DESCRIBE runs)"
    if not args.sql:
        parser.error("give a query, or --columns")
    try:
        result = query(args.sql, args.root)
    except InputError as err:
        sys.exit(f"error: {err}")
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.max_rows", 200):
        print(result.to_string(index=False))
    if args.out:
        write_out(result, args.out)


def write_out(result: pd.DataFrame, path: Path) -> None:
    """--out's tables (.parquet and .csv), or one line on why they cannot be written (the result is
    printed above either way)."""
    import errno

    try:
        out = path.with_suffix(".parquet")
    except ValueError:  # "/", ".": no file name
        sys.exit(f"error: --out {path} names no file; give one, e.g. --out results/answer.csv")
    try:
        write_table(result, out)
    except OSError as err:  # /proc, a read-only folder, a file where a folder must be, a full disk
        blocker = file_in_the_way(out.parent)
        reason = (
            f"{blocker} is a file, not a folder"
            if blocker is not None
            else "the disk is full"
            if err.errno in (errno.ENOSPC, errno.EDQUOT)
            else os.strerror(err.errno)
            if err.errno
            else str(err)
        )
        sys.exit(
            f"error: cannot write {out} (and its .csv): {reason}; give --out a path in a folder you can write"
        )


if __name__ == "__main__":
    main()
