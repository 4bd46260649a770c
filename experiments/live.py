"""The live line of a run: elapsed and remaining time, the best so far, and how fast the work goes.

Why a thread: a constructive solver builds its board in one call that may last minutes, and a
compiled search reports only between chunks, so the line is redrawn on a clock from what the run
has reported (the objective's evaluations and best, and `core.progress`, the solvers' own tally): on
a terminal a bar that moves every fraction of a second, in a log file a plain line every few seconds.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from tqdm import tqdm

from core import progress
from core.progress import clock, rate
from core.space import Budget

TERMINAL_EVERY = 0.5  # seconds between redraws of a terminal's bar
LOG_EVERY = 5.0  # seconds between lines written to a file


class LiveLine:
    """A run's live line while the block runs; `seen` is the objective's progress callback.

    describe: a score as the puzzle's docs speak of it (edge matching: matched joins). The solvers'
    own work (nodes, candidates) is shown as a rate per unit once they report any."""

    def __init__(
        self,
        desc: str,
        budget: Budget,
        describe: Callable[[float], str] = lambda value: f"{value:g}",
        enabled: bool = True,
        stream: IO[str] | None = None,
    ):
        self.desc, self.budget, self.describe = desc, budget, describe
        self.enabled, self.stream = enabled, stream or sys.stderr
        self.objective: Any = None
        self.done, self.drawn = threading.Event(), threading.Event()
        self.started = time.perf_counter()

    def seen(self, objective: Any) -> None:
        self.objective = objective

    def text(self) -> str:
        """What the run has done: its best so far and its speed (the time is the bar's, or the line's)."""
        tally = progress.tally()
        obj, elapsed = self.objective, time.perf_counter() - self.started
        best = min(tally.best, math.inf if obj is None else obj.best)
        parts = ["best " + (self.describe(best) if best < math.inf else "none yet")]
        parts += [rate(count, elapsed, unit) for unit, count in tally.work.items()]
        if obj is not None and obj.evaluations > 1:
            parts.append(rate(obj.evaluations, elapsed, "eval"))
        return ", ".join(parts)

    def line(self) -> str:
        """One line for a log file: the time as words, then `text`."""
        elapsed = time.perf_counter() - self.started
        seconds = self.budget.seconds
        left = f", {clock(max(seconds - elapsed, 0))} left" if seconds else ""
        return f"{self.desc}: {clock(elapsed)} elapsed{left}; {self.text()}"

    def __enter__(self) -> LiveLine:
        progress.reset()
        self.started = time.perf_counter()
        if self.enabled:
            threading.Thread(target=self._draw, name="puzzlelab-live", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        if self.enabled:
            self.drawn.wait(timeout=2)  # the bar cleared before the run prints its summary

    def _draw(self) -> None:
        try:
            if self.stream.isatty():
                self._bar()
            else:
                while not self.done.wait(LOG_EVERY):
                    print(self.line(), file=self.stream, flush=True)
        finally:
            self.drawn.set()

    def _bar(self) -> None:
        """A tqdm bar over the budget: seconds when it has them (tqdm shows elapsed and remaining),
        else evaluations."""
        seconds, evaluations = self.budget.seconds, self.budget.evaluations
        total = seconds if seconds else evaluations
        with tqdm(
            total=total,
            desc=self.desc,
            file=self.stream,
            leave=False,
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining} {postfix}",
        ) as bar:
            while not self.done.wait(TERMINAL_EVERY):
                obj = self.objective
                if seconds:
                    bar.n = min(time.perf_counter() - self.started, seconds)
                elif obj is not None and evaluations:
                    bar.n = min(obj.evaluations, evaluations)
                bar.set_postfix_str(self.text(), refresh=False)
                bar.refresh()
