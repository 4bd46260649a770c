"""A stop asked for from outside the run: Ctrl-C, SIGTERM (a cluster's pre-emption, `kill`), or the
sweep that started this worker going away.

Why a flag and not an exception: an optimiser interrupted mid-step has nothing to hand back, so the
objective reads the flag at its next budget check and ends the run as a budget would, keeping the best
so far (`stop_reason: interrupted`). A second Ctrl-C is the user insisting: it ends the process at once.
One signal delivered twice at once (`timeout -s INT`, a batch system signalling the process and its
group) is one request: deliveries within REPEAT_WINDOW seconds of the first count once.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

_asked = threading.Event()
_listeners: list[Callable[[], None]] = []
SIGNALS = (signal.SIGINT, signal.SIGTERM)
INTERRUPTED = 130  # the exit code of a process Ctrl-C stopped, as a shell reports it
REPEAT_WINDOW = 1.0  # seconds: signals closer than this to the first are its echo, not a second request


def requested() -> bool:
    """Has a stop been asked for since `clear()`?"""
    return _asked.is_set()


def request() -> None:
    """Ask the running search to stop at its next check, and tell the searches listening (a compiled
    search reads a flag of its own, not this one)."""
    _asked.set()
    for tell in list(_listeners):
        tell()


def clear() -> None:
    _asked.clear()


@contextmanager
def listen(tell: Callable[[], None]) -> Iterator[None]:
    """Within the block, a stop request also calls `tell` (e.g. sets a compiled search's stop flag)."""
    _listeners.append(tell)
    if _asked.is_set():
        tell()
    try:
        yield
    finally:
        _listeners.remove(tell)


@contextmanager
def ends_quietly(what: str, active: bool = True) -> Iterator[None]:
    """Within the block, Ctrl-C ends the process with one line, `interrupted: <what>`, and exit code 130,
    not a traceback: for stretches with nothing to keep, such as loading the app (seconds on a busy
    machine) or writing a report again. `active=False` leaves Ctrl-C as it is (a module imported by
    another program, not run)."""
    try:
        yield
    except KeyboardInterrupt:
        if not active:
            raise
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the line and the exit, not a second traceback
        print(f"\ninterrupted: {what}", file=sys.stderr)
        raise SystemExit(INTERRUPTED) from None


def _ignore(signum: int, frame: FrameType | None) -> None:
    """Python's own handler, run whenever the main thread next runs Python: the watcher did the work."""


@contextmanager
def caught() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM ask for a stop instead of killing the run; a second one
    ends the process at once (exit code 130), unless it comes within REPEAT_WINDOW of the first (the
    same signal delivered to the process and to its group). Main thread only (elsewhere the block
    leaves signals as they are).

    Why a watcher thread on the wakeup fd: Python runs a signal handler only when the main thread runs
    Python, which a compiled search holding it for minutes does not; the C handler writes the signal to
    the wakeup fd at once, so the watcher can set the search's stop flag while it runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    before = {s: signal.signal(s, _ignore) for s in SIGNALS}
    wakeup = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)

    def watch() -> None:
        first: float | None = None
        while True:
            try:
                data = reader.recv(64)
            except OSError:
                return
            if not data:  # the block ended: the writer was closed
                return
            now = time.monotonic()
            if first is None:
                first = now
                request()
            elif now - first >= REPEAT_WINDOW:
                os.write(2, b"\ninterrupted again: stopping now, without a record\n")
                os._exit(130)

    watcher = threading.Thread(target=watch, name="puzzlelab-signals", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(wakeup)
        for s, handler in before.items():
            signal.signal(s, handler)
        writer.close()
        watcher.join(timeout=1)
        reader.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process took the number: ours is gone
        return False
    return True


_watched: set[int] = set()


def watch_parent(pid: int, grace: float = 5.0, every: float = 0.5) -> None:
    """In a worker process: when the sweep process `pid` dies (kill -9 leaves its workers running), ask
    the run to stop, give it `grace` seconds to write its record, then leave. Started once a process."""
    if pid in _watched or pid == os.getpid():
        return
    _watched.add(pid)

    def watch() -> None:
        while _alive(pid):
            time.sleep(every)
        request()
        time.sleep(grace)
        os._exit(143)

    threading.Thread(target=watch, name="puzzlelab-parent-watch", daemon=True).start()
