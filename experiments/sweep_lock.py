"""One sweep per folder: two sweeps started into one folder would both run every run (and race on its
tables). The process that launches a sweep holds `sweep.lock` in its folder (its pid and host); another
live process is refused, a lock whose process is gone (kill -9, a crash) is taken over with a note,
and the lock goes when the sweep ends (also on Ctrl-C and failure: an atexit hook, and on SIGTERM while
the sweep's report is written: `SweepEnd`). Workers (joblib, Slurm jobs) never take it: only the sweep's
own process does (experiments/callbacks.py)."""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from core import interrupt
from core.errors import InputError

LOCK = "sweep.lock"
_before: dict[int, Any] = {}  # the signal handlers the sweep's end replaced, put back when it is done


def owner() -> str:
    """This process, as a lock file names it: "<pid> <host>"."""
    return f"{os.getpid()} {socket.gethostname()}"


def alive(pid: int) -> bool:
    """Whether a process of this host has this pid (one of another user counts: it exists)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def holder(lock: Path) -> tuple[int, str] | None:
    """The (pid, host) a lock file names; None for a file that names none (torn or foreign)."""
    try:
        pid, host = lock.read_text().split()
        return int(pid), host
    except (OSError, ValueError):
        return None


def acquire(sweep_dir: Path) -> Path | None:
    """Take the sweep folder's lock, or raise InputError naming the live process that holds it. None
    when the folder cannot be written: the launcher then fails on it in one line of its own."""
    lock = sweep_dir / LOCK
    try:
        sweep_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return take_over(lock)
    except OSError:
        return None
    with os.fdopen(fd, "w") as f:
        f.write(owner() + "\n")
    atexit.register(release, lock)
    return lock


def take_over(lock: Path) -> Path | None:
    """Take a lock whose process is gone; refuse one held by a live process (or one on another host,
    whose process this host cannot see)."""
    held = holder(lock)
    if held is None:  # perhaps a lock being written this instant: read it again
        time.sleep(0.2)
        held = holder(lock)
    if held is not None and f"{held[0]} {held[1]}" != owner():
        pid, host = held
        if host != socket.gethostname() or alive(pid):
            where = "" if host == socket.gethostname() else f" on {host}"
            raise InputError(
                f"the sweep folder {lock.parent} is in use by another sweep (pid {pid}{where}); wait for "
                f"it, sweep into another folder with hydra.sweep.dir=..., or delete {lock} if that "
                "process is no sweep of this folder"
            )
        print(f"note: took over the stale lock of pid {pid} (no longer running) in {lock.parent}")
    try:
        spare = lock.with_name(f"{LOCK}.{os.getpid()}")
        spare.write_text(owner() + "\n")
        os.replace(spare, lock)  # whole, never half-written
    except OSError:
        return None
    atexit.register(release, lock)
    return lock


def release(lock: Path) -> None:
    """Remove the lock if this process still holds it (not one another sweep has since taken over), and
    put back the signal handlers the sweep's end replaced."""
    while _before:
        signum, handler = _before.popitem()
        with contextlib.suppress(ValueError):  # not the main thread: it set none
            signal.signal(signum, handler)
    held = holder(lock)
    if held is not None and f"{held[0]} {held[1]}" == owner():
        try:
            lock.unlink(missing_ok=True)
        except OSError as err:
            print(f"note: could not remove the sweep's lock {lock}: {err.strerror}", file=sys.stderr)


class Ending(KeyboardInterrupt):
    """A signal while a sweep writes its end (its tables and report): experiments.run says in one line
    how to write them, and exits 128 + the signal's number."""

    def __init__(self, signum: int, sweep_dir: Path) -> None:
        super().__init__(signum, sweep_dir)
        self.signum, self.sweep_dir = signum, sweep_dir

    def line(self) -> str:
        return (
            f"interrupted while the sweep's report was written: every run is recorded; write it with "
            f"python -m experiments.report {self.sweep_dir} (or run the same command again, which reruns "
            "none)"
        )


def guard_end(sweep_dir: Path) -> None:
    """From here to the sweep's exit, SIGINT and SIGTERM raise `Ending`: the exit says how to write the
    report and releases the lock (atexit). SIGTERM's default would kill the process with no word, no
    report and a stale lock. A second signal a second or more after the first (not the same one
    delivered twice) stops at once, still releasing the lock."""
    if threading.current_thread() is not threading.main_thread():
        return
    first: list[float] = []

    def stop(signum: int, frame: FrameType | None) -> None:
        now = time.monotonic()
        if not first:
            first.append(now)
            raise Ending(signum, sweep_dir)
        if now - first[0] >= interrupt.REPEAT_WINDOW:
            release(sweep_dir / LOCK)
            os.write(2, b"\ninterrupted again: stopping now\n")
            os._exit(128 + signum)

    for signum in interrupt.SIGNALS:
        _before.setdefault(signum, signal.signal(signum, stop))


class SweepEnd(Callback):
    """Guards the sweep's end (configs/config.yaml lists it after the report's callback, and Hydra calls
    the ends of callbacks in reverse, so this runs first): see `guard_end`."""

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        guard_end(Path(config.hydra.sweep.dir))
