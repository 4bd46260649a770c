"""An edge-matching board: pieces per cell, their turns, the two scores and the compiled fitness.

Pieces are listed as [left, top, right, bottom] colours; colour 0 is the border. Cells are
numbered row-major from the top-left. A piece turned r clockwise quarter turns shows on side s
the listed side (s - r) mod 4.
"""
from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from puzzles.edge_generators import MAX_COLOUR, inner_edges

SCORES = {
    "match_rate": "the seed's accuracy: matching sides (border sides carrying 0 included) / (4 n^2)",
    "edge_score": "matched inner edges (same colour, not 0) / (2 n (n-1)), the Eternity II score",
    "matched_edges": "inner edges whose two sides carry the same colour other than 0",
    "unmatched_edges": "inner edges that do not match: the fitness optimisers minimise",
    "border_sides_ok": "border sides carrying colour 0, out of 4 n",
    "duplicates": "cells holding a piece already placed elsewhere (only the seed-faithful greedy makes these)",
}


def turn_table(colours: np.ndarray) -> np.ndarray:
    """table[p, r, s]: the colour side s shows when piece p is turned r quarter turns clockwise."""
    sides = (np.arange(4)[None, :] - np.arange(4)[:, None]) % 4
    return np.ascontiguousarray(colours[:, sides], dtype=np.int64)


@dataclass(frozen=True)
class Layout:
    """A filled board: per cell (row-major), the piece index and its clockwise quarter turns."""

    n: int
    piece: np.ndarray
    rotation: np.ndarray

    def grid(self) -> np.ndarray:
        """Piece indices as an n x n array."""
        return self.piece.reshape(self.n, self.n)


@numba.njit(cache=True, nogil=True)
def count_unmatched(piece, rot, table, n):
    """Inner edges whose two sides differ or carry the border colour 0 (board as piece and turns per cell)."""
    bad = 0
    for r in range(n):
        for c in range(n):
            i = r * n + c
            if c + 1 < n:
                a, b = table[piece[i], rot[i], 2], table[piece[i + 1], rot[i + 1], 0]
                bad += a != b or a == 0
            if r + 1 < n:
                a, b = table[piece[i], rot[i], 3], table[piece[i + n], rot[i + n], 1]
                bad += a != b or a == 0
    return bad


HEAD = 4  # plan = [n, free count f, turns? (0/1), unused, free cells (f), free pieces (f),
#              word per cell of the fixed board (n^2), word per piece and turn (m * 4)]


def pack(sides: np.ndarray) -> np.ndarray:
    """One int64 word per [left, top, right, bottom] row: side s in bits 16 s .. 16 s + 15."""
    t = np.asarray(sides, dtype=np.int64)
    return t[..., 0] | (t[..., 1] << 16) | (t[..., 2] << 32) | (t[..., 3] << 48)


def fitness_plan(n: int, free_cells, free_pieces, rotations: bool, fixed_sides, table) -> np.ndarray:
    """Everything the compiled fitness needs in one int array, so a call passes two arguments.

    Each array argument costs the dispatcher time, and one packed word per piece and turn is one
    load per cell instead of four: on a 16 x 16 board these halve the time of a call.
    """
    if table.max() > MAX_COLOUR:
        raise ValueError(f"colours above {MAX_COLOUR} do not fit the packed fitness")
    head = [n, len(free_cells), int(rotations), 0]
    return np.concatenate([head, free_cells, free_pieces, pack(fixed_sides), pack(table).ravel()]).astype(np.int64)


@numba.njit(cache=True, nogil=True)
def plan_unmatched(genome, plan):
    """Fill the free cells from the genome (a packed word per cell), then count unmatched inner edges."""
    n, f, turned = plan[0], plan[1], plan[2]
    n2, fixed = n * n, HEAD + 2 * f
    words = fixed + n2
    board = np.empty(n2, dtype=np.int64) if f == n2 else plan[fixed:words].copy()
    for k in range(f):
        item = genome[k]
        board[plan[HEAD + k]] = plan[words + plan[HEAD + f + item] * 4 + (genome[f + item] if turned else 0)]
    bad, side = 0, 0xFFFF
    for r in range(n):
        for c in range(r * n, r * n + n - 1):
            a = (board[c] >> 32) & side  # right side against the next cell's left
            bad += (a != (board[c + 1] & side)) | (a == 0)
    for i in range(n2 - n):
        a = (board[i] >> 48) & side  # bottom side against the top of the cell below
        bad += (a != ((board[i + n] >> 16) & side)) | (a == 0)
    return bad


def colour_board(layout: Layout, table: np.ndarray) -> np.ndarray:
    """(n, n, 4) colours each cell shows on [left, top, right, bottom]."""
    return table[layout.piece, layout.rotation].reshape(layout.n, layout.n, 4)


def board_scores(board: np.ndarray) -> dict[str, float]:
    """Both scores (and their counts) of an (n, n, 4) colour board; see SCORES."""
    n = board.shape[0]
    h = board[:, :-1, 2], board[:, 1:, 0]
    v = board[:-1, :, 3], board[1:, :, 1]
    equal = int((h[0] == h[1]).sum() + (v[0] == v[1]).sum())
    matched = int(((h[0] == h[1]) & (h[0] != 0)).sum() + ((v[0] == v[1]) & (v[0] != 0)).sum())
    border = int((board[:, 0, 0] == 0).sum() + (board[0, :, 1] == 0).sum()
                 + (board[:, -1, 2] == 0).sum() + (board[-1, :, 3] == 0).sum())
    return {"match_rate": (border + 2 * equal) / (4 * n * n),
            "edge_score": matched / inner_edges(n), "matched_edges": matched,
            "unmatched_edges": inner_edges(n) - matched, "border_sides_ok": border}


def turn_layout(layout: Layout) -> Layout:
    """The whole board turned a quarter clockwise: cell (r, c) goes to (c, n-1-r), each piece turns once."""
    n = layout.n
    piece = np.rot90(layout.grid(), k=-1).ravel()
    rotation = (np.rot90(layout.rotation.reshape(n, n), k=-1).ravel() + 1) % 4
    return Layout(n, piece, rotation)
