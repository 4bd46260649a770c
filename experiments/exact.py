"""Exact answers: the puzzles' cover models (puzzles/) solved by the exact backends (heuristics/).

`solve` and `count` work on any packing; the rest builds the calendar's per-date table, Knuth's
pentomino table and the Galakub figures on them. The experiment tasks and benchmarks call these.
"""
from __future__ import annotations

import time
from typing import Iterable, Iterator

import numpy as np

from heuristics import exact_backends
from heuristics.exact_cover import ExactCover
from puzzles.calendar import WEEKDAYS, Calendar, Day
from puzzles.galakub import figures, galakub
from puzzles.packing import CoverModel, Packing
from puzzles.rectangles import KNUTH, rectangle


def solve(packing: Packing, model: CoverModel, backend: str = "algorithm_x",
          limit: int | None = None) -> Iterator[np.ndarray]:
    """Each solution (up to `limit`) as the covering piece per board cell (-1: open)."""
    for rows in exact_backends.solutions(model, backend, limit):
        yield packing.owners(rows, model)


def count(model: CoverModel, backend: str = "algorithm_x", limit: int | None = None) -> int:
    """The number of solutions of a model (stopping at `limit`)."""
    return exact_backends.count(model, backend, limit)


def all_owners(packing: Packing, model: CoverModel | None = None) -> np.ndarray:
    """Every solution as one row of cell owners: shape (solutions, cells)."""
    model = model or packing.cover()
    owners = list(solve(packing, model))
    return np.array(owners, dtype=np.int64).reshape(len(owners), packing.n_cells)


def count_days(cal: Calendar, days: Iterable[Day], limit: int | None = None,
               backend: str = "algorithm_x") -> Iterator[dict]:
    """One row (month, day[, weekday], solutions) per date, lazily (wrap it in a progress bar)."""
    for day in days:
        row = {"month": day.month, "day": day.day}
        if cal.weekdays:
            row["weekday"] = WEEKDAYS[day.weekday]
        yield {**row, "solutions": count(cal.cover(day), backend, limit)}


def rectangle_row(name: str) -> dict:
    """One line of Knuth's table: raw tilings, tilings up to symmetry, and the seconds taken."""
    start = time.perf_counter()
    packing = rectangle(name)
    owners = all_owners(packing)
    raw, sym = KNUTH[name]
    return {"board": name, "raw": len(owners), "up_to_symmetry": packing.count_distinct(owners),
            "symmetries": len(packing.symmetry_perms), "seconds": time.perf_counter() - start,
            "knuth_raw": raw, "knuth_up_to_symmetry": sym}


def galakub_figures(reflections: bool = False) -> tuple[dict, Packing, np.ndarray]:
    """The Galakub figures (raw, distinct, up to rotation), its model and every raw solution."""
    packing = galakub(reflections)
    owners = all_owners(packing)
    return figures(packing, owners), packing, owners


def engine(model: CoverModel) -> ExactCover:
    """The exact-cover engine on a model (for timing it alone, as the benchmarks do)."""
    return ExactCover.from_model(model)
