"""The sweep's end under Ctrl-C and SIGTERM: held while its cheap end files are written, then the
sweep's own guard (experiments/sweep_lock.py) for the rest of its end (optuna_sweeper.py)."""

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

STOPS = (signal.SIGINT, signal.SIGTERM)


def stop_now(signum: int, frame: Any) -> None:
    """SIGTERM as Ctrl-C: the app then says in one line how to finish, and its exit hooks run."""
    raise KeyboardInterrupt


@contextmanager
def stops_held(sweep_dir: Path) -> Iterator[None]:
    """Within the block, Ctrl-C and SIGTERM wait for it to end; after it, and for the rest of the sweep's
    end (its report), either stops the sweep as experiments/sweep_lock.py's guard_end says: one line on
    how to write the report, the lock released. Main thread only: elsewhere signals stay as they are."""
    from experiments import sweep_lock

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    before = {number: signal.signal(number, lambda signum, frame: held.append(signum)) for number in STOPS}
    try:
        yield
    finally:
        for number, handler in before.items():  # put back first: guard_end keeps them to restore
            signal.signal(number, handler)
        guard = getattr(sweep_lock, "guard_end", None)
        if guard is not None:
            guard(sweep_dir)
        else:  # a sweep_lock without it: SIGTERM as Ctrl-C, which the app says in one line
            for number in STOPS:
                signal.signal(number, stop_now)
    if held:
        ending = getattr(sweep_lock, "Ending", None)
        raise KeyboardInterrupt if ending is None else ending(held[0], sweep_dir)
