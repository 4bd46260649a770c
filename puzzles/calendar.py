"""The A-Puzzle-A-Day calendar puzzle: place every piece so that only today's cells stay open.

Two boards, both 7 columns wide:
- "classic" (seed 000): 12 month cells in two rows of six, then the days 1-31 in rows of seven;
  8 pieces (seven pentominoes and a 2x3 rectangle), which may be turned and flipped.
- "weekday" (seed 004): the same, then the weekdays Sun-Wed after day 31 and Thu-Sat in a last row;
  10 pieces (seven pentominoes and three tetrominoes).

A date is a set of open cells; the pieces must cover every other cell exactly once. The model is
built once per board (every placement on the whole board), and each date keeps the placements
that avoid its cells. `Calendar` is a `core.faces.ExactPuzzle`: one date, or every date of a year, is
solved by the generic exact task (experiments/tasks/exact.py) with a backend from heuristics/
(the exact-cover engine, or the seeds' ILP and CP-SAT solvers).
"""

from __future__ import annotations

import calendar as _cal
import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import InputError
from core.exact import CaseAnswer, CoverModel, ExactReport
from core.faces import Face
from puzzles.packing import Board, Packing
from puzzles.pieces import normalise, read_pieces

if TYPE_CHECKING:
    import pandas as pd

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
WEEKDAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")  # seed 004's order: 0 = Sunday
LEAP_YEAR = 2024
_DAYS = tuple(" ".join(str(d) for d in range(r, min(r + 7, 32))) for r in range(1, 32, 7))
_CLASSIC = ("Jan Feb Mar Apr May Jun .", "Jul Aug Sep Oct Nov Dec .", *_DAYS[:4], _DAYS[4] + " . . . .")
_WEEKDAY = (*_CLASSIC[:6], _DAYS[4] + " Sun Mon Tue Wed", ". . . . Thu Fri Sat")
BOARDS = {"classic": (_CLASSIC, "calendar"), "weekday": (_WEEKDAY, "calendar_weekday")}


@dataclass(frozen=True)
class Day:
    """A calendar date to show: month 1-12, day 1-31, weekday 0-6 (Sunday first) or None."""

    month: int
    day: int
    weekday: int | None = None

    def labels(self) -> list[str]:
        """The labels of the cells this date leaves open."""
        labels = [MONTHS[self.month - 1], str(self.day)]
        return labels + ([WEEKDAYS[self.weekday]] if self.weekday is not None else [])

    def __str__(self) -> str:
        text = f"{MONTHS[self.month - 1]} {self.day}"
        return text + (f" ({WEEKDAYS[self.weekday]})" if self.weekday is not None else "")


def parse_date(value: str | dt.date | None = None, weekday: str | int | None = None) -> Day:
    """A Day from 'YYYY-MM-DD', 'MM-DD', a date, or None (today); the weekday follows the year."""
    if value is None:
        value = dt.date.today()
    if isinstance(value, dt.date):
        return Day(value.month, value.day, (value.isoweekday() % 7) if weekday is None else _weekday(weekday))
    parts = str(value).strip().split("-")
    if len(parts) not in (2, 3) or not all(p.isdigit() for p in parts):
        raise InputError(f"date {value!r} is not YYYY-MM-DD or MM-DD (e.g. 2026-11-21)")
    *year, month, day = (int(p) for p in parts)
    _check_day(month, day, year[0] if year else LEAP_YEAR, value)
    if year and weekday is None:
        return parse_date(dt.date(year[0], month, day))
    return Day(month, day, None if weekday is None else _weekday(weekday))


def _check_day(month: int, day: int, year: int, text) -> None:
    """Raise one clear line if month/day is not a date of `year`."""
    if not 1 <= month <= 12:
        raise InputError(f"date {text!r}: there is no month {month}; months are 1-12")
    last = _cal.monthrange(year, month)[1]
    if not 1 <= day <= last:
        raise InputError(
            f"date {text!r}: {MONTHS[month - 1]} has days 1-{last}"
            + (f" in {year}" if month == 2 else "")
            + f", not {day}"
        )


def _weekday(value: str | int) -> int:
    """A weekday number 0-6 (Sunday first) from a number or a name such as 'Sat'."""
    names = [w.lower() for w in WEEKDAYS]
    text = str(value).strip().lower()[:3]
    if text in names:
        return names.index(text)
    if text.isdigit() and 0 <= int(text) <= 6:
        return int(text)
    raise InputError(f"weekday {value!r} is not one of {', '.join(WEEKDAYS)} (or 0-6, Sun=0)")


def year_days(year: int = LEAP_YEAR) -> list[Day]:
    """Every date of a year, with its weekday."""
    if not dt.MINYEAR <= year <= dt.MAXYEAR:
        raise InputError(f"puzzle.year must be between {dt.MINYEAR} and {dt.MAXYEAR}, got {year}")
    first = dt.date(year, 1, 1)
    days = (first + dt.timedelta(n) for n in range(366 if _cal.isleap(year) else 365))
    return [Day(d.month, d.day, d.isoweekday() % 7) for d in days]


class Calendar:
    """The calendar puzzle as an exact puzzle: one date, or every date of a year.

    Args:
        board: "classic" (seed 000, 8 pieces) or "weekday" (seed 004, 10 pieces).
        date: the date to solve, YYYY-MM-DD or MM-DD; None: today.
        weekday: the weekday of a MM-DD date on the weekday board (Sun .. Sat, or 0-6, Sun = 0).
        year: solve every date of this year instead of one date (on the weekday board, every date
            with each of the seven weekdays).
        reflections: may pieces be flipped over (both seeds: yes)?
    """

    name = "calendar"
    offers = frozenset({Face.EXACT})
    needs_solutions = False  # a date's figure is its solution count

    def __init__(
        self,
        board: str = "classic",
        date: str | None = None,
        weekday: str | None = None,
        year: int | None = None,
        reflections: bool = True,
    ):
        if board not in BOARDS:
            raise InputError(f"unknown calendar board {board!r}; choose one of: {', '.join(BOARDS)}")
        if year is not None and date is not None:
            raise InputError("give puzzle.date (one date) or puzzle.year (every date), not both")
        rows, pieces = BOARDS[board]
        self.board, self.year = board, year
        self.layout = [row.split() for row in rows]
        cells = [(r, c) for r, row in enumerate(self.layout) for c, t in enumerate(row) if t != "."]
        self.labels = [self.layout[r][c] for r, c in cells]
        self.packing = Packing(Board(normalise(np.array(cells))), read_pieces(pieces), reflections)
        self.weekdays = board == "weekday"
        self.days = self._days(date, weekday)

    def _days(self, date: str | None, weekday: str | None) -> list[Day]:
        """The dates a run solves: the one date, or every date of the year (with each weekday)."""
        if self.year is None:
            day = parse_date(date, weekday)
            self.open_cells(day)  # the weekday board without a weekday fails here, not mid-run
            return [day]
        days = year_days(self.year)
        return list(self.all_weekdays(days)) if self.weekdays else days

    def open_cells(self, day: Day) -> list[int]:
        """The board cells a date leaves uncovered."""
        self.weekday_name(day)  # the weekday board needs a weekday
        labels = day.labels() if self.weekdays else day.labels()[:2]
        return [self.labels.index(t) for t in labels]

    def weekday_name(self, day: Day) -> str | None:
        """The date's weekday on the weekday board, which needs one; None on the classic board."""
        if not self.weekdays:
            return None
        if day.weekday is None:
            raise InputError("the weekday board needs a weekday: give a full date (YYYY-MM-DD) or a weekday")
        return WEEKDAYS[day.weekday]

    def cover(self, day: Day) -> CoverModel:
        """The exact-cover model of one date, for a solver in heuristics/."""
        return self.packing.cover(self.open_cells(day))

    def all_weekdays(self, days: Iterable[Day]) -> Iterator[Day]:
        """Each date with each of the seven weekdays (the weekday board's full table)."""
        for day in days:
            for w in range(7):
                yield Day(day.month, day.day, w)

    def case(self, day: Day) -> dict[str, Any]:
        """A date as a case key: month and day, and the weekday's name on the weekday board."""
        key = {"month": day.month, "day": day.day}
        return {**key, "weekday": self.weekday_name(day)} if self.weekdays else key

    def cases(self) -> list[dict[str, Any]]:
        return [self.case(day) for day in self.days]

    def model(self, case: dict[str, Any]) -> CoverModel:
        weekday = WEEKDAYS.index(case["weekday"]) if "weekday" in case else None
        return self.cover(Day(case["month"], case["day"], weekday))

    def figures(self, answer: CaseAnswer) -> dict[str, Any]:
        return {"solutions": answer.count}

    def report(self, table: pd.DataFrame, answers: list[CaseAnswer]) -> ExactReport:
        """One date: its count, its solutions drawn; a year: the table, its HTML and a heatmap."""
        return self._date_report(answers[0]) if self.year is None else self._year_report(table, answers)

    def _date_report(self, answer: CaseAnswer) -> ExactReport:
        """A date's count and pictures, and its first solution as text."""
        day, total = self.days[0], answer.count
        owners = [self.packing.owners(s) for s in answer.solutions]
        of = f" of {total}" if total is not None else ""
        files = {
            f"solution_{k}.png": self.draw(owner, day, title=f"{day}: solution {k}{of}")
            for k, owner in enumerate(owners, 1)
        }
        solved = bool(owners) or bool(total)
        text = (
            f"{day}: {total if total is not None else 'some'} solutions ({self.board} board)"
            if solved
            else f"{day}: no solution"
        )
        text += "".join(f"\n{self.text(owner)}" for owner in owners[:1])
        figures = {
            "month": day.month,
            "day": day.day,
            "weekday": self.weekday_name(day),
            "solutions": total,
            "solved": solved,
        }
        return ExactReport(figures, text, files)

    def _year_report(self, table: pd.DataFrame, answers: list[CaseAnswer]) -> ExactReport:
        """The year's counts: a table, a month x day page and a heatmap; min, max and total."""
        limit = answers[0].limit if answers else None
        capped = f", at most {limit} each" if limit else ""
        title = f"Calendar puzzle ({self.board}): solutions per date, {self.year}{capped}"
        heat = heatmap(
            table,
            f"{self.board} board, {self.year}: solutions per date{capped}"
            + (" (sum over weekdays)" if self.weekdays else ""),
        )
        files = {
            "calendar_counts.parquet": table,
            "calendar_counts.html": (title, year_pivot(table, by_weekday=self.weekdays)),
            "calendar_heatmap.png": heat,
        }
        counts = table.solutions
        figures = {
            "dates": len(table),
            "total_solutions": int(counts.sum()),
            "min_solutions": int(counts.min()),
            "max_solutions": int(counts.max()),
            "unsolvable_dates": int((counts == 0).sum()),
        }
        seconds = sum(a.seconds for a in answers)
        text = (
            f"{len(table)} dates, {figures['total_solutions']} solutions{capped} "
            f"(min {figures['min_solutions']}, max {figures['max_solutions']}) "
            f"in {seconds:.1f} s"
        )
        return ExactReport(figures, text, files)

    def text(self, owner: np.ndarray) -> str:
        """A filling as text: each cell shows its piece's letter, the open cells their label."""
        letters = [p.name for p in self.packing.pieces]
        grid = [["   "] * 7 for _ in self.layout]
        for (r, c), label, piece in zip(self.packing.board.cells, self.labels, owner):
            grid[r][c] = f"{letters[piece]:^3}" if piece >= 0 else f"{label:>3}"
        return "\n".join("".join(row).rstrip() for row in grid)

    def grid_labels(self) -> list[list[str]]:
        """The board's labels on its bounding box ('' off the board)."""
        return [["" if t == "." else t for t in row] + [""] * (7 - len(row)) for row in self.layout]

    def draw(self, owner: np.ndarray, day: Day, ax=None, title: str | None = None):
        """The filled board: pieces coloured, every cell labelled, the date's cells left white."""
        from puzzles.pictures import draw_grid

        grid = self.packing.grid(owner)
        fig = draw_grid(grid, ax=ax, title=title or f"{day}", labels=self.grid_labels())
        _grey_off_board(fig.axes[0] if ax is None else ax, self.packing.board.occupancy())
        return fig


def _grey_off_board(ax, occupancy: np.ndarray) -> None:
    """Hatch the cells of the bounding box that are not part of the board."""
    import matplotlib.patches as patches

    for r, c in np.argwhere(~occupancy):
        ax.add_patch(
            patches.Rectangle(
                (c - 0.5, r - 0.5), 1, 1, facecolor="white", edgecolor="0.6", hatch="///", linewidth=0
            )
        )


def year_pivot(table, by_weekday: bool = False):
    """Solutions per date as a month x day table; with weekdays, one row per month and weekday
    (by_weekday) or the sum over the weekdays."""
    index = ["month", "weekday"] if by_weekday and "weekday" in table else "month"
    pivot = table.pivot_table(index=index, columns="day", values="solutions", aggfunc="sum")
    pivot = pivot.astype("Int64")  # whole numbers; dates that do not exist stay empty
    if by_weekday and "weekday" in table:
        order = {w: i for i, w in enumerate(WEEKDAYS)}
        pivot = pivot.sort_index(key=lambda k: k.map(order) if k.name == "weekday" else k)
        pivot.index = [f"{MONTHS[m - 1]} {w}" for m, w in pivot.index]
    else:
        pivot.index = [MONTHS[m - 1] for m in pivot.index]
    return pivot


def heatmap(table, title: str = "solutions per date"):
    """A month x day heatmap of solution counts, each cell annotated."""
    import matplotlib.pyplot as plt

    pivot = year_pivot(table)
    values = pivot.to_numpy(dtype=float, na_value=np.nan)
    fig, ax = plt.subplots(figsize=(16, 5))
    image = ax.imshow(np.ma.masked_invalid(values), cmap="viridis", aspect="auto")
    for (r, c), v in np.ndenumerate(values):
        if not np.isnan(v):
            ax.text(c, r, f"{int(v)}", ha="center", va="center", fontsize=6, color="white")
    ax.set_xticks(range(values.shape[1]), [str(d) for d in pivot.columns], fontsize=7)
    ax.set_yticks(range(values.shape[0]), list(pivot.index))
    ax.set_title(title)
    fig.colorbar(image, ax=ax, fraction=0.02)
    return fig
