"""A generational genetic algorithm wired from DEAP's operators.

Order genes: ordered (OX) or partially matched (PMX) crossover and shuffle-indexes mutation.
Orientation genes (one per item, where the space has them): uniform crossover and uniform-int
mutation. Tournament selection; the `elite` best survive unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from deap import algorithms, base, creator, tools

from core.errors import InputError
from core.faces import Face
from core.objective import Objective
from core.space import PermutationSpace

# DEAP's classes live at module level so that runs can be pickled to launcher workers.
if not hasattr(creator, "FitnessMin"):
    creator.create("FitnessMin", base.Fitness, weights=(-1.0,))
if not hasattr(creator, "Individual"):
    creator.create("Individual", list, fitness=creator.FitnessMin)

# creator.Individual, made at import: a list of genes with a DEAP `fitness` attribute.
Individual = Any

CROSSOVERS = {"ordered": tools.cxOrdered, "pmx": tools.cxPartialyMatched}


def mate(
    a: list[int], b: list[int], space: PermutationSpace, order_cx: Callable[[list[int], list[int]], object]
) -> tuple[list[int], list[int]]:
    """Cross the order genes with `order_cx` and the orientation genes uniformly."""
    n = space.n
    oa, ob = a[:n], b[:n]
    order_cx(oa, ob)
    a[:n], b[:n] = oa, ob
    if space.oriented:
        ra, rb = a[n:], b[n:]
        tools.cxUniform(ra, rb, 0.5)
        a[n:], b[n:] = ra, rb
    return a, b


def mutate(ind: list[int], space: PermutationSpace, indpb: float, orient_indpb: float) -> tuple[list[int]]:
    """Shuffle-indexes on the order genes; redraw orientation genes with their own rate."""
    n = space.n
    order = ind[:n]
    tools.mutShuffleIndexes(order, indpb)
    ind[:n] = order
    if space.oriented:
        orient = ind[n:]
        tools.mutUniformInt(orient, 0, [k - 1 for k in space.orientations], orient_indpb)
        ind[n:] = orient
    return (ind,)


def clone(ind: Individual) -> Individual:
    """A cheap copy (DEAP's default deep-copies, which dominates run time on small genomes)."""
    copy = creator.Individual(ind)
    copy.fitness.values = ind.fitness.values
    return copy


def individual(genes: list[int], values: tuple[float, ...]) -> Individual:
    """An individual from its genes and fitness values, as a checkpoint keeps it."""
    ind = creator.Individual(genes)
    ind.fitness.values = values
    return ind


class GA:
    """Generational GA: select, vary (DEAP's varAnd), evaluate, keep the elite; until the budget ends."""

    name = "ga"
    needs = Face.FITNESS

    def __init__(
        self,
        pop_size: int = 50,
        cxpb: float = 0.8,
        mutpb: float = 0.5,
        indpb: float = 0.2,
        orient_indpb: float = 0.1,
        tournsize: int = 3,
        elite: int = 2,
        crossover: str = "ordered",
    ):
        if crossover not in CROSSOVERS:
            raise InputError(f"optimizer.crossover must be one of {sorted(CROSSOVERS)}, got {crossover!r}")
        if pop_size < 2 or not 0 <= elite < pop_size:
            raise InputError(
                f"optimizer.pop_size must be >= 2 and 0 <= elite < pop_size, got {pop_size}, {elite}"
            )
        if tournsize < 1:
            raise InputError(f"optimizer.tournsize must be >= 1, got {tournsize}")
        for name, p in (("cxpb", cxpb), ("mutpb", mutpb), ("indpb", indpb), ("orient_indpb", orient_indpb)):
            if not 0 <= p <= 1:
                raise InputError(f"optimizer.{name} must be a probability in [0, 1], got {p}")
        self.pop_size, self.cxpb, self.mutpb = pop_size, cxpb, mutpb
        self.indpb, self.orient_indpb, self.tournsize = indpb, orient_indpb, tournsize
        self.elite, self.crossover = elite, crossover

    def toolbox(self, space: PermutationSpace) -> base.Toolbox:
        """The operators, configured for this space."""
        tb = base.Toolbox()
        tb.register("mate", mate, space=space, order_cx=CROSSOVERS[self.crossover])
        tb.register("mutate", mutate, space=space, indpb=self.indpb, orient_indpb=self.orient_indpb)
        tb.register("select", tools.selTournament, tournsize=self.tournsize)
        tb.register("clone", clone)
        return tb

    @staticmethod
    def snapshot(population: list[Individual]) -> dict[str, object]:
        """A generation's state, for a checkpoint: every individual's genes and fitness, and `random`'s
        state (DEAP's source of chance; the objective keeps numpy's)."""
        return {
            "population": [(list(ind), ind.fitness.values) for ind in population],
            "random": random.getstate(),
        }

    @staticmethod
    def evaluate(objective: Objective, population: list[Individual]) -> None:
        """Score every individual whose fitness is stale."""
        for ind in population:
            if not ind.fitness.valid:
                ind.fitness.values = (objective(ind),)

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        space, tb = objective.space, self.toolbox(objective.space)
        saved = objective.restored
        if saved is None:
            random.seed(int(rng.integers(2**63)))  # DEAP draws from the `random` module
            population = [creator.Individual(space.random(rng).tolist()) for _ in range(self.pop_size)]
            self.evaluate(objective, population)
        else:  # a checkpoint's generation: its individuals, their fitness, and `random` where it was
            population = [individual(genes, values) for genes, values in saved["population"]]
            random.setstate(saved["random"])
        while True:
            objective.checkpoint(partial(self.snapshot, population))
            elite = tools.selBest(population, self.elite)  # varAnd varies clones, so these stay intact
            offspring = algorithms.varAnd(
                tb.select(population, self.pop_size - self.elite), tb, self.cxpb, self.mutpb
            )
            self.evaluate(objective, offspring)
            population = elite + offspring
