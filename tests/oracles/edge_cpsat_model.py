"""Perfect edge-matching boards counted by OR-tools CP-SAT: an independent cross-check of the compiled
exact backtracker's counts (puzzles/edge_matching/solvers/backtrack.py), by a different method on the same definitions.

A perfect board places every piece once, shows colour 0 (grey) on every rim side and on no inner side,
and shows one colour on both sides of every inner edge. Boards are counted distinct as read per cell:
(the piece's class, the four colours it shows). Pieces equal under an allowed turn form one class
(interchangeable), and turns of a piece that show the same colours are one orientation.

The model: one Bool per (cell, distinct orientation of a class) whose grey sides are exactly the cell's
rim sides; exactly one per cell; each class placed as often as it has pieces; and per inner edge one
Bool per colour, exactly one true, implied by the orientation on either side and implying that both
sides show it. The orientation Bools fix the board's reading and the edge Bools follow from them, so
enumerating solutions lists each distinct board once. A pre-placed cell keeps its piece's one
orientation; a cell or class with no orientation that fits means no perfect board.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.errors import InputError
from heuristics.exact_backends import _import
from heuristics.exact_cover import solution_limit
from puzzles.edge_matching.board import BOTTOM, LEFT, RIGHT, TOP, rim


class _Model:
    """The CP-SAT model of a board's perfect arrangements (see the module docstring)."""

    def __init__(self, table, n: int, m: int, preplaced) -> None:
        self.cp: Any = _import("ortools.sat.python.cp_model", "cpsat")
        table = np.asarray(table, dtype=np.int64)
        if table.ndim != 3 or table.shape[1] not in (1, 4) or table.shape[2] != 4 or len(table) != n * m:
            raise InputError(
                f"table must have shape ({n * m}, 1 or 4, 4) for a {n} x {m} board, got {table.shape}"
            )
        self.table, self.n, self.m = table, n, m
        keys = [min(_colours(row) for row in turns) for turns in table]
        classes = sorted(set(keys))
        self.piece_class = np.array([classes.index(k) for k in keys])
        # orientations: (class, colours) of each distinct turn of each class
        self.orients = sorted({(k, _colours(row)) for k, p in _first(self.piece_class) for row in table[p]})
        self.preplaced = self._preplaced(preplaced)
        fixed = {c: self.orients.index(self._shows(p, t)) for c, (p, t) in self.preplaced.items()}
        edge = rim(n, m)
        self.model = model = self.cp.CpModel()
        self.x: list[dict[int, Any]] = []
        for cell in range(n * m):
            allowed = [fixed[cell]] if cell in fixed else range(len(self.orients))
            fits = [o for o in allowed if np.array_equal(np.array(self.orients[o][1]) == 0, edge[cell])]
            self.x.append({o: model.NewBoolVar(f"c{cell}o{o}") for o in fits})
        placed = [
            [v for xs in self.x for o, v in xs.items() if self.orients[o][0] == k]
            for k in range(len(classes))
        ]
        self.empty = not all(self.x) or not all(placed)  # a cell or a class with no orientation that fits
        if self.empty:
            return  # no perfect board: nothing to solve
        for xs in self.x:
            model.AddExactlyOne(xs.values())
        for k, vs in enumerate(placed):
            model.Add(sum(vs) == int((self.piece_class == k).sum()))
        for cell in range(n * m):
            r, c = divmod(cell, m)
            if c + 1 < m:
                self._match(cell, RIGHT, cell + 1, LEFT)
            if r + 1 < n:
                self._match(cell, BOTTOM, cell + m, TOP)

    def _shows(self, p: int, t: int) -> tuple[int, tuple[int, ...]]:
        """The orientation (class, colours) piece p shows in its t-th turn."""
        return int(self.piece_class[p]), _colours(self.table[p, t])

    def _preplaced(self, preplaced) -> dict[int, tuple[int, int]]:
        """Per pre-placed cell, its (piece, turn), checked."""
        rows = np.asarray(preplaced if preplaced is not None else [], dtype=np.int64).reshape(-1, 3)
        ok = all(
            0 <= c < self.n * self.m and 0 <= p < len(self.table) and 0 <= t < self.table.shape[1]
            for c, p, t in rows
        )
        if not ok or len(set(rows[:, 0])) < len(rows) or len(set(rows[:, 1])) < len(rows):
            raise InputError(
                f"preplaced: rows (cell, piece, turn) need distinct cells and pieces, cells < {self.n * self.m}, "
                f"pieces < {len(self.table)} and turns < {self.table.shape[1]}"
            )
        return {int(c): (int(p), int(t)) for c, p, t in rows}

    def _match(self, a: int, side_a: int, b: int, side_b: int) -> None:
        """The edge between side `side_a` of cell a and `side_b` of cell b shows one colour, on both sides:
        one Bool per colour, exactly one true, each side's orientations implying theirs."""
        shows = {
            cell: {o: self.orients[o][1][side] for o in self.x[cell]}
            for cell, side in ((a, side_a), (b, side_b))
        }
        colour = {c: self.model.NewBoolVar(f"e{a}-{b}c{c}") for c in {*shows[a].values(), *shows[b].values()}}
        self.model.AddExactlyOne(colour.values())
        for cell, shown in shows.items():
            for c, y in colour.items():
                here = [self.x[cell][o] for o, s in shown.items() if s == c]
                for v in here:
                    self.model.AddImplication(v, y)
                self.model.AddBoolOr(here).OnlyEnforceIf(y)

    def solver(self, seconds: float | None) -> Any:
        """A one-worker CP-SAT solver, with the time limit if given."""
        solver = self.cp.CpSolver()
        solver.parameters.num_workers = 1
        if seconds is not None:
            solver.parameters.max_time_in_seconds = float(seconds)
        return solver

    def board(self, value) -> tuple[np.ndarray, np.ndarray]:
        """(piece, turn) per cell of the solution read by `value(var) -> bool`."""
        piece = np.empty(self.n * self.m, dtype=np.int64)
        turn = np.empty(self.n * self.m, dtype=np.int64)
        free = [p for p in range(len(self.table)) if p not in {q for q, _ in self.preplaced.values()}]
        for cell, xs in enumerate(self.x):
            if cell in self.preplaced:
                piece[cell], turn[cell] = self.preplaced[cell]
                continue
            k, colours = self.orients[next(o for o, v in xs.items() if value(v))]
            p = next(q for q in free if self.piece_class[q] == k)
            free.remove(p)
            piece[cell] = p
            turn[cell] = next(r for r, row in enumerate(self.table[p]) if _colours(row) == colours)
        return piece, turn


def _colours(row) -> tuple[int, ...]:
    """A row of colours as a tuple of ints (hashable, comparable)."""
    return tuple(int(c) for c in row)


def _first(piece_class: np.ndarray) -> list[tuple[int, int]]:
    """(class, its first piece) for each class."""
    return [(int(k), int(np.flatnonzero(piece_class == k)[0])) for k in np.unique(piece_class)]


def _timed_out(seconds: float | None) -> TimeoutError:
    """The one-line error of a search that ran out of time."""
    return TimeoutError(f"CP-SAT hit its {seconds} s time limit before finishing; give it more seconds")


def count_perfect(
    table, n: int, m: int, preplaced=None, limit: int | None = None, seconds: float | None = None
) -> int:
    """The number of distinct perfect boards (see the module docstring), stopping at `limit`.

    table: (n*m, 1 or 4, 4) turn table; preplaced: rows (cell, piece, turn) kept where they are.
    Raises TimeoutError when `seconds` pass before the enumeration ends (never a partial count).
    """
    stop = solution_limit(limit)
    built = _Model(table, n, m, preplaced)
    if built.empty:
        return 0
    cp: Any = built.cp  # declared Any, so Count may subclass its callback class
    found = 0

    class Count(cp.CpSolverSolutionCallback):
        """Count each solution; stop at the limit."""

        def on_solution_callback(self) -> None:
            nonlocal found
            found += 1
            if found >= stop:
                self.StopSearch()

    solver = built.solver(seconds)
    solver.parameters.enumerate_all_solutions = True
    status = solver.Solve(built.model, Count())
    if found >= stop or status in (cp.OPTIMAL, cp.INFEASIBLE):
        return found
    if status == cp.MODEL_INVALID:
        raise RuntimeError(f"CP-SAT refused the model: {built.model.Validate()}")
    raise _timed_out(seconds)


def solve_perfect(
    table, n: int, m: int, preplaced=None, seconds: float | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """One perfect board as (piece per cell, turn index per cell), or None when none exists (proved).

    Raises TimeoutError when `seconds` pass before CP-SAT finds a board or proves there is none.
    """
    built = _Model(table, n, m, preplaced)
    if built.empty:
        return None
    solver = built.solver(seconds)
    status = solver.Solve(built.model)
    if status in (built.cp.OPTIMAL, built.cp.FEASIBLE):
        return built.board(solver.BooleanValue)
    if status == built.cp.INFEASIBLE:
        return None
    if status == built.cp.MODEL_INVALID:
        raise RuntimeError(f"CP-SAT refused the model: {built.model.Validate()}")
    raise _timed_out(seconds)
