"""The baseline of `bench_exact_edge speed`: puzzles/edge_matching/solvers/perfect_search.py as it was before
issue 34's faster walk (commit 6314eae), kept here unchanged (this docstring aside) so the speed ratio is
measured in the same run, as benchmarks/row_scan.py keeps the row scan before it.

"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass

import numba
import numpy as np
from tqdm import tqdm

from core import interrupt
from core.errors import InputError
from puzzles.edge_matching.board import DC, DR, grey_patterns

STOP_EVERY = 1 << 14  # nodes between two looks at the stop flag (and two progress reports)
NONE = -1
KEY_CELLS = 1 << 22  # the most keys a candidate list may have; more known sides are checked per candidate
INNER, CW, CCW, IN = 0, 1, 2, 3  # kinds of side a turning piece offers (see `_side_kind`)


@numba.njit(cache=True, nogil=True, inline="always")
def _key(d, colours, key_at, key_len, radix):
    """The candidate-list key of the cell at depth d: its known neighbours' facing colours (`colours`:
    `shown` read flat, key_at[d, j]: a neighbour's cell * 4 + its facing side)."""
    key = 0
    for j in range(key_len[d]):
        key = key * radix + colours[key_at[d, j]]
    return key


@numba.njit(cache=True, nogil=True)
def _counts_hold(i, cell, nb, piece, shows, side_kind, need, supply, demand, radix, sign):
    """Place (sign 1) or lift (sign -1) candidate i's colours in the look-ahead's books: sides leave (or
    rejoin) the supply, open joins open or close. True when, placing, no colour is now short."""
    ok = True
    for s in range(4):
        c = shows[i, s]
        if c == 0:
            continue
        own = side_kind[i, s] * radix + c
        supply[own] -= sign
        q = nb[cell, s]
        if piece[q] == NONE:  # an open join: the neighbour's facing side must bring c
            other = need[cell, s] * radix + c
            demand[other] += sign
            if sign > 0 and demand[other] > supply[other]:
                ok = False
        else:
            demand[own] -= sign  # the join the neighbour opened is closed
        if sign > 0 and demand[own] > supply[own]:
            ok = False
    return ok


@numba.njit(cache=True, nogil=True)
def _checked(i, d, cell, nb, shows, shown, check_side):
    """Does candidate i match the known sides its list's key leaves out (boards of many colours)?
    Apart from the walk: a loop there, even one that never runs, slows the walk 2x."""
    for j in range(4):
        s = check_side[d, j]
        if s < 0:
            return True
        if shows[i, s] != shown[nb[cell, s], (s + 2) % 4]:
            return False
    return True


@numba.njit(nogil=True, inline="always")
def _walk(
    geometry, lists, state, lookahead, first_depth, stop_depth, limit, max_nodes, stop, progress, record
):
    """Depth-first search from `first_depth` (everything before it is placed) to `stop_depth`:
    (status, boards reached at stop_depth (up to `limit`), nodes). Status 1: the subtree is done or the
    limit reached; -1: out of nodes; -2: `stop[0]` was set (read every STOP_EVERY nodes, when the
    nodes walked so far are also written to `progress[0]`). record[k, :stop_depth]: the candidate
    chosen at each depth on the k-th board reached (rows beyond record's length are not kept)."""
    order, nb, need, key_at, key_len, check_side, check_len, base = geometry
    starts, piece_of, turn_of, shows, side_kind, radix = lists
    twin, used, shown, piece, chosen, supply, demand = state
    colours = shown.reshape(-1)  # a view: `_key` reads it flat
    nxt = np.zeros(stop_depth + 1, np.int64)
    end = np.zeros(stop_depth + 1, np.int64)
    d, nodes, found, fresh = first_depth, 0, 0, True
    while True:
        if d == stop_depth:
            if found < record.shape[0]:
                record[found, :stop_depth] = chosen[:stop_depth]
            found += 1
            if found >= limit or d == first_depth:
                return 1, found, nodes
            fresh = False
            d -= 1
            _lift(order[d], chosen[d], lists, nb, need, state, lookahead)
            continue
        cell = order[d]
        if fresh:
            key = base[d] + _key(d, colours, key_at, key_len, radix)
            nxt[d], end[d] = starts[key], starts[key + 1]
        placed, i, last, checks = False, nxt[d], end[d], check_len[d] > 0
        while i < last:
            i += 1  # candidate i - 1, kept in a register: the walk's hottest loop
            p = piece_of[i - 1]
            if used[p] or (twin[p] >= 0 and not used[twin[p]]):
                continue
            if checks and not _checked(i - 1, d, cell, nb, shows, shown, check_side):
                continue
            used[p], chosen[d] = True, i - 1  # the board is read back from `chosen` (`Board.board_of`)
            shown[cell] = shows[i - 1]
            if lookahead:
                piece[cell] = p  # only the books read which cells are filled
                if not _counts_hold(i - 1, cell, nb, piece, shows, side_kind, need, supply, demand, radix, 1):
                    _lift(cell, i - 1, lists, nb, need, state, lookahead)
                    continue
            placed = True
            break
        nxt[d] = i
        nodes += 1
        if nodes > max_nodes:
            return -1, found, nodes
        if nodes % STOP_EVERY == 0:
            progress[0] = nodes
            if stop[0] != 0:
                return -2, found, nodes
        fresh = placed
        if placed:
            d += 1
        else:
            if d == first_depth:
                return 1, found, nodes
            d -= 1
            _lift(order[d], chosen[d], lists, nb, need, state, lookahead)


@numba.njit(cache=True, nogil=True)
def _walk_plain(geometry, lists, state, first_depth, stop_depth, limit, max_nodes, stop, progress, record):
    """`_walk` without the look-ahead, compiled apart: a flag tested in the walk, even one always off,
    slowed it 2x; here it is a constant the compiler removes."""
    return _walk(
        geometry, lists, state, False, first_depth, stop_depth, limit, max_nodes, stop, progress, record
    )


@numba.njit(cache=True, nogil=True)
def _walk_books(geometry, lists, state, first_depth, stop_depth, limit, max_nodes, stop, progress, record):
    """`_walk` with the look-ahead's books."""
    return _walk(
        geometry, lists, state, True, first_depth, stop_depth, limit, max_nodes, stop, progress, record
    )


@numba.njit(cache=True, nogil=True, inline="always")
def _lift(cell, i, lists, nb, need, state, lookahead):
    """Take candidate i off `cell`; the look-ahead's books first (they read which neighbours are empty:
    the same as when it was placed, since the walk lifts pieces in the reverse order it placed them)."""
    starts, piece_of, turn_of, shows, side_kind, radix = lists
    twin, used, shown, piece, chosen, supply, demand = state
    if lookahead:
        piece[cell] = NONE
        _counts_hold(i, cell, nb, piece, shows, side_kind, need, supply, demand, radix, -1)
    used[piece_of[i]] = False  # its colours stay in `shown`: only filled cells' colours are read


@numba.njit(cache=True, nogil=True)
def _replay(prefix, geometry, lists, state, lookahead):
    """Place a job's prefix (a candidate per depth, from `_walk`'s record) on a fresh board."""
    order, nb, need = geometry[0], geometry[1], geometry[2]
    piece_of, turn_of, shows, side_kind, radix = lists[1:]
    twin, used, shown, piece, chosen, supply, demand = state
    for d in range(prefix.shape[0]):
        i, cell = prefix[d], order[d]
        piece[cell], used[piece_of[i]], chosen[d] = piece_of[i], True, i
        shown[cell] = shows[i]
        if lookahead:
            _counts_hold(i, cell, nb, piece, shows, side_kind, need, supply, demand, radix, 1)


def neighbours(n: int, m: int) -> np.ndarray:
    """nb[cell, s]: the cell across side s ([left, top, right, bottom]) of each cell, -1 off the board."""
    rows, cols = np.divmod(np.arange(n * m), m)
    nb = np.full((n * m, 4), NONE, np.int64)
    for s in range(4):
        r, c = rows + DR[s], cols + DC[s]
        inside = (r >= 0) & (r < n) & (c >= 0) & (c < m)
        nb[inside, s] = r[inside] * m + c[inside]
    return nb


def rows(n: int, m: int) -> np.ndarray:
    """Row by row from the top-left corner (today's backtracker's scan)."""
    return np.arange(n * m, dtype=np.int64)


def columns(n: int, m: int) -> np.ndarray:
    """Column by column from the top-left corner."""
    return np.arange(n * m, dtype=np.int64).reshape(n, m).T.ravel()


def short(n: int, m: int) -> np.ndarray:
    """Lines along the board's short side (rows unless the board is taller than wide... or wider): the
    open front, the joins a partial board leaves open, is then as short as it can be."""
    return rows(n, m) if m <= n else columns(n, m)


def ring(n: int, m: int, k: int = 0) -> list[int]:
    """The cells of the k-th ring from the rim, clockwise from its top-left corner."""
    top, left, bottom, right = k, k, n - 1 - k, m - 1 - k
    if top > bottom or left > right:
        return []
    if top == bottom or left == right:  # a last line
        return [r * m + c for r in range(top, bottom + 1) for c in range(left, right + 1)]
    cells = [top * m + c for c in range(left, right + 1)]
    cells += [r * m + right for r in range(top + 1, bottom + 1)]
    cells += [bottom * m + c for c in range(right - 1, left - 1, -1)]
    cells += [r * m + left for r in range(bottom - 1, top, -1)]
    return cells


def frame_first(n: int, m: int) -> np.ndarray:
    """The frame clockwise from the top-left corner, then the inner cells row by row."""
    frame = ring(n, m)
    inside = [x for x in range(n * m) if x not in set(frame)]
    return np.array(frame + inside, dtype=np.int64)


def spiral(n: int, m: int) -> np.ndarray:
    """Ring by ring from the rim inwards, each clockwise."""
    return np.array([x for k in range((min(n, m) + 1) // 2) for x in ring(n, m, k)], dtype=np.int64)


def diagonal(n: int, m: int) -> np.ndarray:
    """Anti-diagonals from the top-left corner, each from its top-right end: an inner cell meets its
    frame neighbours' inward colours after a few placements, where rows place a whole frame row first."""
    cells = sorted(range(n * m), key=lambda x: (x // m + x % m, x // m))
    return np.array(cells, dtype=np.int64)


def bands(n: int, m: int, height: int = 2) -> np.ndarray:
    """Bands of `height` rows, each filled column by column: a frame row's loose pieces (one known side)
    meet the inner cells below them after a placement or two, not after a whole row."""
    return np.array(
        [
            r * m + c
            for top in range(0, n, height)
            for c in range(m)
            for r in range(top, min(top + height, n))
        ],
        dtype=np.int64,
    )


ORDERS = {
    "short": short,
    "diagonal": diagonal,
    "bands": bands,
    "rows": rows,
    "columns": columns,
    "frame_first": frame_first,
    "spiral": spiral,
}


def _side_kind(pattern: int, s: int, turns: int) -> int:
    """What kind of side a piece in a cell of this pattern shows on side s, for the look-ahead's
    books: turning pieces offer inner sides, or along the rim clockwise / counter-clockwise sides and
    inward sides (the same sides of a piece in any cell it fits); unturned pieces, a side per
    pattern and direction. -1: a thin board's cell, where the books are not kept."""
    if turns == 1:
        return 4 + pattern * 4 + s
    grey = [g for g in range(4) if pattern >> g & 1]
    if not grey:
        return INNER
    if len(grey) == 1:
        g = grey[0]
        return {(g + 1) % 4: CW, (g + 3) % 4: CCW, (g + 2) % 4: IN}.get(s, -1)
    if len(grey) == 2 and (grey[1] - grey[0]) in (1, 3):
        a = grey[0] if (grey[0] + 1) % 4 == grey[1] else grey[1]  # greys on a and a + 1
        return {(a + 2) % 4: CW, (a + 3) % 4: CCW}.get(s, -1)
    return -1


def _classes(table: np.ndarray, free: np.ndarray) -> np.ndarray:
    """twin[p]: the free piece before p that is the same piece (up to a turn it may take), else -1."""
    twin = np.full(len(table), NONE, np.int64)
    last: dict[tuple, int] = {}
    for p in map(int, np.flatnonzero(free)):
        key = min(tuple(row) for row in table[p])
        twin[p] = last.get(key, NONE)
        last[key] = p
    return twin


@dataclass(frozen=True)
class Answer:
    """What a search proved: `count` distinct perfect boards (all of them when `complete`; at least
    that many otherwise), the first `boards` in search order as (piece, turns) per cell, the nodes
    walked and the time; `stop_reason` "finished" (the whole tree), "limit" (enough boards),
    "max_nodes" or "seconds". `symmetry`: the boards each one found stands for (its turns)."""

    count: int
    boards: list[tuple[np.ndarray, np.ndarray]]
    nodes: int
    seconds: float
    stop_reason: str
    symmetry: int = 1
    jobs: int = 1

    @property
    def complete(self) -> bool:
        return self.stop_reason == "finished"

    @property
    def none(self) -> bool:
        """Proved: no perfect board."""
        return self.complete and self.count == 0


class Board:
    """A board's search tables, built once: scan order, candidate lists keyed by every known side, the
    look-ahead's books and the symmetry kept out (see the module docstring).

    Args:
        table: table[p, r, s], the colour side s of piece p shows in its r-th allowed turn (1 or 4 turns).
        n, m: rows and columns; cells are row-major.
        preplaced: rows (cell, piece, turn) that stay.
        order: a name in ORDERS.
        lookahead: keep the colour books (never on thin boards, where sides have no kind). Off by
            default: on the graded set it cuts nodes by about a tenth and costs 3x the time a node
            (`python -m benchmarks.bench_exact_edge tree`).
        symmetry: keep one turn of each solution (turning pieces, nothing pre-placed).
    """

    def __init__(
        self,
        table,
        n: int,
        m: int,
        preplaced=None,
        order: str = "short",
        lookahead: bool = False,
        symmetry: bool = True,
    ):
        table = np.ascontiguousarray(table, dtype=np.int64)
        if table.ndim != 3 or table.shape[0] != n * m or table.shape[2] != 4 or table.shape[1] not in (1, 4):
            raise InputError(
                f"need an ({n * m}, 1 or 4, 4) turn table for a {n} x {m} board, got {table.shape}"
            )
        if order not in ORDERS:
            raise InputError(f"unknown scan order {order!r}; choose one of: {', '.join(ORDERS)}")
        self.table, self.n, self.m, self.turns = table, n, m, table.shape[1]
        self.nb = neighbours(n, m)
        given = np.asarray(preplaced if preplaced is not None else [], np.int64).reshape(-1, 3)
        self.piece = np.full(n * m, NONE, np.int64)
        self.turn = np.zeros(n * m, np.int64)
        self.piece[given[:, 0]], self.turn[given[:, 0]] = given[:, 1], given[:, 2]
        self.used = np.zeros(len(table), np.bool_)
        self.used[given[:, 1]] = True
        self.shown = np.full((n * m, 4), NONE, np.int64)
        self.shown[given[:, 0]] = table[given[:, 1], given[:, 2]]
        self.order = np.array([x for x in ORDERS[order](n, m) if self.piece[x] == NONE], np.int64)
        self.twin = _classes(table, ~self.used)
        self.symmetry, self.banned = self._symmetry(symmetry and len(given) == 0)
        self.radix = int(table.max()) + 1
        orients, self.cell_pattern = grey_patterns(table, n, m)
        self.orient_pattern = orients.reshape(table.shape[:2])
        kinds = [[_side_kind(int(k), s, self.turns) for s in range(4)] for k in range(16)]
        thin = any(
            kinds[int(k)][s] < 0 for k in np.unique(self.cell_pattern) for s in range(4) if not k >> s & 1
        )
        self.lookahead = lookahead and not thin
        self.side_kinds = np.array(kinds, np.int64)  # [pattern, side]
        self.need = np.full((n * m, 4), 0, np.int64)  # the kind of side the neighbour across s must show
        for x in range(n * m):
            for s in range(4):
                q = self.nb[x, s]
                if q >= 0:
                    self.need[x, s] = max(self.side_kinds[self.cell_pattern[q], (s + 2) % 4], 0)
        self._lists(self.orient_pattern, self.banned)
        self._books()
        self.consistent = self._given_fit() and (thin or self._balanced())

    def _symmetry(self, wanted: bool) -> tuple[int, dict[int, list[int]]]:
        """(boards each found board stands for, {cell pattern: pieces kept out of its cells}): a corner
        piece c0 with no twin is kept where one turn of each solution has it (the top-left corner on a
        square board; a top-left and the next corner filled on a rectangle)."""
        table, n, m = self.table, self.n, self.m
        if not wanted or self.turns != 4 or n < 2 or m < 2:
            return 1, {}
        grey = table[:, 0] == 0
        corners = [p for p in range(len(table)) if grey[p].sum() == 2 and not (grey[p, 0] and grey[p, 2])]
        single = [p for p in corners if self.twin[p] < 0 and not (self.twin == p).any()]
        if not single:
            return 1, {}
        c0, tl, tr, br, bl = single[0], 0b0011, 0b0110, 0b1100, 0b1001  # corners' off-board sides
        if n == m:  # c0 in the top-left corner, which the scan fills first
            return 4, {tl: [p for p in corners if p != c0], tr: [c0], br: [c0], bl: [c0]}
        position = {
            int(x): k for k, x in enumerate(self.order)
        }  # c0 in the top-left or the next corner filled
        second = tr if position[m - 1] < position[(n - 1) * m] else bl
        return 2, {k: [c0] for k in (tr, br, bl) if k != second}

    def _given_fit(self) -> bool:
        """Do the pre-placed pieces allow a perfect board: grey exactly on their rim sides, matched
        joins between them?"""
        for x in np.flatnonzero(self.piece != NONE):
            for s in range(4):
                q, c = self.nb[x, s], self.shown[x, s]
                if (q < 0) != (c == 0):
                    return False
                if q >= 0 and self.piece[q] != NONE and self.shown[q, (s + 2) % 4] != c:
                    return False
        return True

    def _lists(self, orient_pattern: np.ndarray, banned: dict[int, list[int]]) -> None:
        """Candidate lists per depth, keyed by the colours of the cell's known sides (neighbours placed
        earlier in the order or pre-placed); sides beyond KEY_CELLS keys are checked per candidate."""
        table, f = self.table, len(self.order)
        position = np.full(self.n * self.m, -1, np.int64)
        position[self.order] = np.arange(f)
        self.key_at = np.zeros((f, 4), np.int64)  # the neighbours' sides whose colours key the list
        self.key_len = np.zeros(f, np.int64)
        self.check_side = np.full((f, 4), -1, np.int64)
        self.check_len = np.zeros(f, np.int64)
        self.base = np.zeros(f, np.int64)
        groups: dict[tuple, int] = {}
        starts: list[np.ndarray] = []
        entries: list[np.ndarray] = []
        size = 0
        for d, x in enumerate(self.order):
            known = [
                s
                for s in range(4)
                if self.nb[x, s] >= 0 and (self.piece[self.nb[x, s]] != NONE or position[self.nb[x, s]] < d)
            ]
            keyed = [s for j, s in enumerate(known) if self.radix ** (j + 1) <= KEY_CELLS]
            checked = known[len(keyed) :]
            self.key_len[d] = len(keyed)
            self.key_at[d, : len(keyed)] = 4 * self.nb[x, keyed] + (np.array(keyed, np.int64) + 2) % 4
            self.check_len[d], self.check_side[d, : len(checked)] = len(checked), checked
            group = (int(self.cell_pattern[x]), tuple(keyed))
            if group not in groups:
                groups[group] = size
                pattern = group[0]
                fits = (orient_pattern == pattern) & ~self.used[:, None]
                fits[banned.get(pattern, [])] = False
                p, r = np.nonzero(fits)
                p, r = self._distinct(p, r)
                key = np.zeros(len(p), np.int64)
                for s in keyed:
                    key = key * self.radix + table[p, r, s]
                keys = self.radix ** len(keyed)
                order = np.argsort(key, kind="stable")
                counts = np.bincount(key, minlength=keys)
                starts.append(np.cumsum(counts) - counts)  # relative; shifted below
                entries.append(np.stack([p[order], r[order]], axis=1))
                size += keys
            self.base[d] = groups[group]
        shift = np.cumsum([0] + [len(e) for e in entries])
        self.starts = np.concatenate([s + shift[k] for k, s in enumerate(starts)] + [[shift[-1]]]).astype(
            np.int64
        )
        pairs = np.concatenate(entries) if entries else np.zeros((0, 2), np.int64)
        self.piece_of, self.turn_of = pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64)
        self.shows = table[self.piece_of, self.turn_of]
        self.entry_kind = np.maximum(self.side_kinds[orient_pattern[self.piece_of, self.turn_of]], 0)

    def _distinct(self, p: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The (piece, turn) pairs given, without a turn that shows the same colours as an earlier one."""
        keep = [
            k
            for k in range(len(p))
            if not any((self.table[p[k], t] == self.table[p[k], r[k]]).all() for t in range(r[k]))
        ]
        return p[keep], r[keep]

    def _books(self) -> None:
        """The look-ahead's starting books: sides of the free pieces by kind and colour, and the joins
        the pre-placed pieces open."""
        kinds = 4 + 16 * 4
        self.supply = np.zeros(kinds * self.radix, np.int64)
        self.demand = np.zeros(kinds * self.radix, np.int64)
        first: dict[int, int] = {}
        for i, p in enumerate(self.piece_of):
            first.setdefault(int(p), i)
        for i in first.values():
            for s in range(4):
                if self.shows[i, s]:
                    self.supply[self.entry_kind[i, s] * self.radix + self.shows[i, s]] += 1
        for x in np.flatnonzero(self.piece != NONE):
            for s in range(4):
                q = self.nb[x, s]
                if q >= 0 and self.piece[q] == NONE and self.shown[x, s] > 0:
                    self.demand[self.need[x, s] * self.radix + self.shown[x, s]] += 1

    def _balanced(self) -> bool:
        """Can the sides left pair up, colour by colour? Along the rim every join takes a clockwise and a
        counter-clockwise side; inside, an edge piece's inward side and an inner side, or two inner sides
        (on a board two cells thick there are no inner cells: the two frame lines meet, inward side to
        inward side); unturned pieces, a left and a right side or a top and a bottom one. (Pre-placed pieces' open joins
        are taken first.) A board that fails is proved to have no perfect board without a node."""
        rest = (self.supply - self.demand).reshape(-1, self.radix)[:, 1:]
        if (rest < 0).any():
            return False
        if self.turns == 4:
            inner, into = rest[INNER], rest[IN]
            if min(self.n, self.m) <= 2:  # two frame lines meet: inward sides pair with inward sides
                return bool((rest[CW] == rest[CCW]).all() and (inner == 0).all() and (into % 2 == 0).all())
            return bool(
                (rest[CW] == rest[CCW]).all() and (inner >= into).all() and ((inner - into) % 2 == 0).all()
            )
        by_side = rest[4:].reshape(16, 4, -1).sum(axis=0)  # [side, colour] over every pattern
        return bool((by_side[0] == by_side[2]).all() and (by_side[1] == by_side[3]).all())

    def geometry(self) -> tuple:
        return (
            self.order,
            self.nb,
            self.need,
            self.key_at,
            self.key_len,
            self.check_side,
            self.check_len,
            self.base,
        )

    def lists(self) -> tuple:
        return (
            self.starts,
            self.piece_of,
            self.turn_of,
            self.shows,
            self.entry_kind,
            self.radix,
        )

    def fresh_state(self) -> tuple:
        """A job's own copy of everything the walk changes."""
        f = len(self.order)
        return (
            self.twin,
            self.used.copy(),
            self.shown.copy(),
            self.piece.copy(),
            np.zeros(max(f, 1), np.int64),
            self.supply.copy(),
            self.demand.copy(),
        )

    def board_of(self, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The full board (piece, turn per cell) of a candidate per depth."""
        piece, turn = self.piece.copy(), self.turn.copy()
        piece[self.order], turn[self.order] = self.piece_of[chosen], self.turn_of[chosen]
        return piece, turn

    def walk(self, state, first: int, depth: int, limit: int, max_nodes: int, stop, progress, keep: int):
        """`_walk` on this board; returns (status, boards reached, nodes, record)."""
        record = np.zeros((keep, max(depth, 1)), np.int64)
        status, found, nodes = (_walk_books if self.lookahead else _walk_plain)(
            self.geometry(),
            self.lists(),
            state,
            first,
            depth,
            limit,
            max_nodes,
            stop,
            progress,
            record,
        )
        return status, found, nodes, record[: min(found, keep)]


JOBS = 256  # jobs the tree is split into: enough that the threads of a large machine finish together


def threads_available() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def search(
    board: Board,
    limit: int | None = None,
    keep: int = 1,
    threads: int | None = None,
    max_nodes: int | None = None,
    seconds: float | None = None,
    show_progress: bool = False,
) -> Answer:
    """Every perfect board (or at least `limit`), keeping the first `keep`; see the module docstring.
    `show_progress`: a bar of the jobs done (a count can take minutes).

    The tree is split into JOBS jobs (`_split`) on any number of threads, so the answer and its nodes
    are the same on any number: a job after the one that reaches `limit` is stopped, and its nodes are
    not counted (on one thread it never starts). `max_nodes` and `seconds` stop the search early (an
    incomplete answer); on more than one thread the node cap is read every few milliseconds.
    """
    started = time.perf_counter()
    threads = threads or threads_available()
    limit = (
        -(-limit // board.symmetry) if limit is not None else np.iinfo(np.int64).max
    )  # each stands for its turns
    max_nodes = max_nodes if max_nodes is not None else np.iinfo(np.int64).max
    f = len(board.order)
    if not board.consistent:
        return Answer(0, [], 0, time.perf_counter() - started, "finished", board.symmetry)
    depth, prefixes, spent = _split(board, f)
    flags = np.zeros(max(len(prefixes), 1), np.int64)  # per job: 1 time is up, 2 not needed, 3 node cap
    progress = np.zeros(max(len(prefixes), 1), np.int64)
    timer = threading.Timer(seconds, flags.fill, (1,)) if seconds is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()

    def job(k: int, budget: int):
        if flags[k]:
            return -2, 0, 0, np.zeros((0, f), np.int64)
        state = board.fresh_state()
        _replay(prefixes[k], board.geometry(), board.lists(), state, board.lookahead)
        return board.walk(state, depth, f, limit, budget, flags[k : k + 1], progress[k : k + 1], keep)

    results: dict[int, tuple] = {}
    bar = tqdm(total=len(prefixes), unit="job", desc="perfect boards", disable=not show_progress, leave=False)
    with interrupt.listen(lambda: flags.fill(1)):  # Ctrl-C stops it as the time limit does
        try:
            if threads == 1:
                for k in range(len(prefixes)):
                    walked = spent + sum(r[2] for r in results.values())
                    results[k] = job(k, max_nodes - walked)
                    bar.update()
                    if results[k][0] != 1 or _found_before(results, k + 1) >= limit:
                        break
            else:
                _run_jobs(
                    job, results, len(prefixes), threads, limit, max_nodes - spent, flags, progress, bar
                )
        finally:
            bar.close()
            if timer is not None:
                timer.cancel()
    return _answer(board, results, prefixes, depth, spent, limit, flags, started)


def _run_jobs(
    job, results: dict, jobs: int, threads: int, limit: int, budget: int, flags, progress, bar
) -> None:
    """Run the jobs on a pool of threads, in order; stop later jobs once earlier ones reach `limit`."""
    with ThreadPoolExecutor(max_workers=threads) as pool:
        pending = {pool.submit(job, k, budget): k for k in range(jobs)}
        while pending:
            done, _ = wait(pending, timeout=0.02, return_when=FIRST_COMPLETED)
            for future in done:
                results[pending.pop(future)] = future.result()
            bar.update(len(done))
            reached = _reached(results, jobs)
            if reached is not None and _found_before(results, reached + 1) >= limit:
                flags[reached + 1 :] = np.maximum(flags[reached + 1 :], 2)  # they cannot change the answer
            walked = sum(r[2] for r in results.values()) + progress.sum()
            if walked > budget:
                flags[flags == 0] = 3


def _answer(
    board: Board, results: dict, prefixes: list, depth: int, spent: int, limit: int, flags, started
) -> Answer:
    """The jobs' results read in search order, up to the job that reaches `limit` or stopped early."""
    count, boards, nodes, reason = 0, [], spent, "finished"
    for k in range(len(prefixes)):
        status, found, walked, record = results[k]
        count, nodes = count + found, nodes + walked
        boards += [board.board_of(np.concatenate([prefixes[k], row[depth:]])) for row in record]
        if count >= limit:
            count, reason = limit, "limit"
            break
        if status != 1:
            reason = "seconds" if flags[k] == 1 else "max_nodes"
            break
    elapsed = time.perf_counter() - started
    return Answer(count * board.symmetry, boards, int(nodes), elapsed, reason, board.symmetry, len(prefixes))


def _reached(results: dict[int, tuple], jobs: int) -> int | None:
    """The last job k such that jobs 0..k have all finished, or None."""
    k = -1
    while k + 1 < jobs and k + 1 in results:
        k += 1
    return k if k >= 0 else None


def _found_before(results: dict[int, tuple], k: int) -> int:
    """Boards found by jobs 0..k-1 (all finished)."""
    return sum(results[j][1] for j in range(k))


def _split(board: Board, f: int) -> tuple[int, list[np.ndarray], int]:
    """(depth, the partial boards there as candidates per depth, nodes walked to list them): the
    shallowest depth with JOBS partial boards (or the last), whatever the threads, so that the nodes
    walked are the same on any number. Listed a level at a time, each level from the one before, so the
    listing walks each partial board above that depth once (a narrow tree is not walked again per level)."""
    never, progress = np.zeros(1, np.int64), np.zeros(1, np.int64)
    prefixes, depth, spent = [np.zeros(0, np.int64)], 0, 0
    width = len(board.piece_of) + 1  # the most children a partial board can have
    while 0 < len(prefixes) < JOBS and depth < f:
        deeper = []
        for prefix in prefixes:
            state = board.fresh_state()
            _replay(prefix, board.geometry(), board.lists(), state, board.lookahead)
            _, found, nodes, record = board.walk(
                state, depth, depth + 1, 1 << 62, 1 << 62, never, progress, width
            )
            spent += nodes
            deeper += list(record)
        prefixes, depth = deeper, depth + 1
    return depth, prefixes, spent  # at depth f, each job is a board with nothing left to walk
