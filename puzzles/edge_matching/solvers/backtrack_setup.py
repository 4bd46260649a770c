"""Where the deepening search starts (backtrack.py), built once per board: the board with its pre-placed
pieces and the tallies its bound reads (`setup`, `Setup`), the candidate index by left and top colour
(`_index`, `_by_key`) and the symmetries kept out (`_symmetries`); and one deepening step run from it
(`deepening`). Apart from backtrack.py, which drives the steps and checks their answers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from puzzles.edge_matching.board import EMPTY, grey_patterns, neighbours
from puzzles.edge_matching.solvers.backtrack_kernel import _doomed, _search


def _by_key(table: np.ndarray, orients: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Orients (piece * turns + turn) listed under (group, left colour, top colour), each colour also
    under 'any'; key (group * width + a) * width + b, width = colours + 2, 'any' = width - 1.

    `entries[starts[key]:starts[key + 1]]` lists a key's orients in the order given (sorting, not
    Python lists: a board of 300 colours has 100,000 keys per group).
    """
    width = int(table.max()) + 2
    p, r = np.divmod(orients, table.shape[1])
    a, b = table[p, r, 0], table[p, r, 1]
    keys = np.concatenate([(group * width + x) * width + y for x in (a, width - 1) for y in (b, width - 1)])
    order = np.argsort(keys, kind="stable")  # a key gets orients from one of the four blocks only
    size = (int(group.max(initial=0)) + 1) * width * width
    starts = np.concatenate([[0], np.cumsum(np.bincount(keys, minlength=size))]).astype(np.int64)
    return starts, np.tile(orients, 4)[order].astype(np.int64)


def _index(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Candidates by (left colour, top colour), either of which may be 'any' (`_by_key`, one group)."""
    orients = np.arange(table.shape[0] * table.shape[1])
    return _by_key(table, orients, np.zeros_like(orients))


def _symmetries(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """twin[p]: an earlier identical piece (use identical pieces in list order); turns that repeat one."""
    twin = np.full(len(table), -1, dtype=np.int64)
    first: dict[tuple, int] = {}
    for p, row in enumerate(map(tuple, table[:, 0])):
        twin[p] = first.get(row, -1)
        first[row] = p
    skip = np.zeros(table.shape[:2], dtype=np.bool_)
    for r in range(1, table.shape[1]):
        skip[:, r] = (table[:, :r] == table[:, r : r + 1]).all(axis=2).any(axis=1)
    return twin, skip


@dataclass
class Setup:
    """Where both searches start: the board with its pre-placed pieces (piece, rot, used), the cells
    left to fill (`todo`), the inner edges they already doom (`base`), each piece's grey sides
    (`zeros`), each cell's off-board sides (`border`) and their totals over the free pieces and cells
    (`z0`, `b0`), and the symmetries (`_symmetries`)."""

    table: np.ndarray
    piece: np.ndarray
    rot: np.ndarray
    used: np.ndarray
    todo: np.ndarray
    base: int
    zeros: np.ndarray
    border: np.ndarray
    z0: int
    b0: int
    twin: np.ndarray
    skip: np.ndarray
    want: np.ndarray
    pattern: np.ndarray
    o0: int = 0


def setup(table, n: int, preplaced=None, grey_rule: bool = False, m: int | None = None) -> Setup:
    """A fresh start for `_search` (it fills the board it is given); `grey_rule`: only legal boards
    under Eternity II's rules (grey sides exactly on the rim), `want` and `pattern`."""
    m = n if m is None else m
    table = np.ascontiguousarray(table, dtype=np.int64)
    if table.ndim != 3 or table.shape[0] != n * m or table.shape[2] != 4:
        raise ValueError(
            f"need an ({n * m}, turns, 4) turn table for a {n} x {m} board, got shape {table.shape}"
        )
    twin, skip = _symmetries(table)
    given = np.asarray(preplaced if preplaced is not None else [], dtype=np.int64).reshape(-1, 3)
    piece, rot = np.full(n * m, EMPTY, np.int64), np.zeros(n * m, np.int64)
    used = np.zeros(len(table), np.bool_)
    piece[given[:, 0]], rot[given[:, 0]], used[given[:, 1]] = given[:, 1], given[:, 2], True
    base = _doomed(np.flatnonzero(piece != EMPTY), piece, rot, table, n, m)
    todo = np.flatnonzero(piece == EMPTY)
    zeros = (table[:, 0] == 0).sum(axis=1).astype(np.int64)
    pattern, cell_pattern = grey_patterns(table, n, m)
    border = (neighbours(n, m) < 0).sum(axis=1).astype(np.int64)
    z0, b0 = int(zeros[~used].sum()), int(border[todo].sum())
    want = cell_pattern if grey_rule else np.full(n * m, -1, dtype=np.int64)
    nb = neighbours(n, m)
    shown = table[piece, rot]
    o0 = sum(  # pre-placed grey sides facing an empty cell: doomed edges another grey side may join
        int(shown[x, side] == 0)
        for x in np.flatnonzero(piece != EMPTY)
        for side in range(4)
        if nb[x, side] >= 0 and piece[nb[x, side]] == EMPTY
    )
    return Setup(
        table, piece, rot, used, todo, int(base), zeros, border, z0, b0, twin, skip, want, pattern.ravel(), o0
    )


def deepening(
    s: Setup, n: int, m: int, k: int, index, max_nodes: int, stop: np.ndarray
) -> tuple[int, int, int]:
    """`_search` from `s` for a board with at most k unmatched edges: (status, nodes, candidates priced)."""
    starts, entries = index
    args = (k, s.todo, s.piece, s.rot, s.used, s.twin, s.skip, s.zeros, s.border, s.table, n, m, s.base)
    return _search(*args, s.z0, s.b0, s.o0, starts, entries, s.want, s.pattern, max_nodes, stop)
