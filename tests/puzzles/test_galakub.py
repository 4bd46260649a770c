"""The Galakub cube: the seed's piece counts, its three figures (576 / 8 / 1), valid fillings."""

import numpy as np
import pytest

from experiments.tasks.exact import Exact
from puzzles.galakub import COPIES, Galakub
from puzzles.pieces import orientations, read_pieces
from tests.oracles.packing_check import check_packing


def all_owners(cube: Galakub) -> np.ndarray:
    """Every raw solution of the cube, one row of cell owners each."""
    return cube.packing.owner_table(Exact().solve(cube, {}).solutions)


@pytest.fixture(scope="module")
def cube():
    return Galakub()


@pytest.fixture(scope="module")
def model(cube):
    return cube.packing


@pytest.fixture(scope="module")
def owners(cube):
    return all_owners(cube)


def test_pieces_have_the_seeds_positions(model):
    """The seed found 288 placements of Z, 432 of J and 27 of Q (24 rotations, no mirrors)."""
    placements = dict.fromkeys(COPIES, 0)
    for pl in model.placements:
        placements[model.pieces[pl.piece].name] += 1
    assert {n: placements[n] // COPIES[n] for n in COPIES} == {"Z": 288, "J": 432, "Q": 27}
    turns = {
        p.name: (len(orientations(p, False)), len(orientations(p, True))) for p in read_pieces("galakub")
    }
    assert turns == {"Z": (24, 48), "J": (24, 24), "Q": (1, 1)}  # only Z is chiral


def test_the_seeds_three_figures(cube, model, owners):
    """576 raw (copies told apart), 8 distinct fillings, 1 up to rotation of the cube."""
    assert cube.counts(owners) == {"raw": 576, "distinct": 8, "up_to_rotation": 1}
    assert len(owners) == 576 == 8 * 3 * 2 * 3 * 2 * 2  # 3! * 3! * 2! orders of the copies
    assert len(model.symmetry_perms) == 24


def test_every_solution_is_a_valid_filling(model, owners):
    pieces = [p.cells for p in model.pieces]
    cells = model.board.cells
    assert len({o.tobytes() for o in owners}) == len(owners)
    for owner in owners:
        placed = [(p, cells[owner == p]) for p in range(len(pieces))]
        check_packing(cells, pieces, placed, mirror=False)


def test_the_one_filling_is_symmetric(model, owners):
    """24 rotations, 8 distinct fillings: each filling is fixed by a rotation group of order 3."""
    one = model.canonical(owners[:1], symmetric=False)[0]
    fixed = 0
    for perm in model.symmetry_perms:
        moved = np.empty_like(owners[0])
        moved[perm] = owners[0]
        fixed += np.array_equal(model.canonical(moved[None, :], symmetric=False)[0], one)
    assert fixed == 3


def test_mirrored_pieces_double_the_fillings():
    """Allowing the chiral Z to be mirrored adds the mirror image of the one filling: a second
    filling up to rotation, the same one up to rotation and reflection."""
    mirrored = Galakub(reflections=True)
    owners = all_owners(mirrored)
    assert mirrored.counts(owners) == {"raw": 1152, "distinct": 16, "up_to_rotation": 2}
    assert mirrored.packing.count_distinct(owners, mirrors=True) == 1


def test_drawing_shows_four_labelled_layers(cube, owners):
    fig = cube.draw(owners[0])
    assert len(fig.axes) == 4
    labels = {t.get_text() for ax in fig.axes for t in ax.texts}
    assert {"Z1", "Z2", "Z3", "J1", "J2", "J3", "Q1", "Q2"} == labels
