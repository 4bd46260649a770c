"""The calendar puzzle: seed boards, solution counts, valid fillings, bad dates, backends agree."""

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from core.errors import InputError
from experiments.tasks.exact import Exact
from heuristics import exact_backends
from puzzles.calendar import Calendar, Day, heatmap, parse_date, year_pivot
from tests.oracles.exact_solve import solve
from tests.oracles.packing_check import check_packing


def test_classic_board_is_the_seeds_area_mask(classic):
    """Seed 000's AREA: months in rows 0-1, columns 0-5; days 1-31 from row 2, seven a row."""
    cells = {tuple(c) for c in classic.packing.board.cells}
    assert len(cells) == 43 and sum(p.size for p in classic.packing.pieces) == 41
    for month in range(1, 13):
        r, c = divmod(month - 1, 6)
        assert (
            classic.labels[_index(classic, (r, c))]
            == ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][month - 1]
        )
    for day in range(1, 32):
        r, c = divmod(day - 1, 7)
        assert classic.labels[_index(classic, (r + 2, c))] == str(day)


def _index(cal, cell):
    """Index of a (row, col) cell in the calendar's board."""
    return [tuple(c) for c in cal.packing.board.cells].index(cell)


@pytest.mark.parametrize("date, solutions", [("01-01", 64), ("10-06", 7), ("01-25", 216), ("02-29", 64)])
def test_solution_counts_of_some_dates(classic, date, solutions):
    """January 1st has 64 solutions (pieces turned and flipped), as the issue states; the others
    have no outside source: the independent placement model of test_calendar_oracle.py (seed 000's
    own BLOCKS, counted by the exact-cover package) finds the same numbers."""
    assert exact_backends.count(classic.cover(parse_date(date))) == solutions


def test_every_solution_is_a_valid_filling_that_shows_the_date(classic):
    for date in ("01-01", "10-06", "12-31"):
        day = parse_date(date)
        solutions = list(solve(classic.packing, classic.cover(day)))
        assert len(solutions) == exact_backends.count(classic.cover(day)) > 0
        for owner in solutions:
            _check(classic, owner, day)


def _check(cal, owner, day):
    """Validate a filling independently; its open cells must carry the date's labels."""
    cells = cal.packing.board.cells
    placed = [(p, cells[owner == p]) for p in range(len(cal.packing.pieces))]
    open_ = cells[owner < 0]
    check_packing(cells, [p.cells for p in cal.packing.pieces], placed, mirror=True, open_cells=open_)
    labels = sorted(cal.labels[i] for i in np.flatnonzero(owner < 0))
    expected = day.labels() if cal.weekdays else day.labels()[:2]
    assert labels == sorted(expected)


@pytest.mark.slow
def test_the_whole_leap_year(classic):
    """7 (fewest), 216 (most) and 24,405 (in all) over 2024: the engine's figures, matched date by
    date by the independent oracle in test_calendar_oracle.py."""
    table, _ = Exact(draw=0).table(Calendar(year=2024))
    assert len(table) == 366 and ((table.month == 2) & (table.day == 29)).any()
    assert table.solutions.min() == 7 and table.solutions.max() == 216
    assert table.solutions.sum() == 24405
    pivot = year_pivot(table)
    assert pivot.shape == (12, 31) and pivot.loc["Jan", 1] == 64
    assert pd.isna(pivot.loc["Feb", 30])
    assert heatmap(table).axes


# Seed 004's example solution, with the three open cells it leaves (Aug, 1, Tue) as '.';
# its digits are the seed's piece numbers 0-9 (ids 1-10 here); '-' is off the board.
SEED_004_EXAMPLE = ["888333-", "8.3399-", ".440099", "7400021", "7462221", "7462111", "76665.5", "----555"]


def test_weekday_board_holds_the_seeds_own_example(weekday):
    """The seed's example grid is among the solutions of its date. The count 2,086 is the engine's,
    matched by the independent oracle in test_calendar_oracle.py (the seed itself says only
    "1000+ or even 2000+ a day")."""
    expected = np.array([[int(ch) + 1 if ch.isdigit() else 0 for ch in row] for row in SEED_004_EXAMPLE])
    day = parse_date("2023-08-01")
    assert day == Day(8, 1, 2)  # a Tuesday
    solutions = solve(weekday.packing, weekday.cover(day))
    grids = [weekday.packing.grid(owner) for owner in solutions]
    assert len(grids) == 2086
    assert any(np.array_equal(g, expected) for g in grids)
    for owner in solve(weekday.packing, weekday.cover(day), limit=20):
        _check(weekday, owner, day)


def test_weekday_board_counts_up_to_k(weekday):
    """ "Up to k" stops at k and never reports more than there are: min(k, full count), also for a k
    above the full count; the solutions it finds are distinct and valid (a stub returning k fails)."""
    day = parse_date("2023-08-01")  # seed 004's example: 2,086 solutions (test_calendar_oracle.py)
    model = weekday.cover(day)
    full = exact_backends.count(model)
    assert full == 2086
    for k in (1, 50, full - 1, full, full + 1, 10 * full):
        assert exact_backends.count(model, limit=k) == min(k, full)
    found = list(solve(weekday.packing, model, limit=50))
    assert len({owner.tobytes() for owner in found}) == 50
    for owner in found:
        _check(weekday, owner, day)


@pytest.mark.slow
def test_weekday_table_counts_up_to_k(weekday):
    """The per-weekday rows of one date, capped at k: min(k, that weekday's full count)."""
    days = list(weekday.all_weekdays([Day(8, 1)]))
    full = [exact_backends.count(weekday.cover(d)) for d in days]
    k = sorted(full)[3]  # a cap some weekdays reach and others do not
    table, _ = Exact(limit=k, draw=0).table(weekday, [weekday.case(d) for d in days])
    rows = table.to_dict("records")
    assert [r["weekday"] for r in rows] == ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    assert [r["solutions"] for r in rows] == [min(k, f) for f in full]
    assert len(set(full)) > 1 and any(f < k for f in full)


@pytest.mark.slow
@pytest.mark.parametrize("date", ["10-06", "01-01", "12-25"])
def test_cpsat_and_algorithm_x_find_the_same_solutions(classic, date):
    """The same set of solutions from both backends on three dates; the counts themselves are
    checked in test_calendar_oracle.py."""
    pytest.importorskip("ortools", reason="the 'exact' extra is not installed")
    problem = classic.cover(parse_date(date))
    ours = sorted(tuple(s) for s in exact_backends.solutions(problem))
    theirs = sorted(tuple(s) for s in exact_backends.solutions(problem, "cpsat"))
    assert ours == theirs and len(ours) > 0


@pytest.mark.slow
def test_ilp_agrees_on_the_date_with_fewest_solutions(classic):
    pytest.importorskip("pulp", reason="the 'exact' extra is not installed")
    problem = classic.cover(parse_date("10-06"))
    assert exact_backends.count(problem, "ilp") == 7 == exact_backends.count(problem)


def test_parse_date_forms():
    assert parse_date("2026-11-21") == Day(11, 21, 6)  # a Saturday
    assert parse_date("02-29") == Day(2, 29, None)
    assert parse_date("11-21", weekday="sat") == Day(11, 21, 6)
    assert parse_date(dt.date(2024, 2, 29)) == Day(2, 29, 4)
    today = dt.date.today()
    assert parse_date() == Day(today.month, today.day, today.isoweekday() % 7)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: parse_date("02-30"), "date '02-30': Feb has days 1-29 in 2024, not 30"),
        (lambda: parse_date("2026-02-29"), "date '2026-02-29': Feb has days 1-28 in 2026, not 29"),
        (lambda: parse_date("13-01"), "date '13-01': there is no month 13; months are 1-12"),
        (lambda: parse_date("2026-13-01"), "date '2026-13-01': there is no month 13; months are 1-12"),
        (lambda: parse_date("04-31"), "date '04-31': Apr has days 1-30, not 31"),
        (lambda: parse_date("tomorrow"), "date 'tomorrow' is not YYYY-MM-DD or MM-DD (e.g. 2026-11-21)"),
        (
            lambda: parse_date("11-21", weekday="Funday"),
            "weekday 'Funday' is not one of Sun, Mon, Tue, Wed, Thu, Fri, Sat (or 0-6, Sun=0)",
        ),
        (
            lambda: Calendar("hexagonal"),
            "unknown calendar board 'hexagonal'; choose one of: classic, weekday",
        ),
        (
            lambda: Calendar("weekday").cover(Day(1, 1)),
            "the weekday board needs a weekday: give a full date (YYYY-MM-DD) or a weekday",
        ),
        (
            lambda: exact_backends.count(Calendar().cover(Day(1, 1)), "gurobi"),
            "unknown exact backend 'gurobi'; choose one of: algorithm_x, ilp, cpsat",
        ),
    ],
)
def test_bad_input_ends_with_one_clear_line(make, message):
    """The whole line a user reads."""
    with pytest.raises(InputError) as err:
        make()
    assert str(err.value) == message


def test_drawing_labels_every_cell(classic):
    day = parse_date("2026-11-21")
    owner = next(solve(classic.packing, classic.cover(day)))
    fig = classic.draw(owner, day)
    texts = {t.get_text() for t in fig.axes[0].texts}
    assert {"Jan", "Nov", "1", "21", "31"} <= texts
    assert fig.axes[0].get_title() == "Nov 21 (Sat)"
