"""The compiled fitness: unmatched inner edges of a board, from a genome in one packed plan.

Every compiled loop here counts with `unmatched`, the one edge rule of `board.unmatched_edge`.
"""

from __future__ import annotations

import numba
import numpy as np

from puzzles.edge_matching.board import MAX_COLOUR
from puzzles.edge_matching.board import unmatched_join as unmatched


@numba.njit(cache=True, nogil=True)
def count_unmatched(piece, rot, table, n):
    """Unmatched inner edges of a board of n rows given as piece and turns per cell (row-major)."""
    bad = 0
    m = len(piece) // n
    for r in range(n):
        for c in range(m):
            i = r * m + c
            if c + 1 < m:
                bad += unmatched(table[piece[i], rot[i], 2], table[piece[i + 1], rot[i + 1], 0])
            if r + 1 < n:
                bad += unmatched(table[piece[i], rot[i], 3], table[piece[i + m], rot[i + m], 1])
    return bad


HEAD = 8  # plan = [rows n, free count f, turns? (0/1), columns m, rules? (0/1), where the free cells of
#              class 0, 1, 2 start in the cell block (rules only), free cells (f; under the rules grouped
#              by class, row-major within each, as cell * 4 + first outward side), free pieces (f), word per
#              cell of the pre-placed board (n m), word per piece and turn (n m * 4), rules only: a code per
#              free piece (f, `_codes`), four words per free piece (4 f, `_rule_words`)]
FIELD = 21  # bits per class in the packed next-cell counters of the rules' decoding (cells < 2**21)


def pack(sides: np.ndarray) -> np.ndarray:
    """One int64 word per [left, top, right, bottom] row: side s in bits 16 s .. 16 s + 15."""
    t = np.asarray(sides, dtype=np.int64)
    return t[..., 0] | (t[..., 1] << 16) | (t[..., 2] << 32) | (t[..., 3] << 48)


def fitness_plan(
    n: int, m: int, free_cells, free_pieces, rotations: bool, preplaced_sides, table, rules=None
) -> np.ndarray:
    """Everything the compiled fitness needs in one int array, so a call passes two arguments.

    `table` has all four turns of every piece. Each array argument costs the dispatcher time, and
    one packed word per piece and turn is one load per cell instead of four: on a 16 x 16 board
    these halve the time of a call. `rules` (a puzzle's `GreyRules`, or None) makes the genome a
    priority order within each piece class, border pieces turned grey side out (see `plan_unmatched`).
    """
    if table.max() > MAX_COLOUR:
        raise ValueError(f"colours above {MAX_COLOUR} do not fit the packed fitness")
    f = len(free_cells)
    if rules is None:
        head, cells, tail = [n, f, int(rotations), m, 0, 0, 0, 0], free_cells, []
    else:
        sizes = [len(c) for c in rules.cells]
        head = [n, f, int(rotations), m, 1, 0, sizes[0], sizes[0] + sizes[1]]
        spots = np.concatenate(rules.cells)
        cells = 4 * spots + np.maximum(rules.out_side[spots], 0)
        tail = [_codes(rules), _rule_words(rules, free_pieces, table)]
    return np.concatenate(
        [head, cells, free_pieces, pack(preplaced_sides), pack(table).ravel(), *tail]
    ).astype(np.int64)


def _codes(rules) -> np.ndarray:
    """Per free piece: its class's counter shift (FIELD * class) | inner << 6, so that the decoding picks
    a piece's next cell without a branch (a branch on the class of a random genome's piece mispredicts)."""
    kind = np.asarray(rules.piece_class, dtype=np.int64)
    return FIELD * kind | (kind == 0).astype(np.int64) << 6


def _rule_words(rules, free_pieces, table) -> np.ndarray:
    """Four packed words per free piece, read at its turn gene for an inner piece and at the cell's first
    outward side for a border piece (then already turned grey side out): one load, no arithmetic."""
    slot = np.arange(4)[None, :]
    turns = np.where(rules.piece_class[:, None] == 0, slot, (slot - rules.piece_grey[:, None]) % 4)
    return pack(table[np.asarray(free_pieces)[:, None], turns]).ravel()


@numba.njit(cache=True, nogil=True)
def plan_unmatched(genome, plan):
    """Fill the free cells from the genome (a packed word per cell), then count unmatched inner edges.

    Without rules the k-th gene's piece fills the k-th free cell. Under the rules each piece fills the
    next free cell of its class (corner, frame, inner) in genome order; inner pieces take their turn
    genes, border pieces the turn that puts their grey sides on the rim.
    """
    n, f, turned, m = plan[0], plan[1], plan[2], plan[3]
    cells, preplaced = n * m, HEAD + 2 * f
    words = preplaced + cells
    board = np.empty(cells, dtype=np.int64) if f == cells else plan[preplaced:words].copy()
    if plan[4]:
        codes = words + 4 * cells
        rule_words, mask = codes + f, (1 << FIELD) - 1
        nxt = plan[5] | plan[6] << FIELD | plan[7] << 2 * FIELD  # each class's next entry in the cell block
        for k in range(f):
            item = genome[k]
            code = plan[codes + item]
            shift = code & 63
            spot = plan[HEAD + ((nxt >> shift) & mask)]  # cell * 4 + its first outward side
            nxt += 1 << shift
            board[spot >> 2] = plan[rule_words + 4 * item + (spot & 3) + genome[f + item] * (code >> 6)]
    else:
        for k in range(f):
            item = genome[k]
            turn = genome[f + item] if turned else 0
            board[plan[HEAD + k]] = plan[words + plan[HEAD + f + item] * 4 + turn]
    bad, side = 0, 0xFFFF
    for r in range(n):
        for c in range(r * m, r * m + m - 1):  # right side against the next cell's left
            bad += unmatched((board[c] >> 32) & side, board[c + 1] & side)
    for i in range(cells - m):  # bottom side against the top of the cell below
        bad += unmatched((board[i] >> 48) & side, (board[i + m] >> 16) & side)
    return bad
