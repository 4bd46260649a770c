"""The n-queens puzzle as a permutation: a worked example of adding a metaheuristic puzzle (this
module and configs/puzzle/queens.yaml are all it takes).

Queen r stands in row r, column genome[r], so rows and columns never clash; the fitness counts the
pairs of queens that share a diagonal (0: solved, possible for every n >= 4).
"""
from __future__ import annotations

import numpy as np

from core import InputError, PermutationSpace


class Queens:
    """n queens on an n x n board; minimise the pairs that attack along a diagonal."""

    name = "queens"
    score_name = "attacking pairs"
    instance_keys: tuple[str, ...] = ()

    def __init__(self, n: int = 8):
        if n < 4:
            raise InputError(f"puzzle.n must be >= 4 (smaller boards have no solution), got {n}")
        self.n = n
        self.space = PermutationSpace(n)
        self.known_optimum = 0.0

    def fitness(self, genome) -> float:
        """Pairs of queens on a shared diagonal: C(k, 2) for each diagonal holding k queens."""
        rows = np.arange(self.n)
        pairs = 0
        for diagonal in (rows + genome, rows - genome):
            counts = np.bincount(diagonal + self.n)
            pairs += int((counts * (counts - 1) // 2).sum())
        return float(pairs)

    def score(self, genome) -> dict[str, float]:
        return {"attacking_pairs": self.fitness(genome)}

    def decode(self, genome) -> np.ndarray:
        """The board as an n x n array: 1 where a queen stands."""
        board = np.zeros((self.n, self.n), dtype=np.int64)
        board[np.arange(self.n), np.asarray(genome)] = 1
        return board

    def draw(self, board: np.ndarray, ax=None):
        """The queens on a chequered board."""
        from puzzles.pictures import draw_grid
        return draw_grid(board, ax=ax, labels=[["Q" if q else "" for q in row] for row in board],
                         title=f"{self.n} queens")
