import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import InputError
from puzzles.pentomino import PentominoStrip
from puzzles.pieces import normalise
from tests.oracles.seed_pentomino import bl_score, bottom_left, seed_pieces

FIXED, FREE = PentominoStrip(), PentominoStrip(orientations="free")

# Seed 002 (002_db71fb94e0333a6a.txt, after "print(bottom_left(para))"): the field it prints for
# order 0..11 at width 6, verbatim.
SEED_FIELD = """\
[[ 1 1 1 1 1 0]
[ 2 0 0 0 0 0]
[ 2 2 2 2 3 0]
[ 0 0 3 3 3 3]
[ 0 0 4 4 0 0]
[ 4 4 4 5 0 5]
[ 0 6 6 5 5 5]
[ 6 6 6 7 0 0]
[ 0 0 0 7 8 8]
[ 0 7 7 7 8 0]
[ 9 9 9 8 8 0]
[ 0 9 0 10 10 0]
[ 0 9 10 10 0 0]
[ 0 11 0 10 0 0]
[11 11 11 12 0 0]
[ 0 11 0 12 12 0]
[ 0 0 0 0 12 12]]"""
SEED_ROWS = [[int(v) for v in line.strip("[] ").split()] for line in SEED_FIELD.splitlines()]


@pytest.mark.parametrize(
    "order, gaps",
    [
        (list(range(12)), 42),
        ([1, 0, 2, 3, 10, 5, 8, 9, 6, 7, 4, 11], 18),  # the seed's 2-opt result
        ([1, 3, 10, 6, 2, 8, 7, 9, 11, 5, 4, 0], 12),  # the seed's GA result
    ],
)
def test_seed_figures(order, gaps):
    assert FIXED.fitness(np.array(order)) == gaps


def test_seed_field_reproduced_cell_for_cell():
    assert FIXED.decode(np.arange(12)).grid.tolist() == SEED_ROWS


def assert_valid(puzzle: PentominoStrip, genome: np.ndarray):
    """Each piece exactly once, in one of its allowed orientations, inside the strip, no overlap."""
    layout = puzzle.decode(genome)
    grid = layout.grid
    assert grid.shape[1] == puzzle.width
    assert (grid > 0).sum() == puzzle.area  # no cell was written twice
    for index, piece in enumerate(puzzle.pieces):
        cells = np.argwhere(grid == piece.id)
        assert len(cells) == piece.size
        allowed = {s.tobytes() for s in puzzle.shapes[index]}
        assert normalise(cells).tobytes() in allowed
    assert grid[-1].any()  # the last row is occupied
    assert puzzle.fitness(genome) == layout.gaps == (grid == 0).sum()


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.permutations(range(12)), st.integers(4, 12))
def test_fixed_layouts_are_valid_and_match_the_seed_decoder(order, width):
    puzzle = FIXED if width == 6 else PentominoStrip(width=max(width, 5))
    genome = np.array(order)
    assert_valid(puzzle, genome)
    assert puzzle.fitness(genome) == bl_score(order, seed_pieces(puzzle.pieces), puzzle.width)


@settings(max_examples=200, deadline=None)
@given(st.permutations(range(12)), st.lists(st.integers(0, 7), min_size=12, max_size=12))
def test_free_layouts_are_valid(order, turns):
    orient = [t % k for t, k in zip(turns, FREE.space.orientations)]
    assert_valid(FREE, np.array(order + orient))


def test_known_optimum_only_where_known():
    assert PentominoStrip(width=8).known_optimum is None
    assert PentominoStrip(width=5, orientations="free").known_optimum == 0


def test_strip_narrower_than_a_piece_is_refused():
    with pytest.raises(InputError) as err:
        PentominoStrip(width=4)
    assert str(err.value) == (
        "the strip (width 4) is narrower than piece 1 (I, 5 wide); "
        "use puzzle.width >= 5 or puzzle.orientations=free"
    )
    with pytest.raises(InputError) as err:
        PentominoStrip(width=2, orientations="free")
    assert str(err.value) == "the strip (width 2) is narrower than piece 7 (V, 3 wide); use puzzle.width >= 3"


def test_unknown_orientation_mode_is_refused():
    with pytest.raises(InputError) as err:
        PentominoStrip(orientations="sometimes")
    assert str(err.value) == "puzzle.orientations must be 'fixed' or 'free', got 'sometimes'"


def test_seed_decoder_baseline_agrees_on_the_seed_field():
    """The benchmark's copy of the seed decoder prints the seed's own field, cell for cell."""
    assert bottom_left(range(12), seed_pieces(FIXED.pieces)).tolist() == SEED_ROWS


def test_text_picture_uses_piece_letters():
    assert FIXED.text(FIXED.decode(np.arange(12))).splitlines()[:2] == ["I I I I I .", "L . . . . ."]
