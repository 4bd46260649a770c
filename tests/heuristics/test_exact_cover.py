"""The exact-cover engine against Knuth's example, brute force, and its own two choice rules."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import InputError
from core.exact import Regions
from heuristics.exact_cover import ExactCover
from puzzles.rectangles import rectangle

# Knuth's "Dancing Links" example: items A..G are 0..6; the one cover is rows 0, 3, 4.
KNUTH_ROWS = [[2, 4, 5], [0, 3, 6], [1, 2, 5], [0, 3], [1, 6], [3, 4, 6]]


@pytest.mark.parametrize("rule", ["first", "mrv"])
def test_knuths_example_has_its_one_cover(rule):
    problem = ExactCover(KNUTH_ROWS, 7, rule=rule)
    assert [sorted(s) for s in problem.solutions()] == [[0, 3, 4]]
    assert problem.count() == 1
    assert sorted(problem.first()) == [0, 3, 4]


def brute_force(rows, n_items, secondary):
    """Every set of rows covering each primary item once and each secondary item at most once
    (rows with no primary item take no part, as in Knuth's definition)."""
    found = set()
    usable = [r for r, row in enumerate(rows) if set(row) - set(secondary)]
    for k in range(len(usable) + 1):
        for pick in itertools.combinations(usable, k):
            hits = np.zeros(n_items, dtype=int)
            for r in pick:
                hits[rows[r]] += 1
            ok = all(hits[i] == 1 if i not in secondary else hits[i] <= 1 for i in range(n_items))
            if ok:
                found.add(pick)
    return found


problems = st.integers(1, 9).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.sets(st.integers(0, n - 1), min_size=1, max_size=4).map(sorted), max_size=11),
        st.sets(st.integers(0, n - 1), max_size=3),
    )
)


@settings(max_examples=150, deadline=None)
@given(problems, st.sampled_from(["first", "mrv"]))
def test_every_cover_found_once_as_brute_force_does(problem, rule):
    n, rows, secondary = problem
    expected = brute_force(rows, n, secondary)
    engine = ExactCover(rows, n, secondary=secondary, rule=rule)
    got = [tuple(sorted(s)) for s in engine.solutions()]
    assert len(got) == len(set(got)), "a solution was reported twice"
    assert set(got) == expected
    assert engine.count() == len(expected)


@settings(max_examples=40, deadline=None)
@given(problems, st.integers(1, 3), st.integers(1, 3))
def test_limit_and_small_batches_resume_the_same_search(problem, limit, batch):
    n, rows, secondary = problem
    engine = ExactCover(rows, n, secondary=secondary)
    everything = list(engine.solutions())
    assert list(engine.solutions(batch=batch)) == everything
    assert list(engine.solutions(limit=limit, batch=batch)) == everything[:limit]
    assert engine.count(limit=limit) == min(limit, len(everything))


def test_items_beyond_one_word():
    """20 pairs of items, each pair covered by one row or by two single rows: 2^20 covers. The
    items sit at 110..149, so rows span the second and third 64-bit words."""
    n = 20
    rows = [[2 * i, 2 * i + 1] for i in range(n)] + [[i] for i in range(2 * n)]
    offset = 110  # push the items up into the second and third words
    rows = [[offset + i for i in r] for r in rows]
    problem = ExactCover(rows, offset + 2 * n, secondary=range(offset))
    assert problem.masks.shape[1] == 3
    assert problem.count() == 2**n


def test_generator_is_lazy():
    rows = [[i] for i in range(3)] + [[0, 1, 2]]
    gen = ExactCover(rows, 3).solutions(batch=1)
    assert sorted(next(gen)) in ([0, 1, 2], [3])


def test_no_items_means_one_empty_solution_and_impossible_means_none():
    assert list(ExactCover([], 0).solutions()) == [[]]
    impossible = ExactCover([[0]], 2)
    assert impossible.first() is None
    assert impossible.count() == 0


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: ExactCover([[0, 5]], 3), "exact cover: row 0 has item 5, outside 0..2"),
        (lambda: ExactCover([[0, 0]], 3), "exact cover: row 0 lists an item twice: [0, 0]"),
        (
            lambda: ExactCover([[0]], 1, rule="fastest"),
            "exact cover: rule must be one of ('first', 'mrv'), got 'fastest'",
        ),
        (lambda: ExactCover([[0]], 1).count(limit=0), "solution limit must be at least 1, got 0"),
        (lambda: ExactCover([[0]], 1, secondary=[4]), "exact cover: secondary items must lie in 0..0"),
    ],
)
def test_bad_input_is_one_clear_line(make, message):
    """The whole line a user reads."""
    with pytest.raises(InputError) as err:
        make()
    assert str(err.value) == message


@pytest.mark.parametrize("name", ["3x20", "4x15"])
def test_region_pruning_and_both_rules_keep_the_same_solutions(name):
    """Pruning dead regions only cuts branches with no solution: the set of solutions stays."""
    pruned = ExactCover.from_model(rectangle(name).cover())
    assert pruned.region[0] == 2, "a 2D board that fits one word gets region pruning"
    plain = ExactCover.from_masks(pruned.masks, pruned.n_items, pruned.primary, "first")
    mrv = ExactCover.from_masks(pruned.masks, pruned.n_items, pruned.primary, "mrv")
    solutions = {tuple(sorted(s)) for s in pruned.solutions()}
    assert solutions == {tuple(sorted(s)) for s in plain.solutions()}
    if name == "3x20":  # mrv without pruning is slower; one board is enough
        assert solutions == {tuple(sorted(s)) for s in mrv.solutions()}


def test_regions_rule_is_checked():
    with pytest.raises(InputError) as err:
        Regions(to_fill=1, strides=(), plus=())
    assert str(err.value) == "regions: give 1 to 3 axes, one stride and one plus mask each"
