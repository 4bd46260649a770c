"""Rectangular boards and the generated Eternity-II-like puzzle: scores, genomes, faces and files agree."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import InputError
from puzzles.edge_matching import EdgeMatching, count_unmatched, inner_edges, turn_layout, turn_table
from puzzles.edge_matching.eternity2 import Eternity2Like
from puzzles.edge_matching.piece_files import PieceList, read_piece_file, write_piece_file

SIZES = [(3, 3), (4, 7), (7, 4), (5, 9), (8, 8)]


@pytest.mark.parametrize(("n", "m"), SIZES)
def test_the_generated_solution_is_perfect_and_the_joins_are_2nm_minus_n_minus_m(n, m):
    puzzle = Eternity2Like(n, m, frame_colours=2, inner_colours=5, instance_seed=n * m)
    best = puzzle.score(puzzle.encode(puzzle.solution()))
    assert puzzle.known_optimum == 0
    assert (best["unmatched_edges"], best["matched_edges"]) == (0, 2 * n * m - n - m)
    assert inner_edges(n, m) == 2 * n * m - n - m
    assert best["match_rate"] == 1.0 and best["border_sides_ok"] == 2 * (n + m)


@pytest.mark.parametrize(("n", "m"), SIZES)
def test_genome_fitness_face_fitness_and_numpy_scores_agree_on_random_boards(n, m):
    puzzle = Eternity2Like(n, m, frame_colours=2, inner_colours=3, instance_seed=1)
    face = puzzle.local_search()
    assert face is not None
    rng = np.random.default_rng(n + m)
    for _ in range(20):
        state = face.start(rng)
        genome = puzzle.genome_of_state(state)
        layout = puzzle.decode(genome)
        unmatched = face.fitness(face.instance, state)
        assert puzzle.fitness(genome) == unmatched == puzzle.score(genome)["unmatched_edges"]
        assert count_unmatched(layout.piece, layout.rotation, turn_table(puzzle.sides), n) == unmatched


def test_turning_a_rectangular_board_swaps_its_sides_and_keeps_its_score():
    puzzle = Eternity2Like(4, 6, frame_colours=2, inner_colours=4, instance_seed=3)
    layout = puzzle.decode(puzzle.space.random(np.random.default_rng(0)))
    turned = turn_layout(layout)
    table = turn_table(puzzle.sides)
    assert (turned.n, turned.m) == (6, 4)
    assert count_unmatched(turned.piece, turned.rotation, table, 6) == puzzle.fitness(puzzle.encode(layout))


def test_a_rectangular_piece_file_round_trips_with_its_size_header(tmp_path):
    made = Eternity2Like(3, 5, frame_colours=2, inner_colours=3, instance_seed=0)
    solved = made.solution()
    hint = (1, 2, int(solved.piece[7]), int(solved.rotation[7]))  # cell (1, 2) = 1 * 5 + 2 as solved
    path = tmp_path / "rect.txt"
    write_piece_file(path, PieceList(made.sides, 3, (hint,)), order="top right bottom left")
    assert "# size: 3 x 5" in path.read_text()
    read = read_piece_file(path)
    assert (read.n, read.m, read.hints) == (3, 5, (hint,))
    assert np.array_equal(read.sides, made.sides)
    loaded = EdgeMatching(generator="file", pieces_file=str(path), rotations=True, fix_centre=False)
    assert (loaded.n, loaded.m, len(loaded.free_cells)) == (3, 5, 14)
    assert loaded.fitness(loaded.encode(solved)) == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            dict(n=8, m=10),
            "puzzle: no default colour counts for a 8 x 10 board; give puzzle.frame_colours and "
            "puzzle.inner_colours (defaults exist for square boards of side [4, 5, 6, 7, 8, 9, 10, 12, 14, 16])",
        ),
        (dict(n=2), "puzzle.n and puzzle.m must be at least 3 (a frame round an inside), got 2 x 2"),
        (
            dict(n=5, frame_colours=0, inner_colours=4),
            "puzzle.frame_colours and puzzle.inner_colours must be at least 1, got 0, 4",
        ),
    ],
)
def test_bad_generated_boards_end_with_one_clear_line(kwargs, message):
    with pytest.raises(InputError) as err:
        Eternity2Like(**kwargs)
    assert str(err.value) == message


def test_square_only_solvers_refuse_a_rectangle_in_one_line():
    from puzzles.edge_matching.solvers.greedy import Greedy

    with pytest.raises(InputError) as err:
        Greedy().solve(Eternity2Like(4, 6, frame_colours=2, inner_colours=3))
    assert str(err.value) == (
        "optimizer=greedy builds square boards only, this one is 4 x 6; "
        "use a compiled optimizer (optimizer=sa_compiled) for rectangular boards"
    )
