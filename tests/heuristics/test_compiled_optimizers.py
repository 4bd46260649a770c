"""Compiled optimisers keep the Objective's promises: exact budgets, exact and repeatable traces."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.errors import InputError
from core.faces import LocalSearchFace
from core.space import Budget
from heuristics.compiled import CompiledDescent, CompiledILS, CompiledSA, HybridVLNS
from heuristics.minimize import minimize
from puzzles.edge_matching import EdgeMatching, face_states
from puzzles.edge_matching import board_moves as ef
from puzzles.edge_matching.eternity2 import e2_like_instance
from puzzles.edge_matching.solvers.greedy import Greedy
from puzzles.edge_matching.vlns import vlns_descent
from puzzles.queens import Queens
from tests.experiments.test_experiment_run import run_app

SA = {"t_start": 1.0, "t_end": 0.1, "period": 50_000}


def _face(seed: int = 11) -> LocalSearchFace:
    """The face of a generated 6 x 7 board; a genome is the state's orients."""
    inst, _ = e2_like_instance(6, 7, 3, 6, seed=seed)
    return LocalSearchFace(
        ef.propose,
        ef.delta,
        ef.apply,
        ef.fitness,
        inst,
        start=lambda rng: face_states.random_state(inst, rng),
        genome=lambda st: st[:42].copy(),
        repair=vlns_descent,
    )


def _run(optimizer, budget: Budget, seed: int = 3, face: LocalSearchFace | None = None):
    """minimize() with the face; the fitness face is never called by a compiled optimiser."""
    face = face or _face()
    fitness = lambda genome: pytest.fail("the fitness face was called")  # noqa: E731
    return minimize(fitness, Queens(4).space, optimizer, budget, seed, face=face), face


def _true_best(result, face) -> int:
    """The fitness, from scratch, of the best board the run recorded."""
    return ef.fitness(face.instance, face_states.state_from_orients(face.instance, result.best_genome))


def test_chunks_give_the_same_trace_as_one_chunk():
    """One chunk or many uneven ones: the same trace (evaluation, best) per seed; a board of that best.

    (SA copies its best board lazily, so after sideways moves a chunk's end may keep another board
    of the same best value.)
    """
    one, face = _run(CompiledSA(**SA, chunk=200_000), Budget(evaluations=200_000))
    many, _ = _run(CompiledSA(**SA, chunk=7_777), Budget(evaluations=200_000))
    assert [(e, v) for e, _, v in one.trace] == [(e, v) for e, _, v in many.trace]
    assert _true_best(one, face) == _true_best(many, face) == many.best


@pytest.mark.parametrize(
    "optimizer",
    [
        CompiledSA(**SA, chunk=10_000),
        CompiledILS(patience=500, kick=3),
        CompiledDescent(patience=500, restart=200),
        HybridVLNS(**SA, every=20_000, steps=3, size=20),
        CompiledSA(**SA, chunk=10_000, chains=2, exchange=2),
        HybridVLNS(**SA, every=20_000, steps=3, size=20, chains=3, exchange=1),
    ],
    ids=lambda o: f"{o.name}-{o.chains}",
)
def test_evaluation_budget_is_exact(optimizer):
    """The run ends on exactly the budget; the recorded best is the true fitness of the recorded board."""
    result, face = _run(optimizer, Budget(evaluations=123_457))
    assert (result.evaluations, result.stop_reason) == (123_457, "evaluations")
    assert _true_best(result, face) == result.best
    evals = [e for e, _, _ in result.trace]
    assert evals[0] == 1 and evals == sorted(evals) and evals[-1] <= 123_457


@pytest.mark.parametrize("chains", [2, 3])
def test_parallel_chains_repeat_their_trace_for_a_seed_and_differ_for_another(chains):
    """Chains on threads, exchanging boards: the same seed gives the same trace, whatever the load."""
    optimizer = HybridVLNS(**SA, every=9_000, steps=2, size=12, chains=chains, exchange=2)
    first, face = _run(optimizer, Budget(evaluations=150_000))
    again, _ = _run(optimizer, Budget(evaluations=150_000))
    other, _ = _run(optimizer, Budget(evaluations=150_000), seed=4)
    assert [(e, v) for e, _, v in first.trace] == [(e, v) for e, _, v in again.trace]
    assert [(e, v) for e, _, v in first.trace] != [(e, v) for e, _, v in other.trace]
    assert _true_best(first, face) == first.best == again.best
    assert first.trace[0][0] == 1 and first.evaluations == 150_000


def test_chains_interleave_move_by_move():
    """Run-wide indices: chain c's j-th move follows j moves of earlier chains, j - 1 of later ones."""
    from heuristics.chains import _interleave

    # chain 0 improved on its 3rd move, chain 1 on its 1st and 5th; chain 0 stopped after 3 moves
    found = [[(13, 7)], [(21, 9), (25, 6)]]
    assert _interleave([10, 20], found, [13, 26]) == [(32, 9), (35, 7), (38, 6)]  # c0 c1 c0 c1 c0 c1 c1 c1


def test_target_stops_on_the_improving_evaluation():
    """With a target, the run ends on the evaluation that reached it."""
    result, _ = _run(CompiledSA(**SA), Budget(evaluations=10**6, target=20))
    assert result.stop_reason == "target" and result.best <= 20
    assert result.evaluations == result.trace[-1][0]


def test_a_puzzle_without_the_face_gets_one_line():
    """A compiled optimiser on a fitness-only puzzle says what to use instead."""
    queens = Queens(8)
    with pytest.raises(InputError, match="optimizer=sa for this puzzle"):
        minimize(queens.fitness, queens.space, CompiledSA(), Budget(evaluations=100), 0)


def _eternity2_run(tmp_path, optimizer: str, evaluations: int) -> pd.Series:
    """The record of one `puzzle=eternity2` run through the app."""
    proc = run_app(
        "puzzle=eternity2",
        f"optimizer={optimizer}",
        f"budget.evaluations={evaluations}",
        "progress=false",
        f"hydra.run.dir={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr
    return pd.read_parquet(tmp_path / "run.parquet").iloc[0]


@pytest.mark.slow
def test_eternity2_runs_from_config_through_the_app(tmp_path):
    """puzzle=eternity2 optimizer=sa_compiled: the record counts priced moves, scores out of 480."""
    row = _eternity2_run(tmp_path, "sa_compiled", 500_000)
    assert (row["puzzle"], row["optimizer"], row["evaluation_kind"]) == (
        "eternity2",
        "sa_compiled",
        "priced move",
    )
    assert row["evaluations"] == 500_000 and row["score.matched_edges"] == 480 - row["best"]
    assert row["puzzle.starter"] and not row["puzzle.clues"]


@pytest.mark.slow
def test_old_optimizers_still_count_fitness_calls_on_eternity2(tmp_path):
    """The Python SA baseline runs on the same puzzle through its fitness face."""
    row = _eternity2_run(tmp_path, "sa", 2000)
    assert (row["evaluation_kind"], row["evaluations"]) == ("fitness", 2000)


@pytest.mark.parametrize(
    "optimizer",
    [
        CompiledSA(**SA, start="greedy"),
        CompiledILS(patience=500, kick=3, start="greedy"),
        CompiledDescent(patience=500, restart=200, start="greedy"),
        HybridVLNS(**SA, every=20_000, steps=3, size=20, start="greedy"),
    ],
    ids=lambda o: o.name,
)
def test_greedy_start_is_the_first_evaluation_and_never_lost(optimizer):
    """start=greedy on the seed's rules: the first trace value is the corrected greedy's fitness
    (its board is legal here, so nothing moves), and the run's best is never worse."""
    puzzle = EdgeMatching(n=9, colours=12, instance_seed=4)
    board = Greedy().solve(puzzle)
    greedy_fitness = puzzle.fitness(puzzle.encode(board))
    face = puzzle.local_search("greedy")
    assert ef.fitness(face.instance, face.built(np.random.default_rng(0))) == greedy_fitness > 0
    result = minimize(puzzle.fitness, puzzle.space, optimizer, Budget(evaluations=100_000), 5, face=face)
    assert result.trace[0][0] == 1 and result.trace[0][2] == greedy_fitness
    assert result.best <= greedy_fitness and puzzle.fitness(result.best_genome) == result.best


def test_greedy_start_needs_a_face_that_offers_one():
    """start=greedy on a face without a greedy, or a misspelt start: one line each."""
    with pytest.raises(InputError, match="start=random"):
        _run(CompiledSA(start="greedy"), Budget(evaluations=100))
    with pytest.raises(InputError, match="optimizer.start must be one of random, greedy"):
        EdgeMatching(n=5, rotations=True).local_search("greedie")


def test_each_face_gets_its_own_bound_kernel():
    """Two proposes of one module (turning and no-turn) bind two kernels, not one cached for both."""
    from heuristics import kernels

    turning, _ = kernels.for_face(ef.propose, ef.delta, ef.apply)
    fixed, _ = kernels.for_face(ef.propose_fixed, ef.delta, ef.apply)
    assert turning is not fixed


def test_default_period_is_one_cooling_cycle_over_an_evaluation_budget():
    """period=None cools once over a chain's share of the budget: the same trace as that period
    set by hand, in any chunking, and not the trace of another period."""
    cool = {"t_start": 1.0, "t_end": 0.1}
    auto, _ = _run(CompiledSA(**cool, chunk=7_777), Budget(evaluations=200_000))
    by_hand, _ = _run(CompiledSA(**cool, period=200_002), Budget(evaluations=200_000))
    other, _ = _run(CompiledSA(**cool, period=50_000), Budget(evaluations=200_000))
    traces = [[(e, v) for e, _, v in r.trace] for r in (auto, by_hand, other)]
    assert traces[0] == traces[1] != traces[2]
    two, _ = _run(CompiledSA(**cool, chains=2), Budget(evaluations=200_000))
    two_by_hand, _ = _run(CompiledSA(**cool, chains=2, period=100_002), Budget(evaluations=200_000))
    assert [(e, v) for e, _, v in two.trace] == [(e, v) for e, _, v in two_by_hand.trace]


def test_default_period_follows_the_pace_of_a_time_budget():
    """Under a time budget a chain's period is the evaluations it is on pace to make by the end,
    never less than the next epoch's end (the cooling must not wrap round to t_start)."""
    from types import SimpleNamespace

    from heuristics.compiled import _one_cycle

    chain = SimpleNamespace(evaluations=1_000_000, params=[0.5, 0.07, 0.0])
    objective = SimpleNamespace(budget=Budget(seconds=60), seconds=15.0)
    _one_cycle(objective, [chain], margin=1000)
    assert chain.params[2] == 4_000_000
    objective.seconds = 59.999
    _one_cycle(objective, [chain], margin=1000)
    assert chain.params[2] == 1_001_000
    objective.budget = Budget(seconds=60, evaluations=3_000_000)  # both: whichever ends first
    objective.seconds = 15.0
    _one_cycle(objective, [chain], margin=1000)
    assert chain.params[2] == 3_000_002


def test_descent_restarts_where_ils_goes_home():
    """Same seed and moves: ILS returns to its best local optimum after a kick, the restarted descent
    never does, so its current board drifts further from its best and the runs part."""
    ils, _ = _run(CompiledILS(patience=300, kick=400), Budget(evaluations=100_000))
    descent, _ = _run(CompiledDescent(patience=300, restart=400), Budget(evaluations=100_000))
    both = [[(e, v) for e, _, v in r.trace] for r in (ils, descent)]
    prefix = next(i for i, (a, b) in enumerate(zip(*both, strict=False)) if a != b)
    assert prefix > 1 and both[0][:prefix] == both[1][:prefix]
