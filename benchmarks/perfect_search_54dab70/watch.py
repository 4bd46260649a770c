"""A long count's live line: the boards found so far, the share of the tree walked and the time left.

Why a line of its own: a census of a 7 x 7 or 8 x 8 board runs for minutes to an hour inside compiled
jobs. Its tree is estimated before the walk (Knuth's dives, `Board.estimates`), so the nodes walked
over that estimate say how far it has got, and the rate how long the rest will take. On a terminal the
line is redrawn in place; in a log file a plain line is written every few seconds.
"""

from __future__ import annotations

import sys
import time
from typing import IO

from core.progress import clock, rate

TERMINAL_EVERY = 0.5  # seconds between redraws on a terminal
LOG_EVERY = 5.0  # seconds between lines in a log file


class Watch:
    """Called with the search's totals so far (as often as it likes); draws on its own clock.

    estimate: the whole tree's nodes as estimated (None: unknown, the jobs done are shown instead);
    symmetry: the boards each one found stands for."""

    def __init__(
        self, estimate: float | None, jobs: int, symmetry: int, enabled: bool, stream: IO[str] | None = None
    ):
        self.estimate, self.jobs, self.symmetry, self.enabled = estimate, jobs, symmetry, enabled
        self.stream = stream or sys.stderr
        self.terminal = self.stream.isatty()
        self.started = self.drawn = time.perf_counter()

    def line(self, nodes: int, boards: int, jobs_done: int) -> str:
        elapsed = time.perf_counter() - self.started
        parts = [f"perfect boards: {boards * self.symmetry:,} so far"]
        if self.estimate:
            share = nodes / self.estimate
            parts.append(f"{share:.0%} of the estimated tree ({nodes:.3g} of {self.estimate:.3g} nodes)")
        else:
            parts.append(f"{jobs_done} of {self.jobs} jobs")
        left = ""
        if self.estimate and 0 < nodes < self.estimate and elapsed > 0:
            left = f", about {clock((self.estimate - nodes) * elapsed / nodes)} left"
        parts.append(f"{clock(elapsed)} elapsed{left}")
        parts.append(rate(nodes, elapsed, "node"))
        return "; ".join(parts)

    def __call__(self, nodes: int, boards: int, jobs_done: int) -> None:
        now = time.perf_counter()
        if not self.enabled or now - self.drawn < (TERMINAL_EVERY if self.terminal else LOG_EVERY):
            return
        self.drawn = now
        text = self.line(nodes, boards, jobs_done)
        print(f"\r{text}\033[K" if self.terminal else text, end="" if self.terminal else "\n",
              file=self.stream, flush=True)  # fmt: skip

    def close(self) -> None:
        if self.enabled and self.terminal:
            print("\r\033[K", end="", file=self.stream, flush=True)  # the run's summary follows
