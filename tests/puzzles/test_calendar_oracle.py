"""The calendar's solution counts, checked against a second model that shares nothing with puzzles/.

Where each expected number comes from:
- Jan 1 = 64: the issue that asked for the calendar (a published figure for the classic puzzle).
- every other count (Oct 6 = 7, Jan 25 = 216, Feb 29 = 64, Nov 21 = 104, the leap year's
  7 / 216 / 24,405, the weekday example's 2,086) has no outside source: it is what the project's
  engine finds, and these tests make it agree with tests/oracles/calendar_oracle.py, a placement model built
  from the seeds' own piece arrays and boards and counted by the `exact-cover` PyPI package.
"""

import concurrent.futures
import datetime as dt
import multiprocessing
import os

import numpy as np
import pytest

from experiments.tasks.exact import Exact
from heuristics import exact_backends
from puzzles.calendar import Day, parse_date, year_days
from tests.oracles import calendar_oracle as oracle

pytest.importorskip("exact_cover", reason="the 'exact' extra is not installed")


def test_oracle_boards_and_pieces_are_the_seeds():
    """Seed 000: 43 cells, 8 pieces of 41 cells; seed 004: 50 cells, 7 pentominoes and 3
    tetrominoes (47 cells, "47个方块"), all distinct, its example leaving Aug, 1 and Tue open."""
    assert len(oracle.classic_board()) == 43
    assert sorted(int(np.sum(b)) for b in oracle.SEED_000_BLOCKS) == [5] * 7 + [6]
    labels, grid, pieces = oracle.seed_004_example()
    assert len(oracle.weekday_board()) == 50 and len(grid) == 47
    assert labels == ["Aug", "1", "Tue"] and dt.date(2023, 8, 1).strftime("%a") == "Tue"
    assert sorted(int(p.sum()) for p in pieces) == [4] * 3 + [5] * 7
    shapes = {min((o.shape, o.tobytes()) for o in oracle.orientations(p)) for p in pieces}
    assert len(shapes) == 10


@pytest.mark.parametrize(
    "date, solutions", [("01-01", 64), ("10-06", 7), ("01-25", 216), ("02-29", 64), ("11-21", 104)]
)
def test_classic_counts_agree_with_the_oracle(classic, date, solutions):
    day = parse_date(date)
    engine = exact_backends.count(classic.cover(day))
    assert engine == oracle.count("classic", day.labels()) == solutions


@pytest.mark.parametrize("date, solutions", [("2023-08-01", 2086), ("2026-04-06", 97)])
def test_weekday_counts_agree_with_the_oracle(weekday, date, solutions):
    """Seed 004's example date (Tue 1 Aug 2023): 2,086. Mon 6 Apr: 97, the fewest of any weekday
    puzzle in the engine's full table (test_exact_experiments.py relies on it)."""
    day = parse_date(date)
    assert exact_backends.count(weekday.cover(day)) == oracle.count("weekday", day.labels()) == solutions


@pytest.mark.slow
def test_the_leap_year_agrees_with_the_oracle_date_by_date(classic):
    """All 366 dates of 2024: the oracle takes ~35 s of CPU (the package spends ~1 ms a solution),
    so it is spread over the machine's cores."""
    days = year_days(2024)
    table, _ = Exact(draw=0).table(classic, [classic.case(d) for d in days])
    engine = table["solutions"].tolist()
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(os.cpu_count(), mp_context=context) as pool:
        theirs = list(
            pool.map(oracle.count, ["classic"] * len(days), [d.labels()[:2] for d in days], chunksize=8)
        )
    assert engine == theirs
    assert (min(engine), max(engine), sum(engine)) == (7, 216, 24405)
    assert days[engine.index(7)] == Day(10, 6, 0) and days[engine.index(216)] == Day(1, 25, 4)
