"""`python -m experiments.report <sweep dir> [...]`: one runs table, one trace table, a summary and plots.

Also run automatically at the end of every multirun (experiments/callbacks.py).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from experiments import plots
from experiments.gather import gather_runs, gather_traces, group_keys
from experiments.records import write_figure, write_table
from experiments.stats import summarise


def score_label(runs: pd.DataFrame) -> str:
    """What 'best' means for these runs, for axis labels."""
    return "gaps" if set(runs.get("puzzle", [])) == {"pentomino"} else "best (fitness)"


def report(roots: list[Path], out: Path | None = None) -> Path:
    """Gather the runs under `roots` and write tables and figures into `out` (default: roots[0])."""
    out = Path(out or roots[0])
    runs = gather_runs(roots)
    traces = gather_traces(runs)
    keys = group_keys(runs)
    write_table(runs, out / "runs.parquet")
    write_table(traces, out / "traces.parquet", csv=False)
    ok = runs[runs["status"] == "ok"]
    if "best" in ok and ok["best"].notna().any():
        summary = summarise(ok, keys)
        write_table(summary, out / "summary.parquet")
        what = score_label(ok)
        write_figure(plots.convergence(ok, traces[traces["run_id"].isin(ok["run_id"])], keys, what),
                     out / "convergence.png")
        write_figure(plots.final_scores(ok, keys, what), out / "final.png")
        with pd.option_context("display.width", 200, "display.max_columns", 30):
            print(summary.to_string(index=False))
    failed = runs[runs["status"] != "ok"]
    if len(failed):
        print(f"{len(failed)} run(s) failed; see the 'error' column of {out / 'runs.csv'}")
    return out


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        sys.exit("usage: python -m experiments.report <sweep dir> [more dirs...]")
    try:
        out = report([Path(a) for a in args])
    except FileNotFoundError as err:
        sys.exit(f"error: {err}")
    print(f"report written to {out}")


if __name__ == "__main__":
    main()
