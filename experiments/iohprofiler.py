"""Runs in the IOHprofiler format, so IOHanalyzer (and iohinspector) load a sweep's traces unchanged.

The files are written by `ioh`'s own Analyzer logger: each run's trace is replayed into it, one
logged row per improvement (evaluations, best so far as `raw_y`) and one at the run's last
evaluation. The layout is the logger's: a folder per algorithm (the optimiser with its swept
settings), in it one `IOHprofiler_f<id>_<problem>.json` meta file per problem (the puzzle with its
swept settings) and a `data_f<id>_<problem>/IOHprofiler_f<id>_DIM<d>.dat` file per dimension (the
genome's length) holding every run. A run's IOH instance is its instance seed (or the rank of its
instance keys) and its seed a run attribute.

    python -m experiments.iohprofiler <sweep dir> [more dirs] [--out DIR]

The report writes the same export at the end of every sweep (`iohprofiler/` and `iohprofiler.zip`,
ready to upload to IOHanalyzer).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
from pathlib import Path

import ioh
import pandas as pd

from experiments.gather import gather_runs, gather_traces, group_keys, instance_columns

FOLDER = "iohprofiler"


def label(row: pd.Series, keys: list[str]) -> str:
    """A name ioh can put in a file name: the component, then each swept setting as key=value."""
    head, *rest = keys
    text = "_".join([str(row[head]), *(f"{k.split('.', 1)[1]}={row[k]}" for k in rest)])
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "-", text)


def instances(runs: pd.DataFrame, columns: list[str]) -> pd.Series:
    """Each run's IOH instance: its one integer instance key, else the rank of its instance keys."""
    if not columns:
        return pd.Series(1, index=runs.index)
    if len(columns) == 1 and pd.api.types.is_integer_dtype(runs[columns[0]]):
        return runs[columns[0]].astype(int)
    keys = runs[columns].astype(str).agg("|".join, axis=1)
    return keys.rank(method="dense").astype(int)


def tagged(runs: pd.DataFrame, instance_columns: list[str]) -> pd.DataFrame:
    """The runs with what IOH calls them: algorithm, problem, function id, dimension and instance."""
    keys = [k for k in group_keys(runs) if k not in instance_columns]
    algorithm = ["optimizer", *(k for k in keys if k.startswith(("optimizer.", "budget.")))]
    problem = ["puzzle", *(k for k in keys if k.startswith("puzzle."))]
    out = runs.assign(
        ioh_algorithm=runs.apply(label, axis=1, keys=algorithm),
        ioh_problem=runs.apply(label, axis=1, keys=problem),
        ioh_dimension=runs["best_genome"].str.split().str.len().astype(int),
        ioh_instance=instances(runs, instance_columns),
    )
    ids = {name: i for i, name in enumerate(sorted(out["ioh_problem"].unique()), 1)}
    return out.assign(ioh_function=out["ioh_problem"].map(ids)).sort_values(
        ["ioh_algorithm", "ioh_function", "ioh_dimension", "ioh_instance", "seed"]
    )


class Seed:
    """The run attribute ioh reads when a run ends (it watches an object's attribute)."""

    seed = 0


def replay(runs: pd.DataFrame, traces: pd.DataFrame, folder: Path, algorithm: str) -> None:
    """One algorithm's runs through ioh's Analyzer logger, which writes the folder."""
    seed = Seed()
    logger = ioh.logger.Analyzer(
        root=ioh.logger.Path(str(folder.parent)),
        folder_name=folder.name,
        algorithm_name=algorithm,
        algorithm_info="puzzlelab",
        triggers=[ioh.logger.trigger.ALWAYS],
    )
    logger.add_run_attributes(seed, ["seed"])
    optimum = ioh.RealSolution([], 0.0)
    for _, run in runs.iterrows():
        meta = ioh.MetaData(
            int(run["ioh_function"]),
            int(run["ioh_instance"]),
            run["ioh_problem"],
            int(run["ioh_dimension"]),
            ioh.OptimizationType.MIN,
        )
        logger.attach_problem(meta)
        seed.seed = int(run["seed"])
        rows = traces.loc[traces["run_id"] == run["run_id"], ["evaluations", "best"]].to_numpy()
        if not len(rows) or rows[-1, 0] < run["evaluations"]:  # the run's last evaluation, as ioh logs it
            rows = [*rows, (run["evaluations"], run["best"])]
        last = len(rows) - 1
        for i, (evaluations, best) in enumerate(rows):
            y = float(best)
            improved = i == 0 or i < last or evaluations != run["evaluations"]  # a first call always improves
            logger.call(ioh.LogInfo(int(evaluations), y, y, y, y, y, y, [], [], [], optimum, improved))
        logger.reset()
    logger.close()


def set_evaluations(folder: Path, runs: pd.DataFrame) -> None:
    """Write each run's evaluation count into the meta files.

    ioh 0.3.22 takes it from a live problem's state, which a replay has not, and writes 0;
    IOHanalyzer reads it as the run's budget (an unsuccessful run's running time in ERT).
    """
    for path in folder.glob("IOHprofiler_f*.json"):
        meta = json.loads(path.read_text())
        for scenario in meta["scenarios"]:
            mine = runs[
                (runs["ioh_function"] == meta["function_id"])
                & (runs["ioh_dimension"] == scenario["dimension"])
            ]
            for entry, evaluations in zip(scenario["runs"], mine["evaluations"], strict=True):
                entry["evals"] = int(evaluations)
        path.write_text(json.dumps(meta, indent="\t") + "\n")


def export(runs: pd.DataFrame, traces: pd.DataFrame, out: Path, instance_columns: list[str]) -> Path:
    """Export the finished runs under `out` (replacing what was there), and zip it beside as `out`.zip."""
    # IOH needs a dimension, the genome's length: runs without a genome (outside results) are left out
    exported = (runs["status"] == "ok") & runs["best"].notna() & runs["best_genome"].notna()
    done = tagged(runs[exported], instance_columns)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=f".{out.name}.") as scratch:
        staging = Path(scratch) / out.name
        staging.mkdir()
        for algorithm, group in done.groupby("ioh_algorithm", sort=True):
            folder = staging / algorithm
            replay(group, traces, folder, algorithm)
            set_evaluations(folder, group)
        shutil.rmtree(out, ignore_errors=True)
        staging.rename(out)
    shutil.make_archive(str(out), "zip", root_dir=out)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Export runs in the IOHprofiler format (for IOHanalyzer).")
    parser.add_argument("dirs", nargs="+", type=Path, help="sweep directories (or any folders of runs)")
    parser.add_argument("--out", type=Path, help=f"where to write (default: <first dir>/{FOLDER})")
    args = parser.parse_args(argv)
    try:
        runs = gather_runs(args.dirs)
    except FileNotFoundError as err:
        raise SystemExit(f"error: {err}") from None
    if "best" not in runs or runs["best"].isna().all():
        raise SystemExit("error: no optimisation runs (with a best and a trace) to export")
    traces, out = gather_traces(runs), args.out or args.dirs[0] / FOLDER
    try:  # a new --out's folders are made, as a user expects; one that cannot be is one line
        out.parent.mkdir(parents=True, exist_ok=True)
        out = export(runs, traces, out, instance_columns(runs, group_keys(runs)))
    except OSError as err:
        raise SystemExit(
            f"error: cannot write {out}: {err.strerror or err} ({err.filename or out})"
        ) from None
    print(f"IOHprofiler data -> {out} (and {out}.zip, for IOHanalyzer)")


if __name__ == "__main__":
    main()
