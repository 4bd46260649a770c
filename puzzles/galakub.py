"""The Galakub cube (seed 003): pack three Z, three J and two Q pieces (8 cubes each) into 4x4x4.

The pieces are physical, so they turn (24 rotations) but are not mirrored; Z is chiral, J and Q
are not. Counts come in three conventions, as in the seed:
- raw: copies of a piece are told apart (the seed's search placed Z1, Z2, Z3, ... in order), so
  each filling appears 3! * 3! * 2! = 72 times;
- distinct: fillings, copies of a piece interchangeable;
- up to rotation: distinct fillings, a rotated cube counting once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from core.exact import CaseAnswer, CoverModel, ExactReport
from core.faces import Face
from puzzles.packing import Packing, box
from puzzles.pieces import read_pieces

if TYPE_CHECKING:
    import pandas as pd

COPIES = {"Z": 3, "J": 3, "Q": 2}
SIZE = 4
SEED = {"raw": 576, "distinct": 8, "up_to_rotation": 1}  # seed 003's figures


class Galakub:
    """The cube as an exact puzzle: one case, every raw solution, the seed's three figures.

    Args:
        reflections: may pieces also be mirrored? (The real pieces cannot be.)
    """

    name = "galakub"
    offers = frozenset({Face.EXACT})
    needs_solutions = True  # distinct fillings are counted from the solutions themselves

    def __init__(self, reflections: bool = False):
        by_letter = {p.name: p for p in read_pieces("galakub")}
        pieces = [by_letter[letter] for letter, n in COPIES.items() for _ in range(n)]
        self.packing = Packing(box(SIZE, SIZE, SIZE), pieces, reflections=reflections)

    def cases(self) -> list[dict[str, Any]]:
        return [{}]

    def model(self, case: dict[str, Any]) -> CoverModel:
        return self.packing.cover()

    def counts(self, owners: np.ndarray) -> dict[str, int]:
        """The seed's three figures from every raw solution (the covering copy per cell, one row
        each): raw solutions, distinct fillings, fillings up to rotation."""
        return {
            "raw": len(owners),
            "distinct": self.packing.count_distinct(owners, symmetric=False),
            "up_to_rotation": self.packing.count_distinct(owners, symmetric=True, mirrors=False),
        }

    def figures(self, answer: CaseAnswer) -> dict[str, Any]:
        return self.counts(self.packing.owner_table(answer.solutions))

    def report(self, table: pd.DataFrame, answers: list[CaseAnswer]) -> ExactReport:
        """The figures beside the seed's, the table, and one filling drawn layer by layer."""
        counts = {k: int(table[k].iloc[0]) for k in SEED}
        files = {"galakub.parquet": table}
        for solution in answers[0].solutions[:1]:
            files["galakub.png"] = self.draw(
                self.packing.owners(solution), title=f"Galakub: one of {counts['distinct']} fillings"
            )
        text = (
            f"Galakub: {counts['raw']} raw, {counts['distinct']} distinct, "
            f"{counts['up_to_rotation']} up to rotation (seed: 576, 8, 1) "
            f"in {answers[0].seconds:.2f} s"
        )
        return ExactReport({**counts, "matches_seed": counts == SEED}, text, files)

    def draw(self, owner: np.ndarray, title: str = "Galakub"):
        """The cube as its four layers side by side; cells coloured by piece, labelled e.g. 'Z2'."""
        import matplotlib.pyplot as plt

        from puzzles.pictures import draw_grid

        letters = [p.name for p in self.packing.pieces]
        copy = [letters[: i + 1].count(n) for i, n in enumerate(letters)]
        colour = np.zeros(self.packing.board.shape, dtype=np.int64)
        label = np.full(self.packing.board.shape, "", dtype=object)
        for cell, piece in zip(self.packing.board.cells, owner):
            colour[tuple(cell)] = piece + 1
            label[tuple(cell)] = f"{letters[piece]}{copy[piece]}"
        fig, axes = plt.subplots(1, SIZE, figsize=(3 * SIZE, 3.4))
        for z, ax in enumerate(axes):
            draw_grid(colour[z], ax=ax, title=f"layer {z}", labels=label[z])
        fig.suptitle(title)
        return fig
