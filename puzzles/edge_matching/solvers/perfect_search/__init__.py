"""Exact search for perfect edge-matching boards on any n x m board: the first, all of them, or a proof
that there is none.

A perfect board shows grey (colour 0) on every rim side and nowhere else, and the same colour on both
sides of every inner edge. Why a search of its own beside puzzles/edge_matching/solvers/backtrack.py's deepening search:
small boards are where a research framework can give ground truth (a count, or "none"), and a perfect
board is what the hardest of them ask for. What is in it (figures: benchmarks/bench_exact_edge.py,
docs/studies/exact-edge-matching.md):

  * a static scan order per board (`ORDERS`; `short`, lines along the short side, by default: rows on a
    square, where they beat frame first, spirals and diagonals); every known side of a cell,
    pre-placed neighbours included, keys its candidate list, so a listed candidate fits every neighbour;
  * identical pieces (up to a turn) are used in list order and a piece's look-alike turns are tried
    once: a count is of distinct boards (per cell, the colours it shows), as tests/ check against an
    independent CP-SAT model. On generated boards, whose frame pieces repeat, this is most of the gain
    over the row scan it replaced (median 5.7x fewer nodes to the first board);
  * symmetry (`symmetry`): with turning pieces and no pre-placed piece, turning a solution is a solution,
    so one corner piece is kept in the top-left corner (a rectangle: the top-left or the next corner
    filled) and a count is multiplied back by the 4 (2) turns: a whole tree 4x smaller;
  * colour balance: sides that cannot pair up (along the rim a clockwise with a counter-clockwise side,
    inside an inward side with an inner one) prove "no perfect board" without a node;
  * look-ahead by colour counts (`lookahead`, off by default): every open join needs a side of its
    colour and kind from the pieces left. It cuts a tenth of the nodes for 3x the time a node.

Both cores: the tree is split into JOBS independent jobs (the partial boards at the shallowest depth
with that many, in search order), the same split on any thread count, run by threads on the compiled
walk, which releases the GIL. Jobs are read in order: a count sums them; a first board is the one of
the lowest job that has one, and a job after it is stopped and not counted, so answers, boards and
nodes are the same on any number of threads.

    orders.py   the scan orders (`ORDERS`)
    probe.py    order probing: an order's tree estimated by random dives (`tree_estimate`)
    walks.py    the compiled walks and the look-ahead's books
    generated.py  a walk written per board and order (llvm_walk.py: as LLVM IR), compiled and cached
    tables.py   a board's search tables (`Board`, its order chosen by `estimate_orders`)
    candidates.py  how the candidate lists are laid out for the walks (sentinels, piece sets, twins)
    answer.py   what a search proved (`Answer`)
    jobs.py     the tree split into jobs, run on threads and read back in order
    turns.py    two orders walked in turns for a first board (`search(portfolio=True)`)
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from core import interrupt
from puzzles.edge_matching.solvers.base import threads_available
from puzzles.edge_matching.solvers.perfect_search import turns
from puzzles.edge_matching.solvers.perfect_search.answer import Answer
from puzzles.edge_matching.solvers.perfect_search.jobs import (
    found_before,
    read_answer,
    run_jobs,
    split,
    start_timer,
)
from puzzles.edge_matching.solvers.perfect_search.orders import AUTO, ORDERS
from puzzles.edge_matching.solvers.perfect_search.tables import Board, estimate_orders
from puzzles.edge_matching.solvers.perfect_search.walks import _replay
from puzzles.edge_matching.solvers.perfect_search.watch import Watch

__all__ = ["AUTO", "ORDERS", "Answer", "Board", "busy", "estimate_orders", "search"]


def search(
    board: Board,
    limit: int | None = None,
    keep: int = 1,
    threads: int | None = None,
    max_nodes: int | None = None,
    seconds: float | None = None,
    show_progress: bool = False,
    portfolio: bool = False,
) -> Answer:
    """Every perfect board (or at least `limit`), keeping the first `keep`; see the package docstring.
    `show_progress`: a live line (`watch.Watch`: boards so far, share of the estimated tree, time
    left; a count can take an hour). `portfolio`: for a first board
    (limit 1) on a board whose order was chosen by estimate (order "auto"), first walk the two best
    orders in turns for HEDGE_ROUNDS slices each (`turns.hedge`), then, if neither finished, split the best order's
    tree; a count or a proof asked for splits one tree at once.

    The tree is split into JOBS jobs (`jobs.split`) on any number of threads, so the answer and its nodes
    are the same on any number: a job after the one that reaches `limit` is stopped, and its nodes are
    not counted (on one thread it never starts). `max_nodes` and `seconds` stop the search early (an
    incomplete answer); on more than one thread the node cap is read every few milliseconds.
    """
    started, compiled = time.perf_counter(), board.compile_seconds
    threads = threads or threads_available()
    limit = (
        -(-limit // board.symmetry) if limit is not None else np.iinfo(np.int64).max
    )  # each stands for its turns
    max_nodes = max_nodes if max_nodes is not None else np.iinfo(np.int64).max
    f, hedge = len(board.order), (0, 0)
    if portfolio and limit == 1 and board.consistent and f > 0:
        hedged, hedge = turns.hedge(board, threads, max_nodes, seconds, started)
        if hedged is not None:
            return dataclasses.replace(hedged, compile_seconds=board.compile_seconds - compiled)
    if not board.consistent:
        return Answer(
            0, [], 0, time.perf_counter() - started, "finished", board.symmetry, order=board.order_name
        )
    depth, prefixes, spent = split(board, f)
    spent = (spent[0] + hedge[0], spent[1] + hedge[1])  # the hedge's nodes and placements, before
    flags = np.zeros(max(len(prefixes), 1), np.int64)  # per job: 1 time is up, 2 not needed, 3 node cap
    progress = np.zeros(max(len(prefixes), 1), np.int64)
    left = None if seconds is None else max(seconds - (time.perf_counter() - started), 0.0)
    timer = start_timer(left, flags)

    spans = np.zeros((len(prefixes), 2))  # per job: when it started and ended, for `Answer.busy`

    def job(k: int, budget: int):
        if flags[k]:
            return -2, 0, 0, 0, np.zeros((0, f), np.int64)
        spans[k, 0] = time.perf_counter()
        state = board.fresh_state()
        _replay(prefixes[k], board.geometry(), board.lists(), state, board.lookahead)
        walked = board.walk(state, depth, f, limit, budget, flags[k : k + 1], progress[k : k + 1], keep)
        spans[k, 1] = time.perf_counter()
        return walked

    results: dict[int, tuple] = {}
    estimate = board.estimates.get(board.order_name, (None,))[0]
    watch = Watch(estimate, len(prefixes), board.symmetry, show_progress)
    with interrupt.listen(lambda: flags.fill(1)):  # Ctrl-C stops it as the time limit does
        try:
            if threads == 1:
                for k in range(len(prefixes)):
                    walked = spent[0] + sum(r[2] for r in results.values())
                    results[k] = job(k, max_nodes - walked)
                    watch(walked - spent[0] + results[k][2], sum(r[1] for r in results.values()), k + 1)
                    if results[k][0] != 1 or found_before(results, k + 1) >= limit:
                        break
            else:
                run_jobs(
                    job, results, len(prefixes), threads, limit, max_nodes - spent[0], flags, progress, watch
                )
        finally:
            watch.close()
            if timer is not None:
                timer.cancel()
    answer = read_answer(board, results, prefixes, depth, spent, limit, flags, started)
    return dataclasses.replace(
        answer, busy=busy(spans, threads), compile_seconds=board.compile_seconds - compiled
    )


def busy(spans: np.ndarray, threads: int) -> float:
    """The share of the threads' time spent in jobs, from the first job's start to the last one's end:
    below 1 where threads idle, as at the end of an uneven tree when the last jobs run alone."""
    ran = spans[spans[:, 1] > 0]
    if len(ran) == 0:
        return 1.0
    span = ran[:, 1].max() - ran[:, 0].min()
    return float((ran[:, 1] - ran[:, 0]).sum() / (min(threads, len(ran)) * span)) if span > 0 else 1.0
