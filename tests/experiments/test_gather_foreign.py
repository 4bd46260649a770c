"""What a gathered table takes in (issue 31): a `run.parquet` that is not a puzzlelab run record is
ignored with one line, never counted as a (failed) run; a finished optimisation whose trace is missing or
damaged is left out as incomplete, so the report's curves and its summary count the same runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from experiments.records import damage
from tests.experiments.test_resume_damaged import cut
from tests.experiments.test_sweeps import app, finished

# the slow tier (--dist loadgroup) runs this file on one worker: its fixtures, built once
pytestmark = pytest.mark.xdist_group("gather_foreign")

SMALL = ["-m", "hydra/launcher=basic", "optimizer=sa", "seed=0,1,2", "budget.evaluations=300"]


@pytest.fixture(scope="module")
def small_sweep(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("small") / "sweep"
    proc = app(*SMALL, f"hydra.sweep.dir={out}")
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture
def sweep(small_sweep, tmp_path) -> Path:
    """A copy of the small sweep to change."""
    return Path(shutil.copytree(small_sweep, tmp_path / "sweep"))


def report(sweep_dir: Path):
    proc = app(str(sweep_dir), module="experiments.report")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc


@pytest.mark.slow
def test_a_foreign_run_parquet_is_ignored_not_counted(sweep):
    other = sweep / "someone_else" / "run.parquet"  # any table that happens to be named run.parquet
    other.parent.mkdir()
    pd.DataFrame({"x": [1, 2, 3], "y": ["a", "b", "c"]}).to_parquet(other)
    one_row = sweep / "notes" / "run.parquet"  # one row, a `status` but no `task` or `seed`
    one_row.parent.mkdir()
    pd.DataFrame({"status": ["ok"], "best": [3.0]}).to_parquet(one_row)

    proc = report(sweep)

    lines = [line for line in proc.stderr.splitlines() if line.startswith("ignored")]
    assert lines == [
        f"ignored, not a puzzlelab run record: {one_row.resolve()} (no column 'task', 'seed' of a run record "
        "(task, status, seed))",
        f"ignored, not a puzzlelab run record: {other.resolve()} (no column 'task', 'status', 'seed' of a run "
        "record (task, status, seed))",
    ]
    runs = pd.read_csv(sweep / "runs.csv")
    assert len(runs) == 3 and (runs["status"] == "ok").all()
    assert "failed" not in proc.stdout and "failed" not in (sweep / "report.md").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("how", ["deleted", "cut"])
def test_a_run_without_its_trace_is_left_out_as_incomplete(sweep, how):
    victim = sorted(finished(sweep))[0]
    trace = victim / "trace.parquet"
    if how == "deleted":
        trace.unlink()
        expected = f"left out, incomplete record: {victim}: trace.parquet is missing (re-run its sweep to run it again)"
    else:
        cut(trace)
        expected = f"left out, damaged record: {victim}: {damage(victim)} (re-run its sweep to run it again)"
        assert expected.split(": ", 2)[2].startswith("trace.parquet is unreadable")

    proc = report(sweep)

    left = [line for line in proc.stderr.splitlines() if line.startswith("left out")]
    assert left == [expected]
    runs = pd.read_csv(sweep / "runs.csv")
    assert len(runs) == 2 and str(victim) not in set(runs["run_dir"])
    summary = pd.read_csv(sweep / "summary.csv")
    assert summary["n"].tolist() == [2]
    traces = pd.read_parquet(sweep / "traces.parquet")
    assert set(traces["run_id"]) == set(runs["run_id"])  # the curves count the runs the summary counts


@pytest.mark.slow
def test_a_failed_run_needs_no_trace(sweep):
    """A recorded failure has no trace and is still counted (as failed), not left out."""
    victim = sorted(finished(sweep))[0]
    row = pd.read_parquet(victim / "run.parquet").assign(
        status="failed", error="RuntimeError: boom", best=None
    )
    row.to_parquet(victim / "run.parquet")
    (victim / "trace.parquet").unlink()

    proc = report(sweep)

    assert "left out" not in proc.stderr
    runs = pd.read_csv(sweep / "runs.csv")
    assert len(runs) == 3 and (runs["status"] == "failed").sum() == 1
