"""Pentomino rectangles: Knuth's table, valid tilings, and the strip puzzle's known optimum."""

import numpy as np
import pytest

from core.errors import InputError
from experiments.tasks.exact import Exact
from heuristics.exact_cover import ExactCover
from puzzles.packing import Packing, box
from puzzles.pentomino import PentominoStrip
from puzzles.pieces import read_pieces
from puzzles.rectangles import KNUTH, PentominoRectangles, rectangle, strip_genome
from tests.oracles.exact_solve import solve
from tests.oracles.packing_check import check_packing


@pytest.mark.parametrize("name", ["3x20", "4x15", "5x12", "6x10", "8x8-centre"])
def test_knuths_table_raw_and_up_to_symmetry(name):
    """Raw counts every tiling; up to symmetry merges a tiling with its rotations/reflections."""
    table, _ = Exact().table(PentominoRectangles([name]))
    result = table.iloc[0]
    assert (result["raw"], result["up_to_symmetry"]) == KNUTH[name]
    assert result["symmetries"] == (8 if name == "8x8-centre" else 4)


@pytest.mark.parametrize("name", ["3x20", "4x15"])
def test_every_tiling_is_valid_and_reported_once(name):
    model = rectangle(name)
    cover = model.cover()
    solutions = [cover.rows[s] for s in ExactCover.from_model(cover).solutions()]
    assert len({tuple(sorted(s)) for s in solutions}) == len(solutions)
    pieces = [p.cells for p in model.pieces]
    for s in solutions:
        placed = [(model.placements[i].piece, model.board.cells[model.placements[i].cells]) for i in s]
        check_packing(model.board.cells, pieces, placed, mirror=True)


def test_centre_hole_stays_empty():
    model = rectangle("8x8-centre")
    cells = {tuple(c) for c in model.board.cells}
    assert len(cells) == 60 and not cells & {(3, 3), (3, 4), (4, 3), (4, 4)}


@pytest.mark.parametrize("width", [3, 4, 5, 6, 10, 12, 15, 20])
def test_free_strip_known_optimum_is_reached_by_its_decoder(width):
    """An exact tiling, turned into a genome, makes the decoder pack with 0 gaps: the strip's
    known optimum is right and reachable by the metaheuristics' own decoder."""
    strip = PentominoStrip(width=width, orientations="free")
    model = Packing(box(60 // width, width), read_pieces("pentominoes"))
    tiling = model.grid(next(solve(model, model.cover())))
    genome = strip_genome(strip, tiling)
    assert strip.space.contains(genome)
    assert strip.fitness(genome) == 0 == strip.known_optimum
    np.testing.assert_array_equal(strip.decode(genome).grid, tiling)


@pytest.mark.parametrize("make", [lambda: rectangle("7x9"), lambda: PentominoRectangles(["7x9"])])
def test_unknown_board_is_one_clear_line(make):
    with pytest.raises(InputError) as err:
        make()
    assert str(err.value) == "unknown board '7x9'; choose one of: 3x20, 4x15, 5x12, 6x10, 8x8-centre"
