"""Baseline: the edge-matching fitness written plainly with numpy (vectorised, no compiler).

Same meaning as `EdgeMatching.fitness`: the genome's pieces fill the free cells (row-major), each
turned by its piece's quarter turns, and the result is the number of inner edges whose two sides
differ or carry the border colour 0.
"""

from __future__ import annotations

import numpy as np


def unmatched_numpy(genome, puzzle) -> int:
    """Unmatched inner edges of the genome's board, with numpy array operations only."""
    genome = np.asarray(genome)
    f = len(puzzle.free_cells)
    order = genome[:f]
    piece, rot = puzzle.base_piece.copy(), puzzle.base_rot.copy()
    piece[puzzle.free_cells] = puzzle.free_pieces[order]
    if puzzle.rotations:
        rot[puzzle.free_cells] = genome[f:][order]
    n = puzzle.n
    board = puzzle.table[piece, rot].reshape(n, n, 4)
    right, left = board[:, :-1, 2], board[:, 1:, 0]
    bottom, top = board[:-1, :, 3], board[1:, :, 1]
    return int(((right != left) | (right == 0)).sum() + ((bottom != top) | (bottom == 0)).sum())
