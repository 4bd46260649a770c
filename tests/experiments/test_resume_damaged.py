"""Resume survives damaged records: an emptied, cut-off or deleted run.parquet (or a cut-off trace),
as a shared file system or a killed node leaves them, is reported in one line and its run run again."""

import pandas as pd
import pytest

from experiments.records import damage, is_complete
from tests.experiments.test_sweeps import SWEEP, app, finished

KEYS = ["optimizer", "seed"]


def cut(path, keep=0.5):
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])


@pytest.mark.slow
def test_damaged_records_are_reported_and_run_again(tmp_path):
    first = app(*SWEEP, f"hydra.sweep.dir={tmp_path}")
    assert first.returncode == 0, first.stderr
    before = pd.read_csv(tmp_path / "runs.csv").set_index(KEYS).sort_index()
    dirs = sorted(finished(tmp_path))
    assert len(dirs) == 6
    emptied, truncated, deleted, trace_cut, *whole = dirs
    (emptied / "run.parquet").write_bytes(b"")
    cut(truncated / "run.parquet")
    (deleted / "run.parquet").unlink()
    cut(trace_cut / "trace.parquet")
    reasons = {d: damage(d) for d in (emptied, truncated, trace_cut)}
    assert reasons[emptied] == "run.parquet is empty"
    assert reasons[truncated].startswith("run.parquet is unreadable")
    assert reasons[trace_cut].startswith("trace.parquet is unreadable")
    assert damage(deleted) is None and not is_complete(deleted)
    untouched = {d: (d / "run.parquet").stat().st_mtime_ns for d in whole}

    again = app(*SWEEP, f"hydra.sweep.dir={tmp_path}")

    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    reported = [line for line in again.stderr.splitlines() if line.startswith("damaged record")]
    assert sorted(reported) == sorted(f"damaged record, run again: {d}: {why}" for d, why in reasons.items())
    assert again.stdout.count("skip (already complete)") == len(whole)
    assert all(is_complete(d) and damage(d) is None for d in dirs)
    assert {d: (d / "run.parquet").stat().st_mtime_ns for d in whole} == untouched  # not run again
    after = pd.read_csv(tmp_path / "runs.csv").set_index(KEYS).sort_index()
    assert len(after) == 6 and not after.index.duplicated().any()
    same = ["best", "evaluations", "best_genome"]
    pd.testing.assert_frame_equal(after[same], before[same])  # same seeds, same results


@pytest.mark.slow
def test_report_leaves_out_a_damaged_record_in_one_line(tmp_path):
    first = app(*SWEEP, f"hydra.sweep.dir={tmp_path}")
    assert first.returncode == 0, first.stderr
    victim = sorted(finished(tmp_path))[0]
    cut(victim / "run.parquet", keep=0.3)
    proc = app(str(tmp_path), module="experiments.report")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"left out, damaged record: {victim}: run.parquet is unreadable" in proc.stderr
    assert len(pd.read_csv(tmp_path / "runs.csv")) == 5
