"""The exact-solver experiments through the Hydra app: what a puzzle fan types, what lands on disk."""

import subprocess
import sys

import pandas as pd
import pytest

from tests import ROOT


def run_app(*overrides: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "experiments.run", *overrides, "progress=false"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_solve_one_date(tmp_path):
    """Nov 21: 104 solutions, the engine's count, matched by the independent oracle in
    test_calendar_oracle.py."""
    proc = run_app("+experiment=calendar", "date=2026-11-21", f"hydra.run.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Nov 21 (Sat): 104 solutions (classic board)")
    assert "Nov" in proc.stdout and "21" in proc.stdout
    row = pd.read_parquet(tmp_path / "run.parquet").iloc[0]
    assert (row["month"], row["day"], row["solutions"]) == (11, 21, 104)
    assert (tmp_path / "solution_1.png").stat().st_size > 0


@pytest.mark.slow
def test_every_date_of_the_year(tmp_path):
    """Jan 1 = 64 (the figure the issue gives); the whole year is checked date by date against the
    independent oracle in test_calendar_oracle.py."""
    proc = run_app("+experiment=calendar_all_dates", f"hydra.run.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(tmp_path / "calendar_counts.csv")
    assert (
        list(table.columns) == ["month", "day", "solutions", "seconds", "cpu_seconds"] and len(table) == 366
    )
    assert (table["seconds"] > 0).all() and (table["cpu_seconds"] >= 0).all()
    assert table.query("month == 1 and day == 1").solutions.item() == 64
    assert "<table" in (tmp_path / "calendar_counts.html").read_text()
    assert (tmp_path / "calendar_heatmap.png").stat().st_size > 0


@pytest.mark.slow
def test_weekday_dates_up_to_k(tmp_path):
    """The weekday board's full table, every date of 2024 with each weekday (2,562 puzzles),
    finding up to K = 98 solutions each (~30 s; all of them take ~8 minutes). The fewest of any
    puzzle is 97, on Apr 6 with Mon open (checked against the independent oracle in
    test_calendar_oracle.py), so that row shows its full count and every other row K: a table that
    just wrote K everywhere would fail."""
    proc = run_app("+experiment=calendar_weekday_all_dates", "task.limit=98", f"hydra.run.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(tmp_path / "calendar_counts.csv")
    assert list(table.columns) == ["month", "day", "weekday", "solutions", "seconds", "cpu_seconds"]
    assert len(table) == 366 * 7
    below = table[table.solutions != 98]
    assert below[["month", "day", "weekday", "solutions"]].values.tolist() == [[4, 6, "Mon", 97]]


@pytest.mark.slow
def test_galakub_and_rectangles(tmp_path):
    proc = run_app("+experiment=galakub", f"hydra.run.dir={tmp_path / 'g'}")
    assert proc.returncode == 0, proc.stderr
    assert "576 raw, 8 distinct, 1 up to rotation" in proc.stdout
    proc = run_app(
        "+experiment=pentomino_rectangles",
        "puzzle.boards=[3x20,8x8-centre]",
        f"hydra.run.dir={tmp_path / 'r'}",
    )
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(tmp_path / "r" / "rectangles.csv")
    assert table[["raw", "up_to_symmetry"]].values.tolist() == [[8, 2], [520, 65]]
    assert pd.read_parquet(tmp_path / "r" / "run.parquet")["agrees_with_knuth"].item()


@pytest.mark.slow
@pytest.mark.parametrize(
    "overrides, line",
    [
        (
            ["+experiment=calendar", "date=2026-02-30"],
            "error: date '2026-02-30': Feb has days 1-28 in 2026, not 30",
        ),
        (
            ["+experiment=calendar", "date=13-01"],
            "error: date '13-01': there is no month 13; months are 1-12",
        ),
        (
            ["+experiment=calendar", "puzzle.board=hexagonal"],
            "error: unknown calendar board 'hexagonal'; choose one of: classic, weekday",
        ),
        (
            ["+experiment=pentomino_rectangles", "puzzle.boards=[7x9]"],
            "error: unknown board '7x9'; choose one of: 3x20, 4x15, 5x12, 6x10, 8x8-centre",
        ),
    ],
)
def test_bad_input_ends_with_one_clear_line(tmp_path, overrides, line):
    proc = run_app(*overrides, f"hydra.run.dir={tmp_path}")
    assert proc.returncode == 2
    assert proc.stderr.strip() == line
