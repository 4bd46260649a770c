"""The n-queens puzzle, with both faces a puzzle can offer: a worked example of adding a puzzle
(this module and configs/puzzle/queens.yaml are all it takes).

- For metaheuristics (`task=optimise`): queen r stands in row r, column genome[r], so rows and
  columns never clash; the fitness counts the pairs of queens that share a diagonal (0: solved,
  possible for every n >= 4).
- For exact solvers (`task=exact`): a cover-model row is a queen on one square; every board row and
  column must hold one queen (primary items), every diagonal at most one (secondary items).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.errors import InputError
from core.exact import CaseAnswer, CoverModel, ExactReport, bitsets
from core.faces import Face
from core.space import PermutationSpace

KNOWN = {4: 2, 5: 10, 6: 4, 7: 40, 8: 92, 9: 352, 10: 724, 11: 2680, 12: 14200}  # OEIS A000170


class Queens:
    """n queens on an n x n board, no two attacking.

    Args:
        n: the board side (>= 4; smaller boards have no solution but n = 1).
    """

    name = "queens"
    offers = frozenset({Face.FITNESS, Face.EXACT})
    score_name = "attacking pairs"
    instance_keys: tuple[str, ...] = ()
    needs_solutions = False  # the exact figure is a count

    def __init__(self, n: int = 8):
        if n < 4:
            raise InputError(f"puzzle.n must be >= 4 (smaller boards have no solution), got {n}")
        self.n = n
        self.space = PermutationSpace(n)
        self.known_optimum = 0.0

    # the metaheuristic face
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
        """The queens on the board."""
        from puzzles.pictures import draw_grid

        return draw_grid(board, ax=ax, labels=np.where(board == 1, "Q", ""), title=f"{self.n} queens")

    # the exact face
    def cases(self) -> list[dict[str, Any]]:
        return [{"n": self.n}]

    def model(self, case: dict[str, Any]) -> CoverModel:
        """Items: board rows 0..n-1, columns n..2n-1, then the diagonals and the anti-diagonals."""
        n = case["n"]
        rows = [[r, n + c, 3 * n - 1 + r - c, 4 * n - 1 + r + c] for r in range(n) for c in range(n)]
        items = 6 * n - 2
        primary = bitsets([range(2 * n)], items)[0]
        return CoverModel(bitsets(rows, items), items, primary, np.arange(len(rows)), rule="mrv")

    def figures(self, answer: CaseAnswer) -> dict[str, Any]:
        return {"solutions": answer.count, "known": KNOWN.get(answer.case["n"])}

    def report(self, table, answers: list[CaseAnswer]) -> ExactReport:
        """The count beside OEIS A000170, and the first solution drawn."""
        files: dict[str, Any] = {"queens.parquet": table}
        for solution in answers[0].solutions[:1]:
            board = np.zeros(self.n * self.n, dtype=np.int64)
            board[np.asarray(solution)] = 1
            files["queens.png"] = self.draw(board.reshape(self.n, self.n))
        row = table.iloc[0]
        agrees = bool(row.known is None or np.isnan(row.known) or row.solutions == row.known)
        return ExactReport(
            {"solutions": int(row.solutions), "agrees_with_oeis": agrees},
            f"{self.n} queens: {row.solutions} solutions (OEIS A000170: {row.known})",
            files,
        )
