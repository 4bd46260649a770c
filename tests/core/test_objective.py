import numpy as np
import pytest

from core.errors import InputError
from core.objective import Objective, Stop
from core.space import Budget, PermutationSpace

SPACE = PermutationSpace(5)


def count_inversions(genome) -> float:
    g = list(genome)
    return float(sum(a > b for i, a in enumerate(g) for b in g[i + 1 :]))


def test_objective_refuses_the_evaluation_after_the_budget():
    obj = Objective(count_inversions, SPACE, Budget(evaluations=3))
    for _ in range(3):
        obj(SPACE.identity()[::-1])
    with pytest.raises(Stop) as stop:
        obj(SPACE.identity())
    assert stop.value.reason == "evaluations" and obj.evaluations == 3


def test_trace_holds_one_row_per_improvement():
    obj = Objective(count_inversions, SPACE, Budget(evaluations=10))
    for genome in ([4, 3, 2, 1, 0], [4, 3, 2, 0, 1], [4, 3, 2, 1, 0], [0, 1, 2, 4, 3]):
        obj(np.array(genome))
    assert [(e, b) for e, _, b in obj.trace] == [(1, 10.0), (2, 9.0), (4, 1.0)]
    assert obj.best == 1.0 and obj.best_genome.tolist() == [0, 1, 2, 4, 3]


def test_target_stops_at_the_evaluation_that_reaches_it():
    obj = Objective(count_inversions, SPACE, Budget(evaluations=10, target=0))
    obj(np.array([1, 0, 2, 3, 4]))
    with pytest.raises(Stop, match=r"\Atarget\Z"):  # the run's stop reason
        obj(SPACE.identity())
    assert obj.evaluations == 2 and obj.best == 0


def test_seconds_budget_uses_the_clock():
    ticks = iter(range(100))
    obj = Objective(count_inversions, SPACE, Budget(seconds=3), clock=lambda: float(next(ticks)))
    with pytest.raises(Stop, match=r"\Aseconds\Z"):
        while True:
            obj(SPACE.identity())
    # clock reads: start 0; 1st call (always evaluated) traces at 1; 2nd checks 2 (< 3, ok); 3rd checks 3 -> stop
    assert obj.evaluations == 2


def test_the_first_evaluation_always_happens():
    ticks = iter([0.0, 10.0, 10.0, 10.0])
    obj = Objective(count_inversions, SPACE, Budget(seconds=1), clock=lambda: next(ticks))
    assert obj(SPACE.identity()) == 0 and obj.best_genome is not None


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"evaluations": -5}, "budget.evaluations must be positive, got -5"),
        ({"seconds": 0}, "budget.seconds must be positive, got 0"),
        ({}, "the budget is unbounded: set budget.evaluations or budget.seconds"),
        ({"target": 0}, "the budget is unbounded: set budget.evaluations or budget.seconds"),
    ],
)
def test_bad_budgets_are_refused(kwargs, message):
    """The whole line a user reads."""
    with pytest.raises(InputError) as err:
        Budget(**kwargs)
    assert str(err.value) == message


def test_space_random_genomes_are_members():
    space = PermutationSpace(4, (1, 2, 8, 4))
    rng = np.random.default_rng(0)
    assert all(space.contains(space.random(rng)) for _ in range(100))
    assert not space.contains(np.array([0, 0, 1, 2, 0, 0, 0, 0]))
    assert not space.contains(np.array([0, 1, 2, 3, 0, 2, 0, 0]))
