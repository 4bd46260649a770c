import numpy as np
import pytest

from core.errors import InputError
from puzzles.pieces import orientations, parse_pieces, read_pieces

# Distinct free orientations of the 12 pentominoes (rotations and reflections), a classic fact.
FREE_ORIENTATIONS = {
    "I": 2,
    "L": 8,
    "Y": 8,
    "N": 8,
    "U": 4,
    "P": 8,
    "V": 4,
    "S": 4,
    "T": 4,
    "F": 8,
    "X": 1,
    "W": 4,
}


def test_pentominoes_file_holds_the_seed_pieces_in_order():
    pieces = read_pieces("pentominoes")
    assert [p.id for p in pieces] == list(range(1, 13))
    assert all(p.size == 5 for p in pieces)
    # seed 002, piece 3: [[0,0,3,0],[3,3,3,3]]
    assert pieces[2].grid().tolist() == [[0, 0, 1, 0], [1, 1, 1, 1]]


def test_orientation_counts():
    pieces = read_pieces("pentominoes")
    assert {p.name: len(orientations(p)) for p in pieces} == FREE_ORIENTATIONS
    assert sum(len(orientations(p)) for p in pieces) == 63
    # without reflections, chiral pieces lose half their orientations: 2+4+4+4+4+4+4+2+4+4+1+4
    assert sum(len(orientations(p, reflections=False)) for p in pieces) == 41


def test_first_orientation_is_the_piece_as_drawn():
    for p in read_pieces("pentominoes"):
        assert np.array_equal(orientations(p)[0], p.cells)


def test_3d_pieces_read_as_layers():
    # the "tripod" tetracube: a cube corner with its three neighbours; its 3-fold axis leaves 24 / 3
    (piece,) = parse_pieces("1 tripod\n##\n#.\n~\n#.\n..\n")
    assert piece.shape == (2, 2, 2) and piece.size == 4
    assert len(orientations(piece, reflections=False)) == 8
    assert len(orientations(piece, reflections=True)) == 8  # it is its own mirror image


@pytest.mark.parametrize(
    "text, message",
    [
        ("1 I\n##x##\n", "bad.txt:2: piece 1 uses 'x'; draw cells with '#' and empty space with '.'"),
        ("I\n#####\n", "bad.txt:1: expected a piece header '<id> <name>', got 'I'"),
        ("1 I\n.....\n", "bad.txt:1: piece 1 has no cells ('#')"),
        ("1 I\n#\n\n1 J\n##\n", "bad.txt: piece ids repeat: [1, 1]"),
        ("", "bad.txt: no pieces found"),
    ],
)
def test_malformed_piece_files_name_the_problem(text, message):
    """The whole line a user reads."""
    with pytest.raises(InputError) as err:
        parse_pieces(text, "bad.txt")
    assert str(err.value) == message
