"""The beam's kernel tables (`Prepared` builds them once per board): each cell's pool of orients, the
colour lists of the fast path, the ring slots a kept board carries and how many boards each cell keeps."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from core.errors import InputError
from puzzles.edge_matching.board import DC, DR


def check_fits(orient_pattern: np.ndarray, cell_pattern: np.ndarray, turns: int) -> None:
    """Refuse, in one line, pieces that cannot fill the board's border (too few of some kind)."""
    for pattern in np.unique(cell_pattern):
        fit = len(np.unique(np.flatnonzero(orient_pattern == pattern) // turns))
        if fit < (cell_pattern == pattern).sum():
            raise InputError(
                f"beam search needs a piece whose grey sides face out for every border cell; only {fit} "
                f"pieces fit the {(cell_pattern == pattern).sum()} cells of one kind: use a compiled "
                "optimizer (optimizer=sa_compiled)"
            )


def pools(orient_pattern: np.ndarray, cell_pattern: np.ndarray, turns: int):
    """Each cell's pool (the orients whose grey pattern is the cell's), as kernel tables: a piece
    bitset per pool, each pool piece's orients and their count, and the pool of every cell."""
    patterns, cell_pool = np.unique(cell_pattern, return_inverse=True)
    pieces = len(orient_pattern) // turns
    mask = np.zeros((len(patterns), (pieces + 63) // 64), np.uint64)
    orients = np.zeros((len(patterns), pieces, turns), np.int64)
    count = np.zeros((len(patterns), pieces), np.int64)
    for pool, pattern in enumerate(patterns):
        for o in np.flatnonzero(orient_pattern == pattern):
            p = o // turns
            orients[pool, p, count[pool, p]] = o
            count[pool, p] += 1
            mask[pool, p // 64] |= np.uint64(1) << np.uint64(p % 64)
    return mask.view(np.int64), orients, count, cell_pool.astype(np.int64)


class ColourLists(NamedTuple):
    """The beam kernel's `lists` (`colour_lists`), read by field in the kernel (numba takes a named
    tuple as it takes a tuple: the same compiled code, fields by name)."""

    fast: np.ndarray  # fast[i]: the cell at order[i] is free, its placed neighbours its left, top or both
    starts: np.ndarray  # members[starts[pool, side, c]:starts[pool, side, c + 1]]: see colour_lists
    members: np.ndarray  # orients, grouped by pool, side and the colour they show there
    piece: np.ndarray  # each member's piece
    left: np.ndarray  # each member's left colour
    top: np.ndarray  # each member's top colour


def colour_lists(table, orients, count, fixed, order, n: int, m: int) -> ColourLists:
    """The kernel's `lists` (`ColourLists`). fast[i]: the cell at order[i] is free and its placed
    neighbours are its left, its top or both; members[starts[pool, side, c]:starts[pool, side, c + 1]]
    are the pool's orients that show colour c on their left (side 0) or top (side 1)."""
    turns, colours = table.shape[1], int(table.max()) + 1
    starts = np.zeros((count.shape[0], 2, colours + 1), np.int64)
    members: list[int] = []
    for pool in range(count.shape[0]):
        pool_orients = [
            int(orients[pool, p, j]) for p in range(count.shape[1]) for j in range(count[pool, p])
        ]
        for side in range(2):
            for c in range(colours):
                starts[pool, side, c] = len(members)
                members += [o for o in pool_orients if table[o // turns, o % turns, side] == c]
            starts[pool, side, colours] = len(members)
    position = np.empty(n * m, np.int64)
    position[order] = np.arange(n * m)
    fast = np.zeros(n * m, np.bool_)
    for i, x in enumerate(order):
        row, col = divmod(int(x), m)
        before = [position[x - 1] < i if col else False, position[x - m] < i if row else False]
        after = [col == m - 1 or position[x + 1] > i, row == n - 1 or position[x + m] > i]
        fast[i] = fixed[x] < 0 and any(before) and all(after)
    members_array = np.array(members, np.int64)
    piece, turn = np.divmod(members_array, turns)  # each member's piece and colours, read without a division
    return ColourLists(fast, starts, members_array, piece, table[piece, turn, 0], table[piece, turn, 1])


def ring_slots(order: np.ndarray, n: int, m: int) -> tuple[np.ndarray, int]:
    """(slots, ring): slots[i, s] is the ring slot of the neighbour across side s of the cell at order[i]
    (-1: off the board or not yet placed) on n rows of m cells; ring is the fewest placements a board
    must carry for every cell to read its placed neighbours (m, a row, for rows)."""
    position = np.empty(n * m, np.int64)
    position[order] = np.arange(n * m)
    reads = np.full((n * m, 4), -1, np.int64)  # the order position of each placed neighbour
    for i, x in enumerate(order):
        row, col = divmod(int(x), m)
        for s in range(4):
            r, c = row + DR[s], col + DC[s]
            if 0 <= r < n and 0 <= c < m and position[r * m + c] < i:
                reads[i, s] = position[r * m + c]
    lags = np.arange(n * m)[:, None] - reads
    ring = max(int(lags[reads >= 0].max(initial=1)), 1)
    return np.where(reads >= 0, reads % ring, -1), ring


def candidate_bounds(count, cell_pool, fixed, order) -> np.ndarray:
    """The most candidates an entry can have at each cell of the order: its pool's pieces not yet
    placed in cells of that pool, times their orients (1 at a pre-placed cell)."""
    bound = np.ones(len(order), np.int64)
    placed = np.zeros(count.shape[0], np.int64)
    for i, x in enumerate(order):
        if fixed[x] < 0:
            pool = cell_pool[x]
            left = max(int((count[pool] > 0).sum() - placed[pool]), 1)
            bound[i] = left * max(int(count[pool].max()), 1)
            placed[pool] += 1
    return bound


def keep_schedule(count, cell_pool, fixed, order, width: int, max_width: int):
    """How many boards to keep after each cell, and the candidates a cell can have at most.

    Where the bound on an entry's candidates (`candidate_bounds`) falls (late in the order) the beam
    keeps up to `max_width` boards, so that no cell prices more candidates than `width` boards do at
    the worst.
    """
    bound = candidate_bounds(count, cell_pool, fixed, order)
    budget = width * bound.max()
    after = np.append(bound[1:], 1)  # the bound of the cell each kept board goes on to
    keeps = np.clip(budget // after, width, max(width, max_width))
    keeps[-1] = width
    return keeps, int(max(bound[0], (keeps[:-1] * bound[1:]).max()))
