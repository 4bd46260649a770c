"""A board read from a file, as a constructive solver: how a chain starts from a board another method built.

Why a solver: a compiled optimiser's `start` names a builder of its first board (greedy, beam); a
board file (`best_board.txt`, which every edge-matching run writes) is one more, so a refinement can
resume from any earlier run's board: `optimizer.start=results/runs/.../best_board.txt`.
"""

from __future__ import annotations

from pathlib import Path

from core.faces import Construction, ConstructivePuzzle
from puzzles.edge_matching.board_files import read_board
from puzzles.edge_matching.solvers.base import BoardBuilder


class BoardFile(BoardBuilder):
    """The board in `path` (puzzles/edge_matching/board_files.py), checked against the puzzle."""

    def __init__(self, path: str | Path):
        self.path, self.name = Path(path), "board_file"

    def construct(self, puzzle: ConstructivePuzzle, seconds: float | None = None) -> Construction:
        board = read_board(puzzle, self.path)
        return Construction(puzzle.layout(board.piece, board.rotation), 0, "finished")  # layout checks it
