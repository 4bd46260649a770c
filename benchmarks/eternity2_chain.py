"""A chain model of the break walk: boards per hour at each score, predicted from the fit rates a run
measured, for the run's own schedule or another (`bench_eternity2 ladder` prints it beside the ladder).

The chain's states are (depth, breaks spent). A node at depth i has on average e(i) children that
match both known sides and, while the schedule allows one more break at depth i + 1, x(i) children
that break one join:

    M(i + 1, b) = M(i, b) e(i) + M(i, b - 1) x(i)      (b <= allow(i + 1))

Down to the deepest depth where the run placed MEASURED pieces or more, e(i) and x(i) are the run's
own: its placements at depth i + 1 without and with a break, over its nodes at depth i (those
with a break left, for x). Deeper, where the walk seldom goes, each is the pieces left of the cell's
kind times a fit rate per piece, the median of the measured depths' (the last FIT_DEPTHS of them). So
the chain is the run itself where it has data and the classic estimate (Owen, Blackwood: fits per
piece left) beyond it. It knows nothing of parity, the colour quota's cut past its ramp, restarts or
the completions of partial boards: it predicts the walk's own complete boards, which the ladder counts
as "walk", and that is what it is checked against.
"""

from __future__ import annotations

import numpy as np

MEASURED = 1000  # nodes at a depth for its rates to count as measured
FIT_DEPTHS = 24  # the deepest measured depths whose rates per piece left extrapolate the rest


def kinds_left(cells: np.ndarray, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Per depth of the fill order: the cell's kind (0 inner, 1 edge, 2 corner: its sides on the rim)
    and the pieces of that kind still free when it is filled (itself included)."""
    rows, cols = np.divmod(cells, m)
    kind = (rows == 0).astype(int) + (rows == n - 1) + (cols == 0) + (cols == m - 1)
    left = np.array([int(np.sum(kind[i:] == kind[i])) for i in range(len(cells))])
    return kind, left


def through_fixed(nodes: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """The run's nodes by depth with each pre-placed cell's depth given its parents' count: the walk
    passes through it without placing (it counts no placement there), every parent one child."""
    nodes = nodes.astype(float).copy()
    for i in np.flatnonzero(fixed >= 0):
        nodes[i] = nodes[i - 1] if i > 0 else 1.0
    return nodes


def fit_rates(nodes: np.ndarray, breaks: np.ndarray, allow: np.ndarray, kind: np.ndarray, left: np.ndarray):
    """(e, x, measured, held): the exact and one-break children per node at each depth (x per node
    with a break left), the run's where measured, else extrapolated per piece left by kind; the last
    measured depth and the chain's nodes there by breaks spent, held to the run's count. `nodes` as
    `through_fixed` gives them."""
    depth = len(nodes)
    e, x = np.zeros(depth), np.zeros(depth)
    nodes = nodes.astype(float)
    occupancy = np.zeros(int(allow.max()) + 2)  # nodes at the current depth by breaks spent
    occupancy[0] = nodes[0]
    thick = np.flatnonzero(nodes >= MEASURED)
    measured = 0
    for i in range(int(thick[-1]) if thick.size else 0):  # to the deepest depth of MEASURED nodes
        if nodes[i] == 0:
            break
        e[i] = (nodes[i + 1] - breaks[i + 1]) / nodes[i]
        can = occupancy[: allow[i + 1]].sum() / max(occupancy.sum(), 1e-300) * nodes[i]
        x[i] = breaks[i + 1] / can if can > 0 else 0.0
        occupancy = _step(occupancy, e[i], x[i], allow[i + 1])
        occupancy *= nodes[i + 1] / max(occupancy.sum(), 1e-300)  # the chain held to the run's count
        measured, held = i + 1, occupancy.copy()
    window = range(max(0, measured - FIT_DEPTHS), measured)
    for i in range(measured, depth - 1):
        same = [j for j in window if kind[j + 1] == kind[i + 1]] or list(window)
        e[i] = left[i + 1] * float(np.median([e[j] / left[j + 1] for j in same]))
        x[i] = left[i + 1] * float(np.median([x[j] / left[j + 1] for j in same]))
    return e, x, measured, held


def _step(occupancy: np.ndarray, e: float, x: float, allowed: int) -> np.ndarray:
    """One depth of the chain: exact children keep their breaks, break children spend one more, up to
    `allowed`."""
    out = occupancy * e
    out[1 : allowed + 1] += occupancy[:allowed] * x
    return out


def predict(
    nodes: np.ndarray, allow: np.ndarray, rates: tuple, hours: float, own: bool = True
) -> dict[int, float]:
    """Complete boards per hour by breaks spent (unmatched joins of the walk's own boards) for the
    schedule `allow` (per depth): for the run's own schedule (`own`) the chain goes on from the run's
    nodes at its last measured depth, for another from its nodes at depth 0."""
    e, x, measured, held = rates
    start = measured if own else 0
    occupancy = np.zeros(max(int(allow.max()) + 2, len(held)))
    if own:
        occupancy[: len(held)] = held
    else:
        occupancy[0] = nodes[0]
    for i in range(start, len(nodes) - 1):
        occupancy = _step(occupancy, e[i], x[i], allow[i + 1])
    return {b: float(v) / hours for b, v in enumerate(occupancy) if v > 0}


def allowance(schedule, cells: int) -> np.ndarray:
    """allow[i]: the breaks a board may hold once depth i is filled (as breaks_tables.Tables)."""
    return np.searchsorted(np.array(schedule, np.int64), np.arange(cells), "right").astype(np.int64)


def per_score(by_breaks: dict[int, float], joins: int) -> dict[int, float]:
    """Boards per hour at or above each score (matched joins of `joins`)."""
    scores = {joins - b: v for b, v in by_breaks.items()}
    return {s: sum(v for t, v in scores.items() if t >= s) for s in sorted(scores)}


def chain_for(tables, depth_nodes: np.ndarray, break_nodes: np.ndarray, hours: float, joins: int) -> tuple:
    """(boards per hour at or above each score predicted for the tables' schedule, the last measured
    depth): the chain fit to a run's placements by depth on `tables` (breaks_tables.Tables)."""
    cells = tables.order
    fixed = tables.board0[cells]
    kind, left = kinds_left(cells, tables.n, tables.m)
    nodes = through_fixed(depth_nodes, fixed)
    rates = fit_rates(nodes, break_nodes, tables.allow, kind, left)
    return per_score(predict(nodes, tables.allow, rates, hours), joins), rates[2]
