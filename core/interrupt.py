"""A stop asked for from outside the run: Ctrl-C, SIGTERM (a cluster's pre-emption, `kill`), or the
sweep that started this worker going away.

Why a flag and not an exception: an optimiser interrupted mid-step has nothing to hand back, so the
objective reads the flag at its next budget check and ends the run as a budget would, keeping the best
so far (`stop_reason: interrupted`). A second Ctrl-C is the user insisting: it raises at once.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_asked = threading.Event()
SIGNALS = (signal.SIGINT, signal.SIGTERM)


def requested() -> bool:
    """Has a stop been asked for since `clear()`?"""
    return _asked.is_set()


def request() -> None:
    """Ask the running search to stop at its next check."""
    _asked.set()


def clear() -> None:
    _asked.clear()


def _on_signal(signum: int, frame: FrameType | None) -> None:
    if _asked.is_set():  # the second time: stop now
        raise KeyboardInterrupt
    _asked.set()


@contextmanager
def caught() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM ask for a stop instead of killing the run (main thread only:
    elsewhere Python cannot take signals, and the block leaves them as they are)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {s: signal.signal(s, _on_signal) for s in SIGNALS}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


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
