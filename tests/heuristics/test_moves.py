"""Neighbourhood moves: every move makes a different genome of the same space."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from core.space import PermutationSpace
from heuristics.moves import random_move
from heuristics.sa import MOVES

# the free pentominoes: the X piece has one orientation, I two, ...
FREE = PermutationSpace(12, (1, 2, 4, 4, 4, 4, 4, 8, 8, 8, 8, 8))


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(MOVES + ("orientation",)))
def test_every_move_changes_the_genome(seed, kind):
    rng = np.random.default_rng(seed)
    genome = FREE.random(rng)
    moved = random_move(genome, FREE, kind, rng)
    assert FREE.contains(moved) and not np.array_equal(moved, genome)


def test_orientation_moves_skip_items_with_one_orientation():
    rng = np.random.default_rng(0)
    genome = FREE.random(rng)
    for _ in range(500):
        moved = random_move(genome, FREE, "orientation", rng)
        (changed,) = np.flatnonzero(moved != genome)
        assert changed - FREE.n != 0  # item 0 (one orientation) is never picked
