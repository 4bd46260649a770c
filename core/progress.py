"""What a long search has found so far, for the live line a run shows (experiments/live.py).

Why a board of its own: a constructive solver builds its board in one call that may last minutes, on
threads and in compiled kernels far below the run's objective, which sees nothing until the end. Each
solver reports its work and each new best board here as it goes; the run's line reads the tally,
and neither knows the other.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Tally:
    """The best score reported (inf: none yet) and the work done, by unit (a race's solvers count
    different things: the backtracker nodes, the beam candidates priced)."""

    best: float = math.inf
    work: dict[str, int] = field(default_factory=dict)


_lock = threading.Lock()
_tally = Tally()


def reset() -> None:
    """Start a run's tally afresh."""
    global _tally
    with _lock:
        _tally = Tally()


def report(work: int, best: float | None, unit: str) -> None:
    """Add `work` (counted in `unit`) to the tally and keep `best` if it is the lowest so far (any
    thread may call it)."""
    global _tally
    with _lock:
        lowest = _tally.best if best is None else min(_tally.best, float(best))
        _tally = Tally(lowest, {**_tally.work, unit: _tally.work.get(unit, 0) + int(work)})


def tally() -> Tally:
    return _tally


def rate(count: float, seconds: float, unit: str) -> str:
    """A speed a person reads at a glance: 21.3M node/s."""
    per = count / seconds if seconds > 0 else 0.0
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if per >= scale:
            return f"{per / scale:.1f}{suffix} {unit}/s"
    return f"{per:.0f} {unit}/s"


def clock(seconds: float) -> str:
    """Elapsed or remaining time as a person reads it: 4:05, or 1:02:03."""
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{secs:02d}" if minutes >= 60 else f"{minutes}:{secs:02d}"
