"""The seed's greedy scoring solver for edge-matching boards, compiled, on plain arrays.

Fill the four corners, then repeatedly put, in the empty cell where some piece matches the most
sides, the piece that matches there most (first cell and first piece in list order on ties). A
side matches when its colour equals the neighbour's facing colour, or 0 on the border. Border
cells prefer pieces that carry a 0, inner cells pieces that carry none.

`seed_faithful=True` keeps the seed's bugs, which its figures depend on:
  * the border test `judge(...) == (4 or 5 or 6 or 7)` means `== 4`: only left-edge cells prefer
    border pieces, and its fallback pops scores from a list without the pieces, so the index it
    then reads names another piece;
  * an inner cell compares its right side with the left side of the cell *below*;
  * placed pieces stay in the pool, so a piece can be placed many times;
  * the given piece and the corners leave the list by value (`list.remove`), so with duplicate
    pieces the first equal one goes, which changes the pool's order;
  * the last cell (bottom-right) is never a candidate (it is a corner, filled first).
The seed's greedy itself draws no random numbers: given the same shuffled piece list its output
is fixed (tests compare it with a plain copy of the seed's code).

Pieces come as a turn table, table[p, r, s] the colour side s ([left, top, right, bottom]) of
piece p shows in its r-th allowed clockwise quarter turn (one turn when pieces never turn); cells
are row-major on an n x n board; the result gives, per cell, the piece index and its turns.
`Greedy` is the constructive solver built from config (`optimizer=greedy` / `greedy_faithful`):
`solve(puzzle) -> layout`, on any puzzle that offers `core.faces.ConstructivePuzzle`.
"""

from __future__ import annotations

import numba
import numpy as np

from core.errors import InputError
from core.faces import Construction, ConstructivePuzzle
from puzzles.edge_matching.board import EMPTY
from puzzles.edge_matching.solvers.base import BoardBuilder

INNER = 8  # the seed's judge() class of a cell off the border


@numba.njit(cache=True, nogil=True)
def _cell_class(cell, n):
    """The seed's judge(): 0-3 corners (TL, TR, BL, BR), 4 left, 5 top, 6 right, 7 bottom, 8 inner."""
    r, c, last = cell // n, cell % n, n - 1
    if r == 0 and c == 0:
        return 0
    if r == 0 and c == last:
        return 1
    if r == last and c == 0:
        return 2
    if r == last and c == last:
        return 3
    if c == 0:
        return 4
    if r == 0:
        return 5
    if c == last:
        return 6
    return 7 if r == last else INNER


@numba.njit(cache=True, nogil=True)
def _facing(cell, side, piece, rot, table):
    """Colour on `side` of the piece in `cell`, or EMPTY when the cell is empty."""
    p = piece[cell]
    return EMPTY if p == EMPTY else table[p, rot[cell], side]


@numba.njit(cache=True, nogil=True)
def _targets(cell, n, piece, rot, table, faithful, out):
    """The colour each side of `cell` should carry: 0 on the border, else the neighbour's facing one."""
    r, c = cell // n, cell % n
    out[0] = 0 if c == 0 else _facing(cell - 1, 2, piece, rot, table)
    out[1] = 0 if r == 0 else _facing(cell - n, 3, piece, rot, table)
    out[2] = 0 if c == n - 1 else _facing(cell + 1, 0, piece, rot, table)
    out[3] = 0 if r == n - 1 else _facing(cell + n, 1, piece, rot, table)
    if faithful and _cell_class(cell, n) == INNER:
        out[2] = _facing(cell + n, 0, piece, rot, table)  # the seed's estimate[index + n][0]


@numba.njit(cache=True, nogil=True)
def _matches(shown, target):
    """How many of the four sides carry their target colour."""
    k = 0
    for s in range(4):
        if shown[s] == target[s]:
            k += 1
    return k


@numba.njit(cache=True, nogil=True)
def _first_max(values, length):
    """Python's values.index(max(values)) on the first `length` entries."""
    best = 0
    for i in range(1, length):
        if values[i] > values[best]:
            best = i
    return best


@numba.njit(cache=True, nogil=True)
def _pop_argmax(number, length, i, pool, has_zero, want_zero):
    """The seed's while loop: pop `number[i]` until pool[i] has (want_zero) a 0, or one is left."""
    while has_zero[pool[i]] != want_zero:
        number[i : length - 1] = number[i + 1 : length].copy()
        length -= 1
        i = _first_max(number, length)
        if length == 1:
            break
    return i


@numba.njit(cache=True, nogil=True)
def _faithful_choice(cell, n, pool, table, has_zero, target, number):
    """The seed's index_sorting for one cell: (score, piece), bugs included."""
    m = pool.shape[0]
    for i in range(m):
        number[i] = _matches(table[pool[i], 0], target)
    i = _first_max(number, m)
    cls = _cell_class(cell, n)
    if cls == INNER and has_zero[pool[i]]:
        i = _pop_argmax(number, m, i, pool, has_zero, False)
    if cls == 4 and not has_zero[pool[i]]:  # `== (4 or 5 or 6 or 7)` is `== 4`
        i = _pop_argmax(number, m, i, pool, has_zero, True)
    return number[i], pool[i]


@numba.njit(cache=True, nogil=True)
def _grey_on_rim(cell, n, shown):
    """Do the sides a piece shows in `cell` carry 0 (grey) exactly where they face off the board?"""
    r, c = cell // n, cell % n
    return (
        (shown[0] == 0) == (c == 0)
        and (shown[1] == 0) == (r == 0)
        and (shown[2] == 0) == (c == n - 1)
        and (shown[3] == 0) == (r == n - 1)
    )


@numba.njit(cache=True, nogil=True)
def _corrected_choice(cell, n, used, table, has_zero, target):
    """(score, piece, turn) of the best unused piece for `cell`, preferring the right kind of piece.

    Three tiers, the first that offers a piece wins: with turns, a piece turned so that its grey sides
    face exactly off the board (Eternity II's rules; a turn that shows grey inward can match more
    placed sides, so scores alone would take it); a piece with grey sides on a border cell and
    without on an inner one; any piece. Without turns the first tier is skipped (the seed's boards).
    """
    border = _cell_class(cell, n) != INNER
    best, bp, br = -1, -1, 0
    for tier in range(0 if table.shape[1] == 4 else 1, 3):
        for p in range(table.shape[0]):
            if used[p] or (tier < 2 and has_zero[p] != border):
                continue
            for r in range(table.shape[1]):
                if tier == 0 and not _grey_on_rim(cell, n, table[p, r]):
                    continue
                k = _matches(table[p, r], target)
                if k > best:
                    best, bp, br = k, p, r
        if bp != EMPTY:
            break
    return best, bp, br


@numba.njit(cache=True, nogil=True)
def _fill_corners(piece, rot, used, table, n):
    """Put in each empty corner the first unused piece (and turn) with 0 on both border sides."""
    cells = (0, n - 1, n * n - n, n * n - 1)
    sides = ((0, 1), (1, 2), (0, 3), (2, 3))
    for k in range(4):
        cell, (a, b) = cells[k], sides[k]
        if piece[cell] != EMPTY:
            continue
        for p in range(table.shape[0]):
            if piece[cell] != EMPTY:
                break
            for r in range(table.shape[1]):
                if not used[p] and table[p, r, a] == 0 and table[p, r, b] == 0:
                    piece[cell], rot[cell], used[p] = p, r, True
                    break


@numba.njit(cache=True, nogil=True)
def _choose(cell, piece, rot, used, pool, table, has_zero, n, faithful, target, number):
    """(score, piece, turns) of the best piece for one empty cell, by the chosen rule set."""
    _targets(cell, n, piece, rot, table, faithful, target)
    if faithful:
        k, p = _faithful_choice(cell, n, pool, table, has_zero, target, number)
        return k, p, 0
    return _corrected_choice(cell, n, used, table, has_zero, target)


@numba.njit(cache=True, nogil=True)
def _invalidate(cell, p, n, known, best, faithful):
    """Forget the choices that placing piece p in `cell` can change.

    A cell's choice depends only on its four neighbours and, when pieces leave the pool
    (corrected rules), on whether its chosen piece is still there.
    """
    r, c = cell // n, cell % n
    if c > 0:
        known[cell - 1] = False
    if c < n - 1:
        known[cell + 1] = False
    if r > 0:
        known[cell - n] = False
    if r < n - 1:
        known[cell + n] = False
    if not faithful:
        for x in range(n * n):
            if best[x, 1] == p:
                known[x] = False


@numba.njit(cache=True, nogil=True)
def _step(piece, rot, used, pool, table, has_zero, n, faithful, target, number, known, best):
    """Place one piece: the best-scoring one in the best empty cell (first on ties). Returns the cell."""
    top, at = -1, -1
    last = n * n - 1 if faithful else n * n  # the seed's calc_remain_index skips the last cell
    for cell in range(last):
        if piece[cell] != EMPTY:
            continue
        if not known[cell]:
            best[cell, 0], best[cell, 1], best[cell, 2] = _choose(
                cell, piece, rot, used, pool, table, has_zero, n, faithful, target, number
            )
            known[cell] = True
        if best[cell, 1] != EMPTY and best[cell, 0] > top:
            top, at = best[cell, 0], cell
    if at >= 0:
        p = best[at, 1]
        piece[at], rot[at], used[p] = p, best[at, 2], True
        _invalidate(at, p, n, known, best, faithful)
    return at


@numba.njit(cache=True, nogil=True)
def _run(piece, rot, used, pool, table, has_zero, n, faithful):
    """Greedy steps: the seed runs one step per pool piece; the corrected solver until the board is full.

    Each empty cell's choice is kept until a neighbour is filled (or, corrected, its piece is
    used elsewhere), which gives the same boards as recomputing every cell at every step.
    """
    target = np.empty(4, dtype=np.int64)
    number = np.empty(max(pool.shape[0], 1), dtype=np.int64)
    known = np.zeros(n * n, dtype=np.bool_)
    best = np.full((n * n, 3), EMPTY, dtype=np.int64)
    steps = pool.shape[0] if faithful else n * n
    for _ in range(steps):
        if _step(piece, rot, used, pool, table, has_zero, n, faithful, target, number, known, best) < 0:
            break


def start_board(n: int, m: int, preplaced=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty board (EMPTY per cell) of m pieces with the pre-placed (cell, piece, turns) rows in
    place, its turns, and the used-piece flags: where every constructive solver starts."""
    rows = np.asarray(preplaced if preplaced is not None else [], dtype=np.int64).reshape(-1, 3)
    piece = np.full(n * n, EMPTY, dtype=np.int64)
    rot = np.zeros(n * n, dtype=np.int64)
    used = np.zeros(m, dtype=np.bool_)
    piece[rows[:, 0]], rot[rows[:, 0]], used[rows[:, 1]] = rows[:, 1], rows[:, 2], True
    return piece, rot, used


def _remove_first_equal(pool: list[int], sides: np.ndarray, p: int) -> None:
    """list.remove(value): drop the first pool piece with the same sides as p (maybe not p)."""
    same = np.nonzero((sides[pool] == sides[p]).all(axis=1))[0]
    if len(same):
        del pool[int(same[0])]


def _seed_pool(sides: np.ndarray, piece: np.ndarray, used: np.ndarray, n: int) -> np.ndarray:
    """The seed's corners (first listed piece of each pattern) and its pool, in list order.

    The seed removes the given pieces and the corners from its list *by value*, so with duplicate
    pieces it drops the first equal piece, which need not be the one on the board.
    """
    pool = list(range(len(sides)))
    for p in piece[piece != EMPTY]:
        _remove_first_equal(pool, sides, int(p))
    for cell, (a, b) in zip((0, n - 1, n * n - n, n * n - 1), ((0, 1), (1, 2), (0, 3), (2, 3))):
        if piece[cell] != EMPTY:
            continue
        found = np.nonzero((sides[:, a] == 0) & (sides[:, b] == 0))[0]
        if not len(found):
            raise ValueError("the seed's greedy needs a piece for each corner (0 on both border sides)")
        piece[cell], used[found[0]] = found[0], True
        _remove_first_equal(pool, sides, int(found[0]))
    return np.array(pool, dtype=np.int64)


def greedy(table, n: int, preplaced=None, seed_faithful: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Solve greedily; returns (piece per cell, clockwise quarter turns per cell).

    Args:
        table: (n*n, turns, 4) turn table (see the module docstring); one turn: pieces never turn.
        n: board side.
        preplaced: rows (cell, piece, turns) already on the board (the seed: the centre piece).
        seed_faithful: keep the seed's bugs (see the module docstring), duplicates included.
    """
    table = np.ascontiguousarray(table, dtype=np.int64)
    if table.ndim != 3 or table.shape[0] != n * n or table.shape[2] != 4:
        raise ValueError(f"need an ({n * n}, turns, 4) turn table for n={n}, got shape {table.shape}")
    if seed_faithful and table.shape[1] > 1:
        raise ValueError("seed_faithful reproduces the seed, whose pieces never turn: give a one-turn table")
    sides = table[:, 0]
    piece, rot, used = start_board(n, len(table), preplaced)
    if seed_faithful:
        pool = _seed_pool(sides, piece, used, n)
    else:
        _fill_corners(piece, rot, used, table, n)
        pool = np.nonzero(~used)[0]
    _run(piece, rot, used, pool, table, (sides == 0).any(axis=1), n, seed_faithful)
    return piece, rot


class Greedy(BoardBuilder):
    """The seed's greedy scoring solver; `seed_faithful` keeps the seed's bugs (duplicates included)."""

    def __init__(self, seed_faithful: bool = False):
        self.seed_faithful = self.repeats_pieces = seed_faithful
        self.name = "greedy_faithful" if seed_faithful else "greedy"

    def construct(self, puzzle: ConstructivePuzzle, seconds: float | None = None) -> Construction:
        """One greedy board, checked: pre-placed pieces kept, and each piece once unless seed-faithful.
        It takes milliseconds, so a time limit never cuts it short."""
        puzzle = self._require(puzzle)
        if self.seed_faithful and puzzle.rotations:
            raise InputError(
                "optimizer=greedy_faithful reproduces the seed, whose pieces never turn: "
                "use puzzle.rotations=false, or optimizer=greedy"
            )
        try:
            piece, rot = greedy(puzzle.table, puzzle.n, puzzle.preplaced, self.seed_faithful)
        except ValueError as err:
            raise InputError(f"optimizer={self.name}: {err}") from None
        layout = puzzle.layout(piece, rot, allow_duplicates=self.seed_faithful)
        return Construction(layout, work=len(piece))  # one placement per cell

    def warm_up(self, puzzle: ConstructivePuzzle) -> None:
        """One board, thrown away: it takes milliseconds once the kernels are loaded."""
        self.construct(puzzle)
