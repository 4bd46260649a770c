"""The perfect search's jobs: the tree split into JOBS partial boards (the same split on any thread
count), run in order on a pool of threads, and their results read back in search order."""

from __future__ import annotations

import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

import numpy as np

from puzzles.edge_matching.solvers.perfect_search.answer import Answer
from puzzles.edge_matching.solvers.perfect_search.tables import Board
from puzzles.edge_matching.solvers.perfect_search.walks import _replay

JOBS = 256  # jobs the tree is split into: enough that the threads of a large machine finish together


def start_timer(seconds: float | None, flags: np.ndarray) -> threading.Timer | None:
    """A daemon timer that sets every flag to 1 (time is up) after `seconds`; None for no limit."""
    timer = threading.Timer(seconds, flags.fill, (1,)) if seconds is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    return timer


def run_jobs(
    job, results: dict, jobs: int, threads: int, limit: int, budget: int, flags, progress, watch
) -> None:
    """Run the jobs on a pool of threads, in order; stop later jobs once earlier ones reach `limit`.
    `watch(nodes, boards, jobs done)` is told the jobs' totals so far every few milliseconds."""
    with ThreadPoolExecutor(max_workers=threads) as pool:
        pending = {pool.submit(job, k, budget): k for k in range(jobs)}
        while pending:
            done, _ = wait(pending, timeout=0.02, return_when=FIRST_COMPLETED)
            for future in done:
                results[pending.pop(future)] = future.result()
            reached = _reached(results, jobs)
            if reached is not None and found_before(results, reached + 1) >= limit:
                flags[reached + 1 :] = np.maximum(flags[reached + 1 :], 2)  # they cannot change the answer
            finished = sum(r[2] for r in results.values())
            running = progress.sum() - sum(progress[k] for k in results)  # jobs under way, so far
            if finished + running > budget:
                flags[flags == 0] = 3
            watch(finished + running, sum(r[1] for r in results.values()), len(results))


def read_answer(
    board: Board,
    results: dict,
    prefixes: list,
    depth: int,
    spent: tuple[int, int],
    limit: int,
    flags,
    started,
) -> Answer:
    """The jobs' results read in search order, up to the job that reaches `limit` or stopped early;
    `spent`: the (nodes, placements) walked before the jobs."""
    count, boards, (nodes, placements), reason = 0, [], spent, "finished"
    for k in range(len(prefixes)):
        status, found, walked, placed, record = results[k]
        count, nodes, placements = count + found, nodes + walked, placements + placed
        boards += [board.board_of(np.concatenate([prefixes[k], row[depth:]])) for row in record]
        if count >= limit:
            count, reason = limit, "limit"
            break
        if status != 1:
            reason = "seconds" if flags[k] == 1 else "max_nodes"
            break
    elapsed = time.perf_counter() - started
    return Answer(
        count * board.symmetry,
        boards,
        int(nodes),
        elapsed,
        reason,
        board.symmetry,
        len(prefixes),
        board.order_name,
        int(placements),
    )


def _reached(results: dict[int, tuple], jobs: int) -> int | None:
    """The last job k such that jobs 0..k have all finished, or None."""
    k = -1
    while k + 1 < jobs and k + 1 in results:
        k += 1
    return k if k >= 0 else None


def found_before(results: dict[int, tuple], k: int) -> int:
    """Boards found by jobs 0..k-1 (all finished)."""
    return sum(results[j][1] for j in range(k))


def split(board: Board, f: int) -> tuple[int, list[np.ndarray], tuple[int, int]]:
    """(depth, the partial boards there as candidates per depth, (nodes, placements) walked to list
    them): the shallowest depth with JOBS partial boards (or the last), whatever the threads, so that
    the nodes walked are the same on any number. Listed a level at a time, each level from the one before, so the
    listing walks each partial board above that depth once (a narrow tree is not walked again per level)."""
    never, progress = np.zeros(1, np.int64), np.zeros(1, np.int64)
    prefixes, depth, spent, placed = [np.zeros(0, np.int64)], 0, 0, 0
    width = len(board.piece_of) + 1  # the most children a partial board can have
    while 0 < len(prefixes) < JOBS and depth < f:
        deeper = []
        for prefix in prefixes:
            state = board.fresh_state()
            _replay(prefix, board.geometry(), board.lists(), state, board.lookahead)
            _, found, nodes, placements, record = board.walk(
                state, depth, depth + 1, 1 << 62, 1 << 62, never, progress, width
            )
            spent, placed = spent + nodes, placed + placements
            deeper += list(record)
        prefixes, depth = deeper, depth + 1
    return depth, prefixes, (spent, placed)  # at depth f, each job is a board with nothing left to walk
