"""The four bundled Eternity II clue puzzles load under the official rules and have a clue puzzle's shape.

Files and sources: puzzles/data/eternity2/clue1.txt .. clue4.txt and the README beside them. The checks
read the pieces as the puzzle does ([left, top, right, bottom], 0 = grey) and count by hand.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from puzzles.edge_matching.eternity2 import ORDER, Eternity2
from puzzles.edge_matching.piece_files import read_piece_file
from tests import ROOT

DATA = ROOT / "puzzles" / "data" / "eternity2"

# clue puzzle -> (rows, columns, frame colours, inner colours), as the bundled files number them
CLUES = {
    1: (6, 6, {1, 2, 3, 4}, {6, 7, 8}),
    2: (6, 12, {1, 2, 3, 4}, {6, 7, 8, 9}),
    3: (6, 6, {1, 2, 3, 4, 5}, {6, 9, 15, 18}),
    4: (6, 12, {1, 2, 3, 4, 5}, {13, 16, 21, 22}),
}


def path(k: int) -> Path:
    return DATA / f"clue{k}.txt"


def load(k: int) -> Eternity2:
    return Eternity2(starter=False, pieces_file=str(path(k)))


def side_colours(sides: np.ndarray) -> tuple[Counter, Counter]:
    """(frame, inner) colour counts over all sides: a frame side lies next to a grey side of its piece."""
    frame, inner = Counter(), Counter()
    for piece in sides.tolist():
        for k, colour in enumerate(piece):
            if colour == 0:
                continue
            beside_grey = piece[(k - 1) % 4] == 0 or piece[(k + 1) % 4] == 0
            (frame if beside_grey else inner)[colour] += 1
    return frame, inner


@pytest.mark.parametrize("k", sorted(CLUES))
def test_loads_with_its_board_size(k):
    rows, cols, _, _ = CLUES[k]
    puzzle = load(k)
    assert (puzzle.n, puzzle.m) == (rows, cols)
    assert puzzle.sides.shape == (rows * cols, 4)
    assert len(puzzle.preplaced) == 0  # a clue puzzle has no starter piece, and the files state no hints


@pytest.mark.parametrize("k", sorted(CLUES))
def test_file_states_the_order_eternity2_reads(k):
    """Eternity2 reads a file by its order header (the clue files state the bundled set's order)."""
    listed = read_piece_file(path(k))
    assert np.array_equal(listed.sides, load(k).sides)
    assert f"# order: {ORDER}" in path(k).read_text().splitlines()
    assert not listed.hints


@pytest.mark.parametrize("k", sorted(CLUES))
def test_corners_frame_and_inner_pieces(k):
    rows, cols, _, _ = CLUES[k]
    sides = load(k).sides
    grey = (sides == 0).sum(axis=1)
    assert Counter(grey.tolist()) == {2: 4, 1: 2 * (rows - 2) + 2 * (cols - 2), 0: (rows - 2) * (cols - 2)}
    for piece in sides[grey == 2].tolist():  # a corner's two grey sides are neighbours, to fit a corner
        assert any(piece[j] == 0 and piece[(j + 1) % 4] == 0 for j in range(4)), piece


@pytest.mark.parametrize("k", sorted(CLUES))
def test_every_colour_pairs_up(k):
    sides = load(k).sides
    counts = Counter(sides[sides != 0].tolist())
    assert all(count % 2 == 0 for count in counts.values()), counts


@pytest.mark.parametrize("k", sorted(CLUES))
def test_frame_and_inner_colours_are_disjoint(k):
    rows, cols, frame_colours, inner_colours = CLUES[k]
    frame, inner = side_colours(load(k).sides)
    assert set(frame) == frame_colours
    assert set(inner) == inner_colours
    assert not frame_colours & inner_colours
    frame_joins = 2 * (rows - 1) + 2 * (cols - 1)  # joins between two border cells
    inner_joins = 2 * rows * cols - rows - cols - frame_joins
    assert sum(frame.values()) == 2 * frame_joins
    assert sum(inner.values()) == 2 * inner_joins


@pytest.mark.parametrize("k", sorted(CLUES))
def test_file_names_its_source_and_licence(k):
    text = path(k).read_text()
    assert "jwortmann/Eternity2Puzzles.jl" in text
    assert "MIT licence" in text


def test_a_file_is_read_by_its_own_order_header_unless_an_order_is_given(tmp_path):
    """The same pieces written in another edge order, with that order in the header, load as the same
    pieces; an order given overrides the header."""
    sides = load(1).sides  # [left, top, right, bottom]
    other = tmp_path / "clue1_ltrb.txt"
    other.write_text(
        "# order: left top right bottom\n# size: 6 x 6\n" + "\n".join(" ".join(map(str, r)) for r in sides)
    )
    assert np.array_equal(Eternity2(starter=False, pieces_file=str(other)).sides, sides)
    forced = Eternity2(starter=False, pieces_file=str(other), order=ORDER)
    assert not np.array_equal(forced.sides, sides)
