"""A beam under a time limit (beam.py): beams widened while the time allows, the best board finished
kept (`beam_within`), and the configured beam with no limit, cut short by a stop (`beam_unlimited`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from core import checkpoint, interrupt, progress
from puzzles.edge_matching.solvers.base import alarm

if TYPE_CHECKING:
    from puzzles.edge_matching.solvers.beam import BeamRun, Prepared

GROWTH = 8  # the widest step from one width to the next (the first beam's time is all overhead)
SUPERLINEAR = (
    0.1  # a beam's time grows as work ** 1.1 (official set, one core: 4,096 wide 5.8 s, 40,000 68 s)
)
SAFETY = 0.9  # plan a beam to end by this share of the time left
SCHEDULE = ("finished", "work", "w", "overhead", "per_work", "measured")  # what a checkpoint keeps


def beam_within(
    prepared: Prepared, width: int, seed: int, max_width: int | None, seconds: float, started: float
) -> tuple[BeamRun, int, str]:
    """The best board beams find by `started + seconds` (perf_counter): (run, work of every beam, stop
    reason: "finished" when the configured beam finished, else "seconds"). The board is the best of
    every beam finished, the configured one's only when no narrower beam did better (each beam's board
    is shown on the live line, and the record keeps at least that).

    Why a schedule rather than one beam: a beam yields no board until its last cell, so one too wide
    for the time yields nothing. Beams widen (width and max_width in proportion) from one board,
    whose time is the per-cell overhead; each next width is the widest that the last beam's time,
    scaled by `most_work`, predicts to end in time (at most GROWTH x the last width). A timer stops a
    beam that would overrun; the result is then the best board finished.

    In a run that keeps a checkpoint (`checkpoint.current()`) the schedule is saved after each beam
    finished (the boards finished, the timings, the next width): a beam's own state is its whole
    frontier, so a stop loses only the beam under way, and a continued run goes on with the next width
    in the time left.
    """

    def widened(v: int) -> int | None:
        return None if max_width is None else max(v, max_width * v // width)

    def predicted(v: int) -> float:
        work = prepared.most_work(v, widened(v))
        return overhead + per_work * work * (work / measured) ** SUPERLINEAR

    def keep() -> None:
        """Save the schedule (next: width `w`) and the time spent, when the run keeps a checkpoint."""
        if stage is not None:
            spent = seconds - (deadline - time.perf_counter())
            kept = dict(zip(SCHEDULE, (finished, work, w, overhead, per_work, measured)), seconds=spent)
            best = best_of(finished).unmatched
            said = f"beam: {len(finished)} beams finished, next {w:,} wide, best {best} unmatched joins"
            stage.save(key, kept, said)

    stage, key = checkpoint.current(), f"beam seed {seed}"
    saved = None if stage is None else stage.restored(key)
    deadline = started + seconds
    finished: list[tuple[int, BeamRun]] = []
    work, w, overhead, per_work, measured = 0, 1, 0.0, 0.0, 1
    if saved is not None:  # the time it had spent: the schedule gets the time left
        finished, work, w, overhead, per_work, measured = (saved[k] for k in SCHEDULE)
        deadline -= saved["seconds"]
        progress.report(0, best_of(finished).unmatched, "candidate")  # the live line's best so far
    with alarm(deadline - time.perf_counter()) as stop:
        while True:
            begun = time.perf_counter()
            run = prepared.run(w, seed, widened(w), stop if finished else None)  # the first always ends
            took = time.perf_counter() - begun
            work += run.work
            progress.report(run.work, run.unmatched if run.finished else None, "candidate")
            if not run.finished:
                if interrupt.requested():  # the time spent so far is spent: continued, it gets the rest
                    keep()
                break
            finished.append((w, run))
            if w == width:  # a narrower beam may have found the better board: keep the best
                return best_of(finished), work, "finished"
            if len(finished) == 1:
                overhead = took
            else:
                measured = prepared.most_work(w, widened(w))
                per_work = max(took - overhead, took / 4) / measured
            left = SAFETY * (deadline - time.perf_counter())
            low, high = w, min(width, GROWTH * w)  # the widest v in (w, high] predicted to fit
            while low < high:
                mid = (low + high + 1) // 2
                low, high = (mid, high) if predicted(mid) <= left else (low, mid - 1)
            if low == w:
                break
            w = low
            keep()
    return best_of(finished), work, "seconds"


def best_of(finished: list[tuple[int, BeamRun]]) -> BeamRun:
    """The fewest unmatched joins of the beams finished, the widest among equals."""
    return min(finished, key=lambda pair: (pair[1].unmatched, -pair[0]))[1]


def beam_unlimited(
    prepared: Prepared, width: int, seed: int, max_width: int | None
) -> tuple[BeamRun, int, str]:
    """The configured beam with no time limit, as (run, work, stop reason). A beam yields no board
    until its last cell, and a stop request (Ctrl-C) cuts it short: a beam of one (milliseconds) then
    builds the board the run keeps ("interrupted")."""
    with alarm(None) as stop:
        run = prepared.run(width, seed, max_width, stop)
    progress.report(run.work, run.unmatched if run.finished else None, "candidate")
    if run.finished:
        return run, run.work, "finished"
    first = prepared.run(1, seed, None if max_width is None else max(1, max_width // width))
    return first, run.work + first.work, "interrupted"
