import itertools
from collections import Counter

import numpy as np
import pytest

from core import InputError
from puzzles.pentomino import PentominoStrip
from puzzles.pentomino_exhaustive import best_orders
from puzzles.pieces import DATA


def subset_puzzle(tmp_path, count: int, width: int) -> PentominoStrip:
    """The first `count` pentominoes, as a piece file of their own."""
    blocks = (DATA / "pentominoes.txt").read_text().split("\n\n")
    pieces = [b for b in blocks if b.strip() and not b.lstrip().startswith("# ")][:count]
    path = tmp_path / "subset.txt"
    path.write_text("\n\n".join(pieces) + "\n")
    return PentominoStrip(width=width, pieces=str(path))


@pytest.mark.parametrize("count, width", [(7, 6), (7, 5), (8, 9)])
def test_walk_agrees_with_decoding_every_order(tmp_path, count, width):
    puzzle = subset_puzzle(tmp_path, count, width)
    gaps = Counter(puzzle.fitness(np.array(o)) for o in itertools.permutations(range(count)))
    fewest = min(gaps)
    assert best_orders(puzzle, int(fewest) + 3 * width) == (fewest, gaps[fewest])
    assert best_orders(puzzle, int(fewest) - 1) is None


def test_free_orientations_are_refused():
    with pytest.raises(InputError, match="fixed orientations only"):
        best_orders(PentominoStrip(orientations="free"), 12)


@pytest.mark.slow
@pytest.mark.parametrize("width, optimum, orders", [(6, 12, 144_839), (7, 10, 176_667)])
def test_known_optima_of_the_fixed_strip(width, optimum, orders):
    # The facts behind PentominoStrip.known_optimum (minutes of CPU, hence slow).
    puzzle = PentominoStrip(width=width)
    assert puzzle.known_optimum == optimum
    assert best_orders(puzzle, optimum) == (optimum, orders)
