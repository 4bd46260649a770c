"""One SQL query over every run record (DuckDB over the Parquet files)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from core.errors import InputError
from experiments.query import query
from tests.conftest import outside_app

BEST_RUN_PER_OPTIMISER = """
SELECT puzzle, optimizer, count(*) AS runs, min(best) AS best, median(best) AS median,
       arg_min(run_dir, best) AS best_run
FROM runs WHERE status = 'ok' GROUP BY ALL ORDER BY puzzle, best, optimizer
"""

HALF_WAY = """
SELECT r.optimizer, r."puzzle.instance_seed" AS instance, median(t.best) AS median_best_by_200
FROM runs r JOIN traces t USING (run_dir)
WHERE t.evaluations <= 200 AND t.best = (SELECT min(best) FROM traces u
                                         WHERE u.run_dir = t.run_dir AND u.evaluations <= 200)
GROUP BY ALL ORDER BY ALL
"""


def test_query_over_all_runs_agrees_with_the_gathered_table(outside_sweep):
    root = outside_sweep.parent
    runs = pd.read_parquet(outside_sweep / "runs.parquet")
    got = query(BEST_RUN_PER_OPTIMISER, root).set_index("optimizer")
    by = runs.groupby("optimizer")["best"]
    assert got["runs"].to_dict() == {"walk": 4, "lahc": 4}
    assert got["best"].to_dict() == by.min().to_dict() and got["median"].to_dict() == by.median().to_dict()
    for optimizer, run_dir in got["best_run"].items():
        assert (
            runs.loc[runs["run_dir"].str.endswith(run_dir.removeprefix(str(root))), "best"].iloc[0]
            == by.min()[optimizer]
        )
    assert len(query(HALF_WAY, root)) == 4  # two optimisers x two instances, from the traces view
    traces = query("SELECT count(*) AS n FROM traces", root)["n"].iloc[0]
    assert traces == len(pd.read_parquet(outside_sweep / "traces.parquet"))


def test_query_errors_are_one_line(outside_sweep, tmp_path):
    with pytest.raises(InputError, match="^no run records"):
        query("SELECT 1", tmp_path)
    proc = outside_app(outside_sweep.parent, "experiments.query", "SELECT nope FROM runs", "--root", ".")
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1
    assert proc.stderr.startswith("error: the query failed: Binder Error")


def test_a_damaged_record_is_left_out_in_one_line_and_the_query_answered(outside_sweep, tmp_path):
    """An emptied run.parquet, a cut-off one, a foreign run.parquet and a run whose trace is gone: each
    left out with the line gather gives, no traceback, and the query answered over the rest."""
    tree = Path(shutil.copytree(outside_sweep, tmp_path / "sweep"))
    emptied, cut_off, traceless, *whole = sorted(p.parent for p in tree.rglob("run.parquet"))
    (emptied / "run.parquet").write_bytes(b"")
    data = (cut_off / "run.parquet").read_bytes()
    (cut_off / "run.parquet").write_bytes(data[: len(data) // 2])
    (traceless / "trace.parquet").unlink()
    foreign = tree / "elsewhere" / "run.parquet"
    foreign.parent.mkdir()
    pd.DataFrame({"x": [1.0]}).to_parquet(foreign)

    proc = outside_app(tmp_path, "experiments.query", "SELECT count(*) AS n FROM runs", "--root", "sweep")

    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 4
    rel = {d: Path("sweep") / d.relative_to(tree) for d in (emptied, cut_off, traceless)}
    assert (
        f"left out, damaged record: {rel[emptied]}: run.parquet is empty (re-run its sweep to run it again)"
        in lines
    )
    assert any(
        line.startswith(f"left out, damaged record: {rel[cut_off]}: run.parquet is unreadable")
        for line in lines
    )
    assert (
        f"left out, incomplete record: {rel[traceless]}: trace.parquet is missing (re-run its sweep to run it again)"
        in lines
    )
    assert any(
        line.startswith(f"ignored, not a puzzlelab run record: {Path('sweep/elsewhere/run.parquet')}")
        for line in lines
    )
    assert proc.stdout.split() == ["n", str(len(whole))]
    # the traces view holds only the kept runs' traces
    traced = query("SELECT count(DISTINCT run_dir) AS n FROM traces", tree)["n"].iloc[0]
    assert traced == len(whole)


def test_every_record_damaged_is_one_line(tmp_path):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "run.parquet").write_bytes(b"")
    with pytest.raises(InputError, match="^no whole run records"):
        query("SELECT 1", tmp_path)
