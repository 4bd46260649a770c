"""A long run's search state, kept in its run folder so that the same command continues it (issue 58).

Why the optimiser says when (`Objective.checkpoint`, called between its steps): only there do its own
state, the RNG and the objective's counters agree, so a continued run repeats an uninterrupted one bit
for bit under an evaluation budget. Why written whole to a temporary file and renamed into place: a
cluster pre-empts a job at any moment, and the file is then the last complete state, never half of one.
Why the run's settings go with it: a state continued under other settings would be neither run.
"""

from __future__ import annotations

import math
import os
import pickle
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import InputError

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

    def save(self, objective: dict[str, Any], search: Any) -> None:
        """Write the state atomically (a temporary file beside it, then renamed into place)."""
        rng = None if self.rng is None else self.rng.bit_generator.state
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
