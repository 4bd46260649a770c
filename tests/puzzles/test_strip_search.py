"""The strip's local-search face: incremental re-packing agrees with a full decode, for every move."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_
from numba import njit

from core.rng import make_rng
from puzzles import strip_search as ss
from puzzles.packing import Packing, box
from puzzles.pentomino import PentominoStrip
from puzzles.pieces import read_pieces
from puzzles.rectangles import strip_genome
from tests.oracles.exact_solve import solve


@njit(cache=True)
def _check_moves(inst, st, rng, k, out):
    """Make k proposed moves; record delta, the from-scratch difference and the move kind of each."""
    for t in range(k):
        mv = ss.propose(inst, st, rng)
        before = ss.fitness(inst, st)
        out[t, 0] = ss.delta(inst, st, mv)
        ss.apply(inst, st, mv)
        out[t, 1] = ss.fitness(inst, st) - before
        out[t, 2] = mv[0]


def _assert_state_is_a_fresh_decode(inst, st):
    """Every cached low, used, overflow and board row equals a decode from scratch of the state's genome."""
    fresh = ss.state_from_genome(inst, st[: 2 * inst.n])
    n, rows = inst.n, inst.rows
    lows, boards = 2 * n, 5 * n + 3
    np.testing.assert_array_equal(fresh[:boards], st[:boards])
    for p in range(n + 1):
        a, b = boards + p * rows + st[lows + p], boards + p * rows + st[lows + n + 1 + p]
        np.testing.assert_array_equal(fresh[a:b], st[a:b])
    assert not inst.scratch.any()


strips = st_.tuples(
    st_.sampled_from([(3, "free"), (5, "free"), (6, "free"), (8, "free"), (6, "fixed"), (7, "fixed")]),
    st_.sampled_from([1, 8]),
    st_.sampled_from([0.0, 0.5, 1.0]),
    st_.integers(0, 10**6),
)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(strips)
def test_delta_equals_full_decode_difference(case):
    """Random strips, scales, tails and moves: delta == fitness(after) - fitness(before), and the
    state after the moves is what a full decode of its genome gives."""
    (width, orientations), scale, tail, seed = case
    strip = PentominoStrip(width=width, orientations=orientations)
    inst = ss.build_instance(strip, scale, tail=tail)
    st = ss.state_from_genome(inst, strip.space.random(np.random.default_rng(seed)))
    out = np.zeros((400, 3), np.int64)
    _check_moves(inst, st, make_rng(seed), 400, out)
    assert (out[:, 0] == out[:, 1]).all()
    _assert_state_is_a_fresh_decode(inst, st)
    genome = ss.genome_of(inst, st, orientations == "free")
    assert strip.space.contains(genome)
    assert ss.fitness(inst, st) // scale == strip.fitness(genome)


def test_every_move_kind_is_made():
    """Swaps, inserts, reversals and turns all occur (no turns on fixed pieces)."""
    for orientations, kinds in (("free", {0, 1, 2, 3}), ("fixed", {0, 1, 2})):
        strip = PentominoStrip(width=6, orientations=orientations)
        inst = ss.build_instance(strip)
        st = ss.state_from_genome(inst, strip.space.identity())
        out = np.zeros((500, 3), np.int64)
        _check_moves(inst, st, make_rng(0), 500, out)
        assert set(out[:, 2].tolist()) == kinds


@pytest.mark.parametrize("scale", [1, 8])
def test_tie_break_counts_cells_past_the_area_bound(scale):
    """The seed's 12-gap strip order: 12 rows on width 6, so 2 rows past the bound of 10."""
    strip = PentominoStrip(width=6)
    inst = ss.build_instance(strip, scale)
    genome = np.array([1, 3, 10, 6, 2, 8, 7, 9, 11, 5, 4, 0])
    layout = strip.decode(genome)
    over = int((layout.grid[10:] > 0).sum())
    assert ss.fitness(inst, ss.state_from_genome(inst, genome)) == 12 * scale + min(over, scale - 1)


@pytest.mark.parametrize("width, orientations", [(6, "free"), (7, "free"), (6, "fixed")])
def test_repack_never_worsens_and_keeps_the_state_fresh(width, orientations):
    """The large step, from random states: the change it reports is the fitness change, never up,
    within its placement cap, and the state stays a fresh decode of its genome."""
    strip = PentominoStrip(width=width, orientations=orientations)
    inst = strip.local_search().instance
    rng = np.random.default_rng(width)
    for _ in range(30):
        st = ss.state_from_genome(inst, strip.space.random(rng))
        before = ss.fitness(inst, st)
        change, tried = ss.repack(inst, st, None, 1, 40)
        assert change <= 0 and 0 <= tried <= 40**2
        assert ss.fitness(inst, st) == before + change
        _assert_state_is_a_fresh_decode(inst, st)
        gaps = strip.fitness(ss.genome_of(inst, st, orientations == "free"))  # the puzzle's own decoder
        assert ss.fitness(inst, st) // inst.scale == gaps


def _best_tail(strip, genome, k):
    """The fewest gaps over every order and orientation of the genome's last k pieces, the others kept,
    by the puzzle's own decoder: the exact re-packing's oracle, by brute force."""
    n, best = strip.space.n, np.inf
    for tail in itertools.permutations(genome[n - k : n]):
        for turns in itertools.product(*(range(strip.space.orientations[p]) for p in tail)):
            trial = genome.copy()
            trial[n - k : n] = tail
            trial[n + np.array(tail)] = turns
            best = min(best, strip.fitness(trial))
    return best


@pytest.mark.parametrize("width", [5, 6, 10])
def test_repack_reaches_the_area_bound_exactly_when_some_arrangement_of_the_tail_does(width):
    """The step re-packs the last 3 pieces inside the area bound or changes nothing. So after it the
    board has the bound's gaps if some order and orientations of those pieces (brute force) reach them,
    and is as it was otherwise. States: random genomes, and a perfect tiling's genome with its tail
    scrambled, some with two earlier pieces swapped as well, so that both outcomes occur."""
    strip = PentominoStrip(width=width, orientations="free", repack=3)
    inst, n = strip.local_search().instance, strip.space.n
    model = Packing(box(60 // width, width), read_pieces("pentominoes"))
    tiling = strip_genome(strip, model.grid(next(solve(model, model.cover()))))
    rng = np.random.default_rng(width)
    states = [strip.space.random(rng) for _ in range(6)]
    for swap in [False] * 6 + [True] * 8:
        genome = tiling.copy()
        genome[n - 3 : n] = rng.permutation(genome[n - 3 : n])
        genome[n + genome[n - 3 : n]] = rng.integers(strip.space.orientations)[genome[n - 3 : n]]
        if swap:
            i, j = rng.choice(n - 3, size=2, replace=False)
            genome[[i, j]] = genome[[j, i]]
        states.append(genome)
    reached = kept = 0
    for genome in states:
        st = ss.state_from_genome(inst, genome)
        before, gaps_before = ss.fitness(inst, st), strip.fitness(genome)
        change, _ = ss.repack(inst, st, None, 1, 10**6)  # cap far above any search here: exact
        after = ss.genome_of(inst, st, True)
        assert ss.fitness(inst, st) == before + change
        if _best_tail(strip, genome, 3) == strip.area_bound:
            assert strip.fitness(after) == strip.area_bound
            reached += gaps_before > strip.area_bound
        else:
            assert change == 0 and np.array_equal(after, genome)
            kept += 1
    assert reached >= 3 and kept >= 3  # both outcomes tested


@pytest.mark.parametrize("width", [3, 6])
def test_repack_finds_the_tiling_whose_last_pieces_were_scrambled(width):
    """A perfect tiling's genome with its last `repack` pieces shuffled and turned at random: the exact
    step puts them back into a perfect rectangle (an exact search, so it must)."""
    strip = PentominoStrip(width=width, orientations="free", repack=8)
    inst = strip.local_search().instance
    model = Packing(box(60 // width, width), read_pieces("pentominoes"))
    genome = strip_genome(strip, model.grid(next(solve(model, model.cover()))))
    rng = np.random.default_rng(0)
    for _ in range(5):
        scrambled = genome.copy()
        scrambled[4:12] = rng.permutation(scrambled[4:12])
        for p in scrambled[4:12]:
            scrambled[12 + p] = rng.integers(strip.space.orientations[p])
        st = ss.state_from_genome(inst, scrambled)
        if ss.fitness(inst, st) == 0:
            continue
        ss.repack(inst, st, None, 1, 10**4)
        assert ss.fitness(inst, st) == 0 == strip.fitness(ss.genome_of(inst, st, True))
