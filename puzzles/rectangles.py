"""Pentomino rectangles: the boards of the classic exact-cover table, and the bridge from an exact
tiling to the strip puzzle's decoder (so the metaheuristics' known optimum is shown reachable).

The 12 pentominoes (turned and flipped freely) tile the 3x20, 4x15, 5x12 and 6x10 rectangles and
the 8x8 square less its 2x2 centre. Counts are given two ways: raw (every tiling, so each is
counted once per symmetry of the board that maps it to a different tiling) and up to symmetry (a
tiling and its rotations/reflections count once), as in Knuth's "Dancing Links" table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import InputError
from core.exact import CaseAnswer, CoverModel, ExactReport
from core.faces import Face
from puzzles.packing import Packing, box
from puzzles.pieces import read_pieces

if TYPE_CHECKING:
    import pandas as pd

CENTRE = ((3, 3), (3, 4), (4, 3), (4, 4))
BOARDS = {"3x20": (3, 20), "4x15": (4, 15), "5x12": (5, 12), "6x10": (6, 10), "8x8-centre": (8, 8)}
KNUTH = {
    "3x20": (8, 2),
    "4x15": (1472, 368),
    "5x12": (4040, 1010),
    "6x10": (9356, 2339),
    "8x8-centre": (520, 65),
}  # (raw, up to symmetry), from "Dancing Links" (Knuth, 2000)


def rectangle(board: str, pieces: str = "pentominoes") -> Packing:
    """The placement model of a named board ('6x10', '8x8-centre', ...) with free pieces."""
    if board not in BOARDS:
        raise InputError(f"unknown board {board!r}; choose one of: {', '.join(BOARDS)}")
    holes = CENTRE if board == "8x8-centre" else ()
    return Packing(box(*BOARDS[board], holes=holes), read_pieces(pieces))


class PentominoRectangles:
    """Knuth's table as an exact puzzle: one case per board, every tiling, Knuth's figures beside.

    Args:
        boards: the boards to tile (see BOARDS); None: every board of the table.
    """

    name = "pentomino_rectangles"
    offers = frozenset({Face.EXACT})
    needs_solutions = True  # tilings up to symmetry are counted from the tilings themselves

    def __init__(self, boards: list[str] | None = None):
        if boards is not None and not boards:
            raise InputError(f"puzzle.boards is empty; name some of: {', '.join(BOARDS)}")
        boards = list(BOARDS) if boards is None else boards
        self.packings = {board: rectangle(board) for board in boards}

    def cases(self) -> list[dict[str, Any]]:
        return [{"board": board} for board in self.packings]

    def model(self, case: dict[str, Any]) -> CoverModel:
        return self.packings[case["board"]].cover()

    def figures(self, answer: CaseAnswer) -> dict[str, Any]:
        """One line of Knuth's table: raw tilings, up to symmetry, and Knuth's own figures."""
        packing = self.packings[answer.case["board"]]
        raw, sym = KNUTH[answer.case["board"]]
        owners = packing.owner_table(answer.solutions)
        return {
            "raw": len(owners),
            "up_to_symmetry": packing.count_distinct(owners),
            "symmetries": len(packing.symmetry_perms),
            "knuth_raw": raw,
            "knuth_up_to_symmetry": sym,
        }

    def report(self, table: pd.DataFrame, answers: list[CaseAnswer]) -> ExactReport:
        """The table (printed, as Parquet/CSV and HTML), one tiling of each board drawn."""
        from puzzles.pictures import draw_grid

        files = {
            "rectangles.parquet": table,
            "rectangles.html": (
                "Pentomino rectangles: tilings, raw and up to symmetry",
                table.set_index("board"),
            ),
        }
        for answer in answers:
            board, packing = answer.case["board"], self.packings[answer.case["board"]]
            for solution in answer.solutions[:1]:
                files[f"rectangle_{board}.png"] = draw_grid(
                    packing.grid(packing.owners(solution)), title=f"pentominoes, {board}"
                )
        agree = bool(
            ((table.raw == table.knuth_raw) & (table.up_to_symmetry == table.knuth_up_to_symmetry)).all()
        )
        text = table.to_string(index=False, float_format=lambda v: f"{v:.2f}")
        return ExactReport({"boards": len(table), "agrees_with_knuth": agree}, text, files)


def strip_genome(strip, tiling: np.ndarray) -> np.ndarray:
    """A genome that makes the strip's bottom-left decoder rebuild a tiling exactly.

    `tiling` is a (rows, strip.width) grid of piece ids. Pieces go in order of their first cell
    (row by row): every cell before it is then filled, so the decoder's first fitting position
    is the tiling's own.
    """
    order, orient = [], np.zeros(len(strip.pieces), dtype=np.int64)
    anchors = []
    for p, piece in enumerate(strip.pieces):
        cells = np.argwhere(tiling == piece.id)
        anchors.append(tuple(cells[0]))
        shape = cells - cells.min(axis=0)
        matches = [o for o, s in enumerate(strip.shapes[p]) if np.array_equal(s, shape)]
        if not matches:
            raise InputError(f"piece {piece.name} lies in an orientation the strip lacks")
        orient[p] = matches[0]
    order = sorted(range(len(strip.pieces)), key=lambda p: anchors[p])
    if not strip.space.orientations:
        return np.array(order, dtype=np.int64)
    return np.concatenate([np.array(order, dtype=np.int64), orient])
