"""The chain model of the break walk (benchmarks/eternity2_chain.py): fit to placements made by a
known chain it gives back that chain's rates, and its prediction is that chain's boards."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.eternity2_chain import _step, allowance, fit_rates, per_score, predict


def _made_by(e, x, allow, root=1e6):
    """Placements by depth, and those with a break, of the chain (e, x) under `allow`."""
    occupancy = np.zeros(int(allow.max()) + 2)
    occupancy[0] = root
    nodes, breaks = [root], [0.0]
    for i in range(len(e) - 1):
        before = occupancy
        occupancy = _step(occupancy, e[i], x[i], allow[i + 1])
        nodes.append(occupancy.sum())
        breaks.append(before[: allow[i + 1]].sum() * x[i])
    return np.array(nodes), np.array(breaks)


@pytest.mark.parametrize("seed", range(3))
def test_the_fit_gives_back_a_known_chain_and_predicts_its_boards(seed):
    rng = np.random.default_rng(seed)
    depth = 40
    allow = allowance([20, 24, 27, 30, 33], depth)
    e, x = rng.uniform(0.9, 1.6, depth), rng.uniform(0.1, 0.6, depth)
    nodes, breaks = _made_by(e, x, allow)
    kind, left = np.zeros(depth, int), np.arange(depth, 0, -1)
    fitted = fit_rates(nodes, breaks, allow, kind, left)
    assert fitted[2] == depth - 1  # every depth measured
    assert np.allclose(fitted[0][: depth - 1], e[: depth - 1])
    allowed = [i for i in range(depth - 1) if allow[i + 1] > 0]
    assert np.allclose(fitted[1][allowed], x[allowed])
    boards = predict(nodes, allow, fitted, hours=1.0, own=False)
    assert sum(boards.values()) == pytest.approx(nodes[-1])
    assert per_score(boards, 100)[100 - 5] == pytest.approx(nodes[-1])  # at most 5 breaks: all of them
    # the run's own schedule goes on from its last measured depth: the same boards
    assert sum(predict(nodes, allow, fitted, hours=1.0).values()) == pytest.approx(nodes[-1])


def test_beyond_the_measured_depths_the_rate_per_piece_left_carries_on():
    depth = 30
    allow = np.zeros(depth, np.int64)
    left = np.arange(depth, 0, -1)
    e = 0.05 * left[1:]  # children per node: 0.05 per piece left of the next cell's kind
    nodes = np.cumprod(np.concatenate([[1e6], e]))[:depth]
    nodes[nodes < 1000] = 0  # the walk never got there
    fitted = fit_rates(nodes, np.zeros(depth), allow, np.zeros(depth, int), left)
    assert fitted[2] < depth - 1
    assert np.allclose(fitted[0][: depth - 1], e[: depth - 1])
