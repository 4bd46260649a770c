"""The live line of a run: elapsed and remaining time, the best so far, and how fast the work goes.

Why a thread: a constructive solver builds its board in one call that may last minutes, and a
compiled search reports only between chunks, so the line is redrawn on a clock from what the run
has reported (the objective's evaluations and best, and `core.progress`, the solvers' own tally): on
a terminal a bar that moves every fraction of a second, in a log file a plain line every few seconds.

numba compiles a kernel the first time it runs on a machine (then loads it from its disk cache), for
seconds or minutes: a run says "compiling ... (once; cached after)" while it does (`compiling` for the
warm-ups before a run's clock starts, the live line inside it), and the budget's clock
(`LiveLine.clock`) leaves that time out. `steps` is the tasks' bar over their items (boards, colour
counts, cases), plain lines in a log file, never a terminal's `\\r` redraws.
"""

from __future__ import annotations

import contextlib
import math
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, TypeVar

from numba.core import event as numba_events
from tqdm import tqdm

from core import progress
from core.progress import clock, rate
from core.space import Budget

TERMINAL_EVERY = 0.5  # seconds between redraws of a terminal's bar
LOG_EVERY = 5.0  # seconds between lines written to a file
COMPILE = "numba:compile"  # numba's event around a compile (not fired for a kernel loaded from its cache)
ONCE = "(once; cached after)"

Item = TypeVar("Item")


def kernel_name(data: Any) -> str:
    """The compiling function as `module.function` (numba's event data holds its dispatcher)."""
    func = getattr((data or {}).get("dispatcher"), "py_func", None)
    if func is None:
        return "a numba kernel"
    return f"{func.__module__.rsplit('.', 1)[-1]}.{func.__name__}"


class Compiles(numba_events.Listener):
    """numba's compiles while it listens, on any thread: the seconds they took and what compiles now.

    `said(name)` is called when the first compile starts (in the compiling thread, so it is said even
    while the compile holds the interpreter). numba compiles one function at a time (its compiler
    lock); a compile inside another (a kernel and the functions it calls) counts once."""

    def __init__(self, said: Callable[[str], None] | None = None):
        self.said = said
        self.lock = threading.Lock()
        self.depth, self.since, self.spent, self.count = 0, 0.0, 0.0, 0
        self.name: str | None = None

    def on_start(self, event: numba_events.Event) -> None:
        with self.lock:
            self.depth += 1
            if self.depth > 1:
                return
            self.since, self.name = time.perf_counter(), kernel_name(event.data)
            first, self.count = self.count == 0, self.count + 1
        if first and self.said is not None:
            self.said(self.name)

    def on_end(self, event: numba_events.Event) -> None:
        with self.lock:
            if self.depth == 0:  # a compile that began before we listened
                return
            self.depth -= 1
            if self.depth == 0:
                self.spent += time.perf_counter() - self.since
                self.name = None

    def seconds(self) -> float:
        """Seconds spent compiling so far, the compile under way included."""
        with self.lock:
            return self.spent + (time.perf_counter() - self.since if self.depth else 0.0)

    def now(self) -> str | None:
        """The function compiling now (None: none)."""
        return self.name


@contextlib.contextmanager
def listening(listener: Compiles) -> Iterator[Compiles]:
    numba_events.register(COMPILE, listener)
    try:
        yield listener
    finally:
        numba_events.unregister(COMPILE, listener)


@contextlib.contextmanager
def compiling(enabled: bool = True, stream: IO[str] | None = None) -> Iterator[Compiles]:
    """Say on stderr when numba compiles inside the block (a run's warm-ups, before its clock starts):
    a line when the first compile starts and one with the time they took; nothing when every kernel
    comes from numba's cache."""
    out = stream or sys.stderr

    def said(name: str) -> None:
        print(f"compiling numba kernels, {name} first {ONCE} ...", file=out, flush=True)

    with listening(Compiles(said if enabled else None)) as compiles:
        yield compiles
    if enabled and compiles.count:
        print(f"compiled in {compiles.seconds():.1f} s", file=out, flush=True)


class _Bar(tqdm):
    """tqdm with fields of the line's own in its format (`extra`): the time left is the budget's
    clock, not tqdm's estimate from its rate, which rose while a run's first seconds were slow."""

    def __init__(self, *args: Any, extra: dict[str, str], **kwargs: Any):
        self.extra = extra
        super().__init__(*args, **kwargs)

    @property
    def format_dict(self) -> dict[str, Any]:
        return {**super().format_dict, **self.extra}


class _AboveTheBar:
    """sys.stdout or sys.stderr while a bar shows: a line written clears the bar first, so it gets a
    console line of its own (a solver's note, a summary) and the bar redraws below it."""

    def __init__(self, stream: IO[str], line: LiveLine):
        self.stream, self.line, self.pending = stream, line, ""

    def write(self, text: str) -> int:
        with self.line.lock:
            self.pending += text
            if "\n" in self.pending:
                whole, _, self.pending = self.pending.rpartition("\n")
                self.line.clear()
                self.stream.write(whole + "\n")
                self.stream.flush()
        return len(text)

    def flush(self) -> None:
        with self.line.lock:
            if self.pending:
                self.line.clear()
                self.stream.write(self.pending)
                self.pending = ""
            self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


class LiveLine:
    """A run's live line while the block runs; `seen` is the objective's progress callback and
    `clock` the budget's clock (wall-clock seconds, numba's compiles left out).

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
        self.done = threading.Event()
        self.lock = threading.RLock()  # the bar, and lines written above it
        self.compiles = Compiles(self._said)
        self.bar: _Bar | None = None
        self.thread: threading.Thread | None = None
        self.swapped: list[tuple[str, Any, _AboveTheBar]] = []
        self.started = self.clock_started = time.perf_counter()
        self.least = math.inf  # the least time left shown so far: it never goes up
        self.logging = False  # a plain line every few seconds (not a terminal)

    def seen(self, objective: Any) -> None:
        self.objective = objective

    def clock(self) -> float:
        """The budget's clock (for `minimize(clock=...)`): wall-clock seconds less numba's compiles."""
        return time.perf_counter() - self.compiles.seconds()

    def left(self) -> float | None:
        """Seconds the budget has left (None: no time budget); never more than shown before."""
        seconds = self.budget.seconds
        if not seconds:
            return None
        self.least = min(self.least, max(seconds - (self.clock() - self.clock_started), 0.0))
        return self.least

    def text(self) -> str:
        """What the run has done: its best so far and its speed (the time is the bar's, or the line's);
        while numba compiles, that."""
        tally = progress.tally()
        obj, elapsed = self.objective, time.perf_counter() - self.started
        best = min(tally.best, math.inf if obj is None else obj.best)
        parts = ["best " + (self.describe(best) if best < math.inf else "none yet")]
        compiling = self.compiles.now()
        if compiling is not None:
            return f"compiling {compiling} {ONCE}; {parts[0]}"
        parts += [rate(count, elapsed, unit) for unit, count in tally.work.items()]
        if obj is not None and obj.evaluations > 1:
            parts.append(rate(obj.evaluations, elapsed, "eval"))
        return ", ".join(parts)

    def line(self) -> str:
        """One line for a log file: the time as words, then `text`."""
        left = self.left()
        shown = f", {clock(math.ceil(left))} left" if left is not None else ""  # 0:01 until it is out
        return f"{self.desc}: {clock(time.perf_counter() - self.started)} elapsed{shown}; {self.text()}"

    def _said(self, name: str) -> None:
        """The first compile started: a log file hears it now, not at the next line."""
        if self.logging:
            print(f"{self.desc}: compiling {name} {ONCE}", file=self.stream, flush=True)

    def __enter__(self) -> LiveLine:
        progress.reset()
        self.started = time.perf_counter()
        numba_events.register(COMPILE, self.compiles)
        self.clock_started = self.clock()
        if self.enabled:
            if self.stream.isatty():
                self._open_bar()
            else:
                self.logging = True
            self.thread = threading.Thread(target=self._draw, name="puzzlelab-live", daemon=True)
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        if self.thread is not None:
            self.thread.join(timeout=2)
        with self.lock:
            if self.bar is not None:  # cleared here, whatever the thread did: the summary comes next
                self.bar.close()
                self.bar = None
            for name, before, above in self.swapped:
                if getattr(sys, name) is above:
                    setattr(sys, name, before)
                if above.pending:
                    before.write(above.pending)
            self.swapped = []
        self.logging = False
        numba_events.unregister(COMPILE, self.compiles)

    def clear(self) -> None:
        """Clear the bar (under `lock`): a line is written where it was; it redraws at its next tick."""
        if self.bar is not None:
            self.bar.clear()

    def _open_bar(self) -> None:
        """A tqdm bar over the budget (seconds when it has them, else evaluations), and stdout and
        stderr written above it."""
        seconds, evaluations = self.budget.seconds, self.budget.evaluations
        times = "{spent}<{left}" if seconds else "{spent}"
        self.bar = _Bar(
            total=seconds if seconds else evaluations,
            desc=self.desc,
            file=self.stream,
            leave=False,
            extra=self._fields(),
            bar_format="{desc}: {percentage:3.0f}%|{bar}| " + times + "; {text}",
        )
        for name in ("stdout", "stderr"):
            before = getattr(sys, name)
            above = _AboveTheBar(before, self)
            self.swapped.append((name, before, above))
            setattr(sys, name, above)

    def _fields(self) -> dict[str, str]:
        left = self.left()
        return {
            "spent": tqdm.format_interval(time.perf_counter() - self.started),
            "left": "?" if left is None else tqdm.format_interval(math.ceil(left)),
            "text": self.text(),
        }

    def _draw(self) -> None:
        if self.bar is None:  # a log file: a plain line every few seconds
            while not self.done.wait(LOG_EVERY):
                print(self.line(), file=self.stream, flush=True)
            return
        seconds, evaluations = self.budget.seconds, self.budget.evaluations
        while not self.done.wait(TERMINAL_EVERY):
            with self.lock:
                bar = self.bar
                if bar is None:
                    return
                obj = self.objective
                if seconds:
                    bar.n = min(seconds - (self.left() or 0.0), seconds)
                elif obj is not None and evaluations:
                    bar.n = min(obj.evaluations, evaluations)
                bar.extra = self._fields()
                bar.refresh()


def steps(
    items: Iterable[Item], desc: str, enabled: bool = True, unit: str = "it", stream: IO[str] | None = None
) -> Iterator[Item]:
    """The items, with a task's progress over them: a tqdm bar on a terminal (cleared at the end), a
    plain line every LOG_EVERY seconds in a log file (no `\\r` redraws), nothing when not enabled;
    numba's first compile is said either way."""
    items = list(items)
    out = stream or sys.stderr
    if not enabled:
        yield from items
        return
    if out.isatty():
        with _Bar(items, desc=desc, file=out, leave=False, unit=unit, extra={}) as bar:

            def said(name: str) -> None:
                bar.write(f"{desc}: compiling {name} {ONCE}", file=out)

            with listening(Compiles(said)):
                yield from bar
        return

    def say(name: str) -> None:
        print(f"{desc}: compiling {name} {ONCE}", file=out, flush=True)

    started = last = time.perf_counter()
    with listening(Compiles(say)):
        for done, item in enumerate(items):
            now = time.perf_counter()
            if now - last >= LOG_EVERY:
                print(
                    f"{desc}: {done} of {len(items)} {unit}s, {clock(now - started)} elapsed",
                    file=out,
                    flush=True,
                )
                last = now
            yield item
