"""The perfect search's hedge: for a first board, two scan orders walked in turns of SLICE nodes, on
one thread or two, with the same winner, board and nodes on any number. (Not "race": that word is
the tuner's, racing settings over instances, experiments/racing.py.)"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from core import interrupt
from puzzles.edge_matching.solvers.perfect_search.answer import Answer
from puzzles.edge_matching.solvers.perfect_search.jobs import start_timer
from puzzles.edge_matching.solvers.perfect_search.tables import Board

SLICE = 1 << 22  # nodes an order walks in `in_turns` before the other's turn (about 50 ms)
HEDGE_ROUNDS = 32  # `search`'s portfolio walks the two best orders in turns this long (~1.5 s), then splits


def _runner_up(board: Board) -> Board | None:
    """The order of the second smallest estimate whose cells differ from `board`'s, or None."""
    for name in sorted(board.estimates, key=lambda x: board.estimates[x][0]):
        if name != board.order_name:
            other = board.sibling(name)
            if not np.array_equal(other.order, board.order):
                return other
    return None


def hedge(
    board: Board, threads: int, max_nodes: int, seconds: float | None, started: float
) -> tuple[Answer | None, tuple[int, int]]:
    """`search`'s portfolio: the board's order and the runner-up (`_runner_up`) walked in turns for
    HEDGE_ROUNDS rounds (`in_turns`); (None, (0, 0)) when no other order scans the cells otherwise."""
    second = _runner_up(board)
    if second is None:
        return None, (0, 0)
    return in_turns([board, second], threads, max_nodes, seconds, started, HEDGE_ROUNDS)


def in_turns(
    boards: list[Board], threads: int, max_nodes: int, seconds: float | None, started: float, rounds: int
) -> tuple[Answer | None, tuple[int, int]]:
    """(the first board by whichever order finds it first, or None if none finished within `rounds`;
    the nodes and placements walked): each order's tree walked in slices of SLICE nodes, taking turns (round 1: order
    0, order 1; round 2: ...); the winner is the first in that schedule to find a board or to walk its
    tree to the end (a proof that there is none). On one thread the schedule is run as it is; on two
    each order has a thread and walks on until a rival's finish comes earlier in the schedule, so the
    winner, its board and the nodes reported (those the schedule walks up to the winner's finish) are
    the same on any thread count. Why turns first: where an order's first board lies varies by order
    (the 6 x 12 clue 2's first board: 6 k nodes into `rows`, 211 k into `columns`, 155 M into
    `spiral`). Why only a few rounds: turns give each order one core where a split gives the best
    order both, and on the hardest 8 x 8 boards the split found boards sooner (issue 34;
    docs/studies/exact-edge-matching.md)."""
    k = len(boards)
    states = [b.fresh_state() for b in boards]
    cursors = [b.new_cursor(len(b.order)) for b in boards]
    flags, progress = np.zeros(k, np.int64), np.zeros(k, np.int64)
    walked = [0] * k
    placed: list[list[int]] = [[0] for _ in range(k)]  # per order, its placements after each round
    finish: list[tuple[int, int, np.ndarray] | None] = [None] * k  # (round, found, record)
    best: list[tuple[int, int] | None] = [None]
    lock = threading.Lock()

    def turn(r: int, round_: int) -> bool:
        """Order r's slice of this round; False when it is done (finished, beaten, stopped)."""
        with lock:
            beaten = best[0] is not None and (round_, r) > best[0]
            if beaten or round_ > rounds or sum(walked) > max_nodes or flags[r]:
                return False
            budget = min(SLICE - 1, max_nodes - sum(walked))  # the walk stops after budget + 1 nodes
        b = boards[r]
        status, found, nodes, placements, record = b.walk(
            states[r],
            0,
            len(b.order),
            1,
            budget,
            flags[r : r + 1],
            progress[r : r + 1],
            1,
            cursor=cursors[r],
        )
        with lock:
            walked[r] += nodes
            placed[r].append(placed[r][-1] + placements)
            if status == 1:
                finish[r] = (round_, found, record)
                best[0] = min(best[0] or (round_, r), (round_, r))
            return status == -1

    def run(r: int) -> None:
        round_ = 1
        while turn(r, round_):
            round_ += 1

    timer = start_timer(seconds, flags)
    with interrupt.listen(lambda: flags.fill(1)):
        try:
            if min(threads, k) == 1:
                live, round_ = list(range(k)), 1
                while live:
                    live = [r for r in live if turn(r, round_)]
                    round_ += 1
            else:
                with ThreadPoolExecutor(max_workers=k) as pool:
                    list(pool.map(run, range(k)))
        finally:
            if timer is not None:
                timer.cancel()
    elapsed = time.perf_counter() - started
    if best[0] is None:
        spent = (sum(walked), sum(p[-1] for p in placed))
        if not flags.any() and sum(walked) <= max_nodes:  # the rounds are over
            return None, spent
        reason = "seconds" if flags.any() else "max_nodes"
        b = boards[0]
        return Answer(0, [], spent[0], elapsed, reason, b.symmetry, 1, b.order_name, spent[1]), spent
    return _winner(boards, best[0], finish, walked, placed, elapsed)


def _winner(
    boards: list[Board], best: tuple[int, int], finish: list, walked: list[int], placed: list, elapsed: float
) -> tuple[Answer, tuple[int, int]]:
    """(the hedge's answer, its nodes and placements: those the schedule walks up to the winner's
    finish)."""
    round_, w = best
    turns = [round_ if r <= w else round_ - 1 for r in range(len(boards))]  # each order's slices
    nodes = sum(walked[w] if r == w else SLICE * turns[r] for r in range(len(boards)))
    placements = sum(placed[r][turns[r]] for r in range(len(boards)))
    _, found, record = finish[w]
    b = boards[w]
    count, boards_found = (b.symmetry, [b.board_of(record[0])]) if found else (0, [])
    reason = "limit" if found else "finished"
    answer = Answer(count, boards_found, nodes, elapsed, reason, b.symmetry, 1, b.order_name, placements)
    return answer, (nodes, placements)
