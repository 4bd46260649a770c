"""The edge-matching local-search face: delta agrees with the fitness, moves keep Eternity II's rules."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_
from numba import njit

from core.rng import make_rng
from puzzles.edge_matching import local_search as ef
from puzzles.edge_matching.eternity2 import Eternity2, generate_e2_like, greedy_state


@njit(cache=True)
def _check_moves(inst, st, rng, k, out):
    """Make k random proposed moves; record delta and the from-scratch difference for each."""
    for i in range(k):
        mv = ef.propose(inst, st, rng)
        before = ef.fitness(inst, st)
        out[i, 0] = ef.delta(inst, st, mv)
        ef.apply(inst, st, mv)
        out[i, 1] = ef.fitness(inst, st) - before


def _random_instance(n, m, colours, seed, hints, **mix):
    """A random n x m puzzle (pieces not forced distinct) with some pre-placed pieces."""
    pieces, solution = generate_e2_like(n, m, max(1, colours // 3), colours, seed, unique=False)
    cells = np.random.default_rng(seed).choice(n * m, size=min(hints, n * m), replace=False)
    return ef.build_instance(pieces, n, m, fixed={int(c): int(solution[c]) for c in cells}, **mix)


boards = st_.tuples(
    st_.integers(2, 7), st_.integers(2, 7), st_.integers(1, 6), st_.integers(0, 10**6), st_.integers(0, 5)
)
mixes = st_.sampled_from(
    [
        {},
        {"p_turn": 0.0, "p_keep": 1.0},
        {"p_turn": 0.0, "p_random": 1.0},
        {"p_turn": 0.0, "p_local": 1.0, "radius": 1},
        {"w_corner": 1.0, "w_frame": 0.0, "w_inner": 0.0},
        {"w_corner": 0.0, "w_frame": 1.0, "w_inner": 0.0},
        {"focus": 3, "p_turn": 0.3},
    ]
)


@settings(max_examples=40, deadline=None)
@given(boards, mixes)
def test_delta_equals_fitness_difference(board, mix):
    """Random rectangular boards with hints, every move type: delta == fitness(after) - fitness(before)."""
    n, m, colours, seed, hints = board
    inst = _random_instance(n, m, colours, seed, hints, **mix)
    st = ef.random_state(inst, np.random.default_rng(seed))
    ef.check_state(inst, st)
    out = np.zeros((300, 2), np.int64)
    _check_moves(inst, st, make_rng(seed), 300, out)
    assert (out[:, 0] == out[:, 1]).all()
    ef.check_state(inst, st)  # corners in corners, grey outward, hints kept, colour cache fresh


def test_class_rules_of_cells_and_pieces():
    """Corner cells take two-grey pieces, frame cells one-grey pieces turned grey side outward."""
    cls, out = ef.cell_classes(3, 4)
    assert cls.reshape(3, 4).tolist() == [[2, 1, 1, 2], [1, 0, 0, 1], [2, 1, 1, 2]]
    assert out[0] == 0 and out[3] == 1 and out[1] == 1 and out[4] == 0  # top-left corner: left then top
    piece = np.array([[5, 0, 7, 8]])  # grey on top: a frame piece
    assert ef.piece_classes(piece).tolist() == [ef.FRAME]
    inst = ef.build_instance(generate_e2_like(3, 4, 2, 3, seed=1)[0], 3, 4)
    for cell in np.flatnonzero(inst.cell_class > 0):
        for p in np.flatnonzero(inst.piece_class == inst.cell_class[cell]):
            rot = ef.forced_rotation(inst, p, cell)
            shown = inst.rc[4 * (4 * p + rot) : 4 * (4 * p + rot) + 4]
            assert shown[out[cell]] == 0  # the grey side faces out


def test_official_set_classes_and_starter():
    """4 corners, 56 frame, 196 inner pieces; the starter 139 on row 9, col 8 turned 2; 480 joins."""
    puzzle = Eternity2(clues=True)
    inst = puzzle.local_search().instance
    assert np.bincount(inst.piece_class).tolist() == [196, 56, 4]
    assert inst.fixed[8 * 16 + 7] == 138 * 4 + 2 and (inst.fixed >= 0).sum() == 5
    assert (Eternity2(starter=False).local_search().instance.fixed < 0).all()
    st = greedy_state(inst, np.random.default_rng(0))
    ef.check_state(inst, st)
    assert ef.joins(inst) == 480
    genome = puzzle.genome_of_state(st)  # the two faces score the same board alike
    assert puzzle.fitness(genome) == ef.fitness(inst, st)
    assert puzzle.score(genome)["matched_edges"] == 480 - ef.fitness(inst, st)


@pytest.mark.parametrize("n,m,frame,inner", [(3, 3, 2, 4), (4, 7, 3, 6), (8, 8, 3, 8), (10, 6, 4, 10)])
def test_generated_solution_is_perfect(n, m, frame, inner):
    """A generated Eternity-II-like board's known solution matches every join."""
    pieces, solution = generate_e2_like(n, m, frame, inner, seed=n * m)
    inst = ef.build_instance(pieces, n, m)
    st = ef.state_from_orients(inst, solution)
    ef.check_state(inst, st)
    assert ef.fitness(inst, st) == 0


def test_seed_rules_offer_no_face():
    """Pieces that never turn cannot keep grey sides outward by turning: no local-search face."""
    from puzzles.edge_matching import EdgeMatching

    assert EdgeMatching(n=5, rotations=False).local_search() is None
