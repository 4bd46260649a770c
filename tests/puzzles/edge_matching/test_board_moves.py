"""The edge-matching local-search face: delta agrees with the fitness, moves keep Eternity II's rules."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_
from numba import njit

from core.errors import InputError
from core.rng import make_rng
from puzzles.edge_matching import EdgeMatching, face_instance, face_states
from puzzles.edge_matching import board_moves as ef
from puzzles.edge_matching.eternity2 import Eternity2, generate_e2_like
from puzzles.edge_matching.solvers.greedy import Greedy


@njit(cache=True)
def _check_moves(propose, inst, st, rng, k, out):
    """Make k moves drawn by `propose`; record delta and the from-scratch difference for each."""
    for i in range(k):
        mv = propose(inst, st, rng)
        before = ef.fitness(inst, st)
        out[i, 0] = ef.delta(inst, st, mv)
        ef.apply(inst, st, mv)
        out[i, 1] = ef.fitness(inst, st) - before


def _random_instance(n, m, colours, seed, hints, **mix):
    """A random n x m puzzle (pieces not forced distinct) with some pre-placed pieces."""
    pieces, solution = generate_e2_like(n, m, max(1, colours // 3), colours, seed, unique=False)
    cells = np.random.default_rng(seed).choice(n * m, size=min(hints, n * m), replace=False)
    return face_instance.build_instance(pieces, n, m, fixed={int(c): int(solution[c]) for c in cells}, **mix)


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


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(boards, mixes)
def test_delta_equals_fitness_difference(board, mix):
    """Random rectangular boards with hints, every move type: delta == fitness(after) - fitness(before)."""
    n, m, colours, seed, hints = board
    inst = _random_instance(n, m, colours, seed, hints, **mix)
    st = face_states.random_state(inst, np.random.default_rng(seed))
    face_states.check_state(inst, st)
    out = np.zeros((300, 2), np.int64)
    _check_moves(ef.propose, inst, st, make_rng(seed), 300, out)
    assert (out[:, 0] == out[:, 1]).all()
    face_states.check_state(inst, st)  # corners in corners, grey outward, hints kept, colour cache fresh


def test_class_rules_of_cells_and_pieces():
    """Corner cells take two-grey pieces, frame cells one-grey pieces turned grey side outward."""
    cls, out = face_instance.cell_classes(3, 4)
    assert cls.reshape(3, 4).tolist() == [[2, 1, 1, 2], [1, 0, 0, 1], [2, 1, 1, 2]]
    assert out[0] == 0 and out[3] == 1 and out[1] == 1 and out[4] == 0  # top-left corner: left then top
    piece = np.array([[5, 0, 7, 8]])  # grey on top: a frame piece
    assert face_instance.piece_classes(piece).tolist() == [face_instance.FRAME]
    inst = face_instance.build_instance(generate_e2_like(3, 4, 2, 3, seed=1)[0], 3, 4)
    for cell in np.flatnonzero(inst.cell_class > 0):
        for p in np.flatnonzero(inst.piece_class == inst.cell_class[cell]):
            rot = face_states.forced_rotation(inst, p, cell)
            shown = inst.rc[4 * (4 * p + rot) : 4 * (4 * p + rot) + 4]
            assert shown[out[cell]] == 0  # the grey side faces out


def test_official_set_classes_and_starter():
    """4 corners, 56 frame, 196 inner pieces; the starter 139 on row 9, col 8 turned 2; 480 joins."""
    puzzle = Eternity2(clues=True)
    inst = puzzle.local_search().instance
    assert np.bincount(inst.piece_class).tolist() == [196, 56, 4]
    assert inst.fixed[8 * 16 + 7] == 138 * 4 + 2 and (inst.fixed >= 0).sum() == 5
    assert (Eternity2(starter=False).local_search().instance.fixed < 0).all()
    board = Greedy().solve(puzzle)  # the project's greedy, taken as it comes (not made legal)
    st = face_states.state_from_orients(inst, 4 * board.piece + board.rotation)
    face_states.check_state(inst, st)
    assert face_instance.joins(inst) == 480
    genome = puzzle.genome_of_state(st)  # the two faces score the same board alike
    assert puzzle.fitness(genome) == ef.fitness(inst, st)
    assert puzzle.score(genome)["matched_edges"] == 480 - ef.fitness(inst, st)


@pytest.mark.parametrize("n,m,frame,inner", [(3, 3, 2, 4), (4, 7, 3, 6), (8, 8, 3, 8), (10, 6, 4, 10)])
def test_generated_solution_is_perfect(n, m, frame, inner):
    """A generated Eternity-II-like board's known solution matches every join."""
    pieces, solution = generate_e2_like(n, m, frame, inner, seed=n * m)
    inst = face_instance.build_instance(pieces, n, m)
    st = face_states.state_from_orients(inst, solution)
    face_states.check_state(inst, st)
    assert ef.fitness(inst, st) == 0


seed_boards = st_.tuples(
    st_.integers(2, 8),
    st_.integers(1, 30),
    st_.sampled_from(["seed", "uniform"]),
    st_.integers(0, 10**6),
    st_.booleans(),
)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(seed_boards, st_.integers(0, 3))
def test_no_turn_delta_equals_fitness_difference(board, focus):
    """The seed's rules (no turns, centre given or not): delta == fitness(after) - fitness(before) for
    random states and moves; moves keep every piece on its grey pattern, unturned."""
    n, colours, generator, seed, centre = board
    puzzle = EdgeMatching(
        n=n,
        colours=min(colours, 2 * n * (n - 1)),
        generator=generator,
        instance_seed=seed,
        fix_centre=centre and n % 2 == 1,
    )
    face = puzzle.local_search()
    inst = face.instance._replace(mix=face.instance.mix.copy())
    inst.mix[8] = focus
    st = face.start(np.random.default_rng(seed))
    face_states.check_state(inst, st)
    out = np.zeros((300, 2), np.int64)
    _check_moves(ef.propose_fixed, inst, st, make_rng(seed), 300, out)
    assert (out[:, 0] == out[:, 1]).all()
    face_states.check_state(inst, st)
    assert puzzle.fitness(face.genome(st)) == ef.fitness(inst, st)  # both faces score the board alike


def test_no_turn_groups_are_grey_patterns():
    """13 x 13, centre given: 4 frame sides of 11 cells and 120 free inner cells swap; corners never move."""
    puzzle = EdgeMatching(n=13, colours=20, instance_seed=3)
    inst = puzzle.local_search().instance
    assert (
        face_instance.FixedInstance._fields[: len(face_instance.EdgeInstance._fields)]
        == face_instance.EdgeInstance._fields
    )
    assert not face_instance.turning(inst) and sorted(np.diff(inst.group_start).tolist()) == [
        11,
        11,
        11,
        11,
        120,
    ]
    corners = [0, 12, 156, 168]
    assert (inst.cell_group[corners] == -1).all() and inst.cell_group[6 * 13 + 6] == -1  # the centre
    for g in range(len(inst.group_start) - 1):
        cells = inst.group_cells[inst.group_start[g] : inst.group_start[g + 1]]
        assert len({(int(inst.cell_class[x]), int(inst.out_side[x])) for x in cells}) == 1


def test_no_turn_solution_and_greedy_board_are_legal_states():
    """The generating board is a perfect legal state; a solver's board is made legal, pieces kept once."""
    puzzle = EdgeMatching(n=7, colours=3, instance_seed=2)
    face = puzzle.local_search("greedy")
    sol = puzzle.solution()
    st = face_states.legal_state(face.instance, 4 * sol.piece + sol.rotation)
    face_states.check_state(face.instance, st)
    assert ef.fitness(face.instance, st) == 0
    board = face.built(np.random.default_rng(0))
    face_states.check_state(face.instance, board)
    assert puzzle.fitness(face.genome(board)) == ef.fitness(face.instance, board)


@pytest.mark.parametrize("colours", [3, 20])
def test_no_turn_vlns_keeps_patterns_and_never_worsens(colours):
    """The exact reassignment step without turns: legal boards, its reported change is the true one."""
    puzzle = EdgeMatching(n=9, colours=colours, instance_seed=5)
    face = puzzle.local_search()
    st = face.start(np.random.default_rng(1))
    before = ef.fitness(face.instance, st)
    change, _ = face.repair(face.instance, st, np.random.default_rng(2), 20, 40)
    face_states.check_state(face.instance, st)
    assert change <= 0 and ef.fitness(face.instance, st) == before + change
    assert change < 0  # a random board has plenty to gain


def test_a_face_needs_pieces_that_fit_their_cells():
    """Unturned pieces whose grey sides face inward fit no cell of their pattern: no face."""
    pieces = np.array([[0, 0, 1, 2]] * 4)  # four top-left corners on a 2 x 2 board
    with pytest.raises(InputError, match="grey pattern"):
        face_instance.build_instance(pieces, 2, 2, turns=False)
