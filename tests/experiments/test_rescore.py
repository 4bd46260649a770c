"""A run's recorded score is the puzzle's re-score of its final board, and a tally that disagrees fails loudly."""

from __future__ import annotations

import numpy as np
import pytest

from core.faces import Face
from experiments import api


class Boasting:
    """An optimiser whose compiled-style tally claims a better score than its board has."""

    name = "boasting"
    needs = Face.FITNESS

    def __init__(self, claim: float = -1.0):
        self.claim = claim

    def run(self, objective, rng: np.random.Generator) -> None:
        genome = objective.space.random(rng)
        objective.account(1, [(1, self.claim)], genome)


def test_a_tally_that_disagrees_with_the_board_fails_the_run(tmp_path):
    with pytest.raises(RuntimeError, match=r"reported best -1, but its final board re-scores to \d+"):
        api.run(
            puzzle="queens", optimizer={"_target_": "tests.experiments.test_rescore.Boasting"}, out=tmp_path
        )


def test_an_honest_tally_is_recorded_as_the_re_score(tmp_path):
    """Queens: the fitness is the count of attacking pairs, re-counted here by brute force."""
    row = api.run(puzzle="queens", optimizer="sa", overrides=["budget.evaluations=300"], out=tmp_path)
    columns = [int(g) for g in row["best_genome"].split()]
    pairs = sum(
        abs(columns[a] - columns[b]) == b - a for a in range(len(columns)) for b in range(a + 1, len(columns))
    )
    assert row["best"] == pairs == row["score.attacking_pairs"]
