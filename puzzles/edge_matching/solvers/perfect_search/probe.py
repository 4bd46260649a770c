"""Order probing: Knuth's estimate of each scan order's tree by random dives, so a board can walk the
order of the smallest (`Board(order="auto")`, tables.estimate_orders)."""

from __future__ import annotations

import numba
import numpy as np

from puzzles.edge_matching.solvers.perfect_search.walks import _checked, _key

PROBES = 20000  # random dives per order for `estimate_orders`
REFINE = (1e9, 1e13)  # a best estimate in this range (seconds to hours of walking): again with 10x the dives
PROBE_SEED = 0
GLANCE = 1000  # dives on the default order first: a tree estimated below TRIVIAL nodes is walked as it is
TRIVIAL = 10_000  # nodes: about a millisecond of walking, less than building one more order's tables


@numba.njit(cache=True, nogil=True)
def tree_estimate(geometry, lists, state, dives, seed):
    """Knuth's estimate of the tree `_walk` would walk to its end: `dives` random root-to-leaf paths,
    each a child drawn uniformly at every depth; a path's estimate is the sum, over its depths, of the
    product of the branching factors above times (children + 1), the nodes `_walk` counts at a partial
    board with that many children. Returns the mean (unbiased: the expected value is the tree's nodes)
    and the standard error of the mean. Seeded: the same on every run (numba's generator, per thread)."""
    order, nb, need, key_at, key_weight, check_side, check_len, base = geometry
    starts, piece_of, turn_of, shows, side_kind, radix = lists
    next_twin, blocked0, shown0, piece, chosen, supply, demand = state
    np.random.seed(seed)
    f = order.shape[0]
    fits = np.zeros(piece_of.shape[0], np.int64)
    total, squares = 0.0, 0.0
    for _ in range(dives):
        blocked, shown = blocked0.copy(), shown0.copy()
        colours = shown.reshape(-1)
        estimate, weight = 0.0, 1.0
        for d in range(f):
            cell = order[d]
            k, i = 0, starts[_key(colours, d, base, key_at, key_weight)]
            while piece_of[i] != blocked.shape[0] - 1:  # up to the sentinel
                p = piece_of[i]
                if not blocked[p] and (
                    check_len[d] == 0 or _checked(i, d, cell, nb, shows, shown, check_side)
                ):
                    fits[k] = i
                    k += 1
                i += 1
            estimate += weight * (k + 1)
            if k == 0:
                break
            weight *= k
            i = fits[np.random.randint(k)]
            p = piece_of[i]
            blocked[p] = 1
            if next_twin[p] >= 0:
                blocked[next_twin[p]] = 0
            for s in range(4):
                shown[cell, s] = shows[i, s]
        total += estimate
        squares += estimate * estimate
    mean = total / dives
    spread = max(squares / dives - mean * mean, 0.0)
    return mean, np.sqrt(spread / dives)
