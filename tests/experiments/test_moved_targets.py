"""Old run folders still report and reproduce (issue 57): a run's config.yaml names its classes by the
path they had when it ran, and the study tasks moved (experiments.tasks.colour_sweep -> studies/...).
experiments/build.py `MOVED` maps an old path to the new one where a config's `_target_` is built
(`build`) or read for its traits and report hook (`named_class`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from hydra.utils import get_class

from experiments.build import MOVED, current_target, named_class
from tests.experiments.test_sweeps import app

RUNS = {  # a study's task -> a quick run of it, and the line its report prints
    "colour_sweep": (
        ["puzzle=edge_matching", "puzzle.n=5", "optimizer=greedy", "task.colours=[3,6]"],
        "1 run(s), a colour sweep: its points and methods per colour count",
    ),
    "hardness_peak": (
        [
            "puzzle=eternity2_like",
            "puzzle.n=5",
            "task.colours=[2,4]",
            "task.max_nodes=2000",
            "task.count_nodes=2000",
        ],
        "1 run(s), a hardness study: its boards per size and colour count",
    ),
}


def test_each_moved_target_is_gone_and_names_the_class_now_where_it_moved():
    for old, new in MOVED.items():
        with pytest.raises(Exception, match="No module named"):
            get_class(old)  # still importable: the entry is stale
        assert named_class({"_target_": old}) is get_class(new) is get_class(current_target(old))
    assert current_target("heuristics.sa.SA") == "heuristics.sa.SA"


@pytest.fixture(scope="module", params=sorted(RUNS))
def old_run(request, tmp_path_factory) -> tuple[str, Path, Path]:
    """(task, a run made now, the same run as an old folder: its config.yaml's task `_target_` rewritten
    to the class's old path)."""
    task = request.param
    base = tmp_path_factory.mktemp(task)
    proc = app(f"task={task}", *RUNS[task][0], "progress=false", f"hydra.run.dir={base / 'now' / 'run'}")
    assert proc.returncode == 0, proc.stderr
    shutil.copytree(base / "now", base / "old")
    config = base / "old" / "run" / "config.yaml"
    new = next(n for n in MOVED.values() if n.startswith(f"studies.{task}."))
    old = next(o for o, n in MOVED.items() if n == new)
    text = config.read_text()
    assert f"_target_: {new}" in text
    config.write_text(text.replace(f"_target_: {new}", f"_target_: {old}"))
    return task, base / "now", base / "old"


@pytest.mark.slow  # runs the app several times: the longer checks
def test_an_old_run_folder_reports_as_a_new_one_does(old_run):
    task, now, old = old_run
    for folder in (now, old):
        proc = app(str(folder), module="experiments.report")
        assert proc.returncode == 0, proc.stderr
        assert RUNS[task][1] in proc.stdout.splitlines(), proc.stdout
    table = f"{task}_table.parquet"  # the study's own table, from its report hook
    timing = ["seconds", "cpu_seconds", "probe_seconds", "count_seconds"]
    made, reported = (pd.read_parquet(f / table).drop(columns=timing, errors="ignore") for f in (now, old))
    assert len(made) == 2 and made.equals(reported)
    assert (old / "report.md").read_text().count("\n## ") == (now / "report.md").read_text().count("\n## ")


@pytest.mark.slow  # runs the app several times: the longer checks
def test_an_old_run_folder_reproduces(old_run):
    task, _, old = old_run
    proc = app(str(old / "run"), module="experiments.reproduce")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (
        proc.stdout.startswith(f"reproduced: {old / 'run'} (every table the same")
        and f"{task}.parquet" in proc.stdout
    )
