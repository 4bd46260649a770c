"""The IOHprofiler export, read back by iohinspector (a reader made for that format), holds the same
traces as the run records."""

from __future__ import annotations

import json

import iohinspector
import pandas as pd
import polars as pl
import pytest


def expected(sweep) -> dict[tuple[str, int], list[list[tuple[int, float]]]]:
    """Per (algorithm, instance): each run's (evaluations, best) rows from the records, with the row ioh
    logs at the run's last evaluation."""
    runs = pd.read_parquet(sweep / "runs.parquet")
    traces = pd.read_parquet(sweep / "traces.parquet")
    found: dict[tuple[str, int], list[list[tuple[int, float]]]] = {}
    for _, run in runs.iterrows():
        rows = [
            (int(e), float(b))
            for e, b in traces.loc[traces["run_id"] == run["run_id"], ["evaluations", "best"]].to_numpy()
        ]
        if rows[-1][0] < run["evaluations"]:
            rows.append((int(run["evaluations"]), float(run["best"])))
        found.setdefault((run["optimizer"], int(run["puzzle.instance_seed"])), []).append(rows)
    return {key: sorted(value) for key, value in found.items()}


@pytest.mark.slow
def test_export_reads_back_as_the_run_records(outside_sweep):
    export = outside_sweep / "iohprofiler"
    assert (outside_sweep / "iohprofiler.zip").stat().st_size > 0
    manager = iohinspector.DataManager()
    manager.add_folder(str(export))
    overview = manager.overview.to_pandas()
    runs = pd.read_parquet(outside_sweep / "runs.parquet")
    assert len(overview) == len(runs) == 8
    assert set(overview["algorithm_name"]) == {"walk", "lahc"}
    assert set(overview["function_name"]) == {"hidden_order"} and set(overview["dimension"]) == {8}
    assert set(overview["instance"]) == {1, 2}  # the instance seeds
    assert (overview["evals"] == 400).all()  # each run's budget, which IOHanalyzer's ERT needs
    assert sorted(overview["best_y"]) == sorted(runs["best"])
    data = manager.load(monotonic=False, include_meta_data=True)
    read: dict[tuple[str, int], list[list[tuple[int, float]]]] = {}
    for (algorithm, instance, _), run in data.group_by(["algorithm_name", "instance", "data_id"]):
        rows = run.sort("evaluations").select(pl.col("evaluations").cast(int), pl.col("raw_y")).rows()
        read.setdefault((algorithm, int(instance)), []).append(rows)
    assert {key: sorted(value) for key, value in read.items()} == expected(outside_sweep)


@pytest.mark.slow
def test_export_has_the_analyzer_loggers_layout(outside_sweep):
    folder = outside_sweep / "iohprofiler" / "walk"
    meta = json.loads((folder / "IOHprofiler_f1_hidden_order.json").read_text())
    assert meta["maximization"] is False and meta["algorithm"]["name"] == "walk"
    scenario = meta["scenarios"][0]
    assert scenario["path"] == "data_f1_hidden_order/IOHprofiler_f1_DIM8.dat"
    assert [run["seed"] for run in scenario["runs"]] == [0, 1, 0, 1]  # a run attribute, per instance
    lines = (folder / scenario["path"]).read_text().splitlines()
    assert lines[0] == "evaluations raw_y" and lines.count("evaluations raw_y") == 4  # a header per run
