import itertools
from collections import Counter

import numpy as np
import pytest

from core.errors import InputError
from puzzles.pentomino import PentominoStrip
from puzzles.pieces import DATA
from tests.oracles.pentomino_exhaustive import best_orders
from tests.oracles.strip_bound import orders_within


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
    with pytest.raises(InputError) as err:
        best_orders(PentominoStrip(orientations="free"), 12)
    assert str(err.value) == ("exhaustive search covers fixed orientations only (puzzle.orientations=fixed)")


@pytest.mark.parametrize("count, width", [(7, 6), (7, 5), (8, 9)])
def test_branch_and_bound_agrees_with_decoding_every_order(tmp_path, count, width):
    """The test-only branch and bound (tests/oracles/strip_bound.py) prunes no order it should count."""
    puzzle = subset_puzzle(tmp_path, count, width)
    rows = Counter(puzzle.decode(np.array(o)).rows for o in itertools.permutations(range(count)))
    pieces = [p.grid() for p in puzzle.pieces]
    for max_rows in range(min(rows) - 1, min(rows) + 3):
        assert orders_within(pieces, width, max_rows) == sum(n for r, n in rows.items() if r <= max_rows)


@pytest.mark.slow
@pytest.mark.parametrize("width, optimum, orders", [(6, 12, 144_839), (7, 10, 176_667)])
def test_known_optima_of_the_fixed_strip(width, optimum, orders):
    """The facts behind PentominoStrip.known_optimum, which decide success, ERT and the target stop:
    no order of the 12 pieces packs into fewer rows, and `orders` orders reach the optimum (the
    count the project's own exhaustive walk gives, in the slow test below). ~15 s of CPU."""
    puzzle = PentominoStrip(width=width)
    assert puzzle.known_optimum == optimum
    pieces = [p.grid() for p in puzzle.pieces]
    rows = (puzzle.area + optimum) // width
    assert rows * width - puzzle.area == optimum
    assert orders_within(pieces, width, rows - 1) == 0
    assert orders_within(pieces, width, rows) == orders


@pytest.mark.slow
@pytest.mark.parametrize("width, optimum, orders", [(6, 12, 144_839), (7, 10, 176_667)])
def test_the_exhaustive_walk_finds_the_known_optima(width, optimum, orders):
    """The project's own search (tests/oracles/pentomino_exhaustive.py) agrees; ~75 s of CPU, hence slow."""
    puzzle = PentominoStrip(width=width)
    assert best_orders(puzzle, optimum) == (optimum, orders)
