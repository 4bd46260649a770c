"""A long run's search state, kept in its run folder so that the same command continues it (issue 58).

Why the optimiser says when (`Objective.checkpoint`, called between its steps): only there do its own
state, the RNG and the objective's counters agree, so a continued run repeats an uninterrupted one bit
for bit under an evaluation budget. Why written whole to a temporary file and renamed into place: a
cluster pre-empts a job at any moment, and the file is then the last complete state, never half of one.
Why the run's settings go with it: a state continued under other settings would be neither run.

A solver that sees no objective (a constructive solver building a board, alone or as a pipeline's
start) keeps its state through a `Stage` instead: whoever hands it the stretch of the run opens one
(`staged`), and the solver finds it (`current`), saves under a key of its own at its own step
boundaries and, in a continued run, gets its state back.
"""

from __future__ import annotations

import math
import os
import pickle
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import InputError

if TYPE_CHECKING:
    from core.objective import Objective

EVERY = 30.0  # seconds between two checkpoints of a running search (and one more on a stop)
FILE = "checkpoint.pkl"  # in the run folder
VERSION = 1  # of the file's layout


@dataclass
class Saved:
    """A checkpoint's state: the optimiser's (`search`, what its snapshot returned), the run's numpy
    generator (`rng`, its bit generator's state) and the objective's counters (`objective`)."""

    search: Any
    rng: dict[str, Any]
    objective: dict[str, Any]

    def line(self, describe: Callable[[float], str] = "{:g}".format) -> str:
        """The one line a continued run says: `resumed from checkpoint: 12,345 evaluations, 3.9 s, best 17`
        (`describe` says a best as the puzzle does)."""
        done, best, seconds = self.objective["evaluations"], self.objective["best"], self.objective["seconds"]
        if not done and isinstance(self.search, dict) and self.search.get("said"):  # a stage's own words
            return f"resumed from checkpoint: {self.search['said']}, {seconds:.1f} s"
        shown = describe(best) if math.isfinite(best) else "none yet"
        return f"resumed from checkpoint: {done:,} evaluation{'' if done == 1 else 's'}, {seconds:.1f} s, best {shown}"


class Checkpoint:
    """The checkpoint file of one run: `settings` (a flat {key: value} of what the run was asked) must
    match for a saved state to be continued; `every` seconds apart at most, while it runs."""

    def __init__(
        self,
        path: Path,
        settings: Mapping[str, Any],
        every: float = EVERY,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.path, self.settings, self.every, self.clock = Path(path), dict(settings), every, clock
        self.saved: Saved | None = None  # what `load` found
        self.rng: np.random.Generator | None = None  # the run's, saved with the state (minimize sets it)
        self.next = clock() + every

    def load(self) -> Saved | None:
        """The saved state to continue from (None: none saved); a one-line InputError when the file is
        damaged or was saved by a run with other settings."""
        if not self.path.is_file():
            return None
        fresh = f"delete {self.path} to start the run afresh"
        try:
            data = pickle.loads(self.path.read_bytes())
            version, settings, state = data["version"], data["settings"], data["state"]
            saved = Saved(state["search"], state["rng"], state["objective"])
        except Exception as err:  # any damage: cut off, another file, an old layout
            raise InputError(
                f"damaged checkpoint {self.path} ({type(err).__name__}: {err}); {fresh}"
            ) from None
        if version != VERSION:
            raise InputError(f"checkpoint {self.path} has layout {version}, not {VERSION}; {fresh}")
        differ = [
            f"{key} ({settings.get(key, '<none>')} -> {self.settings.get(key, '<none>')})"
            for key in sorted(settings.keys() | self.settings.keys())
            if settings.get(key) != self.settings.get(key)
        ]
        if differ:
            raise InputError(
                f"checkpoint {self.path} was saved by a run with other settings: {', '.join(differ)}; "
                f"run the command it was saved with to continue it, or {fresh}"
            )
        self.saved = saved
        return saved

    def due(self) -> bool:
        """Has the interval passed since the last save (or the start)?"""
        return self.clock() >= self.next

    def save(self, objective: dict[str, Any], search: Any, rng: Mapping[str, Any] | None = None) -> None:
        """Write the state atomically (a temporary file beside it, then renamed into place); `rng`: the
        run's generator state to keep (default: as it is now)."""
        if rng is None and self.rng is not None:
            rng = self.rng.bit_generator.state
        data = {
            "version": VERSION,
            "settings": self.settings,
            "state": {"search": search, "rng": rng, "objective": objective},
        }
        blob = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(blob)
                out.flush()
                os.fsync(out.fileno())
            mask = os.umask(0o022)  # readable as the user's umask says, as the run's other files
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)
            os.replace(tmp, self.path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        self.next = self.clock() + self.every

    def discard(self) -> None:
        """The run is complete: nothing is left to continue."""
        self.path.unlink(missing_ok=True)


class Stage:
    """A stretch of a run handed to solvers that see no objective (a constructive solver building the
    run's board or a pipeline's start): each saves its state under a key of its own (`save`) at its own
    step boundaries, when the interval has passed (`due`) or on a stop, and a continued run hands it
    back (`restored`). The file then holds every key's latest state, the objective's counters and the
    run's generator as it was when the stage opened.

    Why the generator as it was: the solvers were seeded from it as the stage opened, so a continued
    run draws the same seeds, builds the same solvers and finds its states under the same keys."""

    def __init__(
        self,
        keeper: Checkpoint,
        counters: Callable[[], dict[str, Any]],
        parts: Mapping[str, Any],
        rng: Mapping[str, Any] | None,
    ):
        self.keeper, self.counters, self.rng = keeper, counters, rng
        self.parts: dict[str, Any] = dict(parts)  # key -> the latest state saved (or restored)
        self.lock = threading.RLock()  # solvers save from their own threads

    def restored(self, key: str) -> Any:
        """The state saved under `key` that the run continues from (None: start afresh)."""
        return self.parts.get(key)

    def due(self) -> bool:
        """Has the checkpoint's interval passed? (A solver asks at its step boundaries, then saves.)"""
        return self.keeper.due()

    def save(self, key: str, state: Any, said: str) -> None:
        """Keep `state` as `key`'s and write the checkpoint; `said`: what the continued run's one line
        says of it (`Saved.line`), e.g. "breaks: 11 restarts done, 1 under way, 244,317,184 nodes, best 20
        unmatched joins"."""
        with self.lock:
            self.parts[key] = state
            self.keeper.save(self.counters(), {"stage": dict(self.parts), "said": said}, self.rng)


_stage: Stage | None = None  # the stage open in this process (module-wide: solvers run on threads)


def current() -> Stage | None:
    """The stage a solver saves its state to (None: nothing is kept, the solver runs as ever)."""
    return _stage


@contextmanager
def staged(objective: Objective, rng: Mapping[str, Any] | None) -> Iterator[Stage | None]:
    """Open a stage for the solvers run within the block, when the run keeps a checkpoint; `rng`: the
    run's generator state before the solvers were seeded from it. A continued run's saved states
    (`Objective.restored`, when a stage saved it) are handed back."""
    global _stage
    keeper, restored = objective.checkpoints, objective.restored
    if keeper is None:
        yield None
        return
    parts = restored["stage"] if isinstance(restored, dict) and "stage" in restored else {}
    before, _stage = _stage, Stage(keeper, objective.state, parts, rng)
    try:
        yield _stage
    finally:
        _stage = before
