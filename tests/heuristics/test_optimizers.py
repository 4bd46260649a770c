"""Every optimiser: stops exactly at its budget, reproduces its trace from a seed, keeps genomes valid."""

import numpy as np
import pytest

from core.errors import InputError
from core.space import Budget
from heuristics.ga import GA
from heuristics.minimize import minimize
from heuristics.random_search import RandomSearch
from heuristics.sa import SimulatedAnnealing
from heuristics.two_opt import TwoOpt
from heuristics.vcopt_baselines import TokenEncoding, VcoptOpt2, VcoptTspGA
from puzzles.pentomino import PentominoStrip

FIXED, FREE = PentominoStrip(), PentominoStrip(orientations="free")
ALL = [
    TwoOpt(),
    TwoOpt(strategy="best", move="swap"),
    GA(),
    GA(crossover="pmx"),
    SimulatedAnnealing(),
    VcoptOpt2(),
    VcoptTspGA(),
    RandomSearch(),
]
ORIENTING = [TwoOpt(), GA(), SimulatedAnnealing(), RandomSearch(), VcoptOpt2(), VcoptTspGA()]


def checked(puzzle):
    """The puzzle's fitness, asserting every genome an optimiser proposes is in the space."""

    def fitness(genome):
        assert puzzle.space.contains(np.asarray(genome))
        return puzzle.fitness(genome)

    return fitness


@pytest.mark.parametrize("optimizer", ALL, ids=[f"{o.name}-{i}" for i, o in enumerate(ALL)])
def test_stops_exactly_at_the_evaluation_budget_fixed(optimizer):
    result = minimize(checked(FIXED), FIXED.space, optimizer, Budget(evaluations=1500), seed=1)
    assert result.evaluations == 1500 and result.stop_reason == "evaluations"
    assert result.best == FIXED.fitness(result.best_genome)


@pytest.mark.parametrize("optimizer", ORIENTING, ids=[o.name for o in ORIENTING])
def test_stops_exactly_at_the_evaluation_budget_free(optimizer):
    result = minimize(checked(FREE), FREE.space, optimizer, Budget(evaluations=1500), seed=1)
    assert result.evaluations == 1500
    assert result.best == FREE.fitness(result.best_genome)


@pytest.mark.parametrize("optimizer", ALL, ids=[f"{o.name}-{i}" for i, o in enumerate(ALL)])
def test_same_seed_same_trace(optimizer):
    """The seed decides the run: the same seed repeats it, another seed gives another run."""

    def trace(seed):
        r = minimize(FIXED.fitness, FIXED.space, optimizer, Budget(evaluations=2000), seed)
        return [(e, b) for e, _, b in r.trace], r.best_genome.tolist()

    assert trace(7) == trace(7)
    assert trace(7) != trace(8)


@pytest.mark.parametrize("optimizer", ORIENTING, ids=[o.name for o in ORIENTING])
def test_same_seed_same_trace_free(optimizer):
    def trace(seed):
        r = minimize(FREE.fitness, FREE.space, optimizer, Budget(evaluations=2000), seed)
        return [(e, b) for e, _, b in r.trace]

    assert trace(3) == trace(3)
    assert trace(3) != trace(4)


@pytest.mark.parametrize("optimizer", ALL, ids=[f"{o.name}-{i}" for i, o in enumerate(ALL)])
def test_reaches_the_known_optimum_of_the_seed_problem(optimizer):
    result = minimize(FIXED.fitness, FIXED.space, optimizer, Budget(evaluations=20000, target=12), seed=0)
    assert result.best == 12 and result.stop_reason == "target"


def test_a_space_of_one_item_is_refused():
    from core.space import PermutationSpace

    with pytest.raises(InputError) as err:
        minimize(lambda g: 0.0, PermutationSpace(1), TwoOpt(), Budget(evaluations=10), seed=0)
    assert str(err.value) == "nothing to optimise: the search space orders 1 item(s)"


def test_token_encoding_reaches_every_genome_of_the_space():
    space = FREE.space
    encoding = TokenEncoding(space)
    assert encoding.size == sum(space.orientations) == 63
    rng = np.random.default_rng(0)
    for _ in range(200):  # any genome: put each item's chosen token first, in the genome's order
        genome = space.random(rng)
        order, orient = space.split(genome)
        firsts = [np.flatnonzero((encoding.items == i) & (encoding.turns == orient[i]))[0] for i in order]
        rest = [t for t in rng.permutation(encoding.size) if t not in firsts]
        tokens = np.array(firsts + rest)
        assert encoding.decode(tokens).tolist() == genome.tolist()
        assert space.contains(encoding.decode(rng.permutation(encoding.size)))


@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda: GA(crossover="uniform"),
            "optimizer.crossover must be one of ['ordered', 'pmx'], got 'uniform'",
        ),
        (lambda: GA(pop_size=1), "optimizer.pop_size must be >= 2 and 0 <= elite < pop_size, got 1, 2"),
        (lambda: GA(cxpb=1.5), "optimizer.cxpb must be a probability in [0, 1], got 1.5"),
        (lambda: TwoOpt(strategy="worst"), "optimizer.strategy must be 'first' or 'best', got 'worst'"),
        (
            lambda: SimulatedAnnealing(alpha=1.5),
            "optimizer needs t0 > t_min > 0 and 0 < alpha < 1, got t0=5.0, t_min=0.05, alpha=1.5",
        ),
        (
            lambda: SimulatedAnnealing(moves={"teleport": 1}),
            "optimizer.moves: unknown move(s) ['teleport']; use ['swap', 'insert', 'reversal']",
        ),
        (
            lambda: SimulatedAnnealing(orientation_rate=2),
            "optimizer.orientation_rate must be in [0, 1], got 2",
        ),
        (lambda: GA(tournsize=0), "optimizer.tournsize must be >= 1, got 0"),
        (lambda: VcoptOpt2(start="identiy"), "optimizer.start must be 'identity' or 'random', got 'identiy'"),
    ],
)
def test_bad_optimizer_parameters_are_refused(make, message):
    """The whole line a user reads."""
    with pytest.raises(InputError) as err:
        make()
    assert str(err.value) == message
