"""Compiled local-search kernels that know nothing of any puzzle.

Why generic: a kernel sees a face only through three compiled functions --
``propose(inst, st, rng) -> move``, ``delta(inst, st, move) -> int`` and ``apply(inst, st, move)`` --
plus an opaque instance ``inst`` that it hands back to them, and a state ``st`` that it may only copy
(``best[:] = st``). The kernel bodies below are plain Python functions taking those three as their
first arguments. ``for_face(propose, delta, apply)`` binds them as globals of a generated, disk-cached
module, which lets numba inline the face into the loop (15-25% more moves/s than passing them as
first-class arguments, measured in the prototype).

Chunks. A kernel runs at most ``max_moves`` priced moves (one priced move = one evaluation) and
returns; everything it needs to resume lives in arrays the caller owns: the state ``st``, the best
state ``best``, a ``home`` state (for kernels that go back to one), the RNG state ``rng`` (rng.py) and
an int64 control vector ``ctl`` read through named slots: ``ctl[EVALS]`` evaluations so far (over all
chunks), ``ctl[CURRENT]`` the current fitness, ``ctl[BEST]`` the best fitness, then each kernel's own
counters (``SA_STALE``; ``ILS_SINCE``, ``ILS_KICK_LEFT``, ``ILS_HOME``). ``params`` holds the kernel's
settings in the order of its row in ``KERNELS`` (the one place that order is written), then the target.

Each improvement of the best is written to ``trace_e`` (its evaluation index, 1-based over the run)
and ``trace_v`` (the new best); a chunk also stops when the trace buffer is full or the best reaches
``target``, so a Python driver keeps an exact trace, stops exactly at an evaluation budget and checks
the clock between chunks. Same seed, same chunking or not: same trace (the schedule is a function of
the evaluation count, never of time).

Return value of every kernel: ``(moves priced in this chunk, improvements written to the trace)``.
At return ``best`` holds a state whose fitness is ``ctl[BEST]``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import math
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from core import rng
from core.errors import InputError
from core.faces import LocalSearchFace
from core.rng import uniform

EVALS, CURRENT, BEST = 0, 1, 2  # the control slots every kernel shares
SA_STALE = 3  # sa: 1 while the best fitness was reached but not yet copied into `best`
ILS_SINCE, ILS_KICK_LEFT, ILS_HOME = 3, 4, 5  # ils: moves since an improvement, kick moves left, home fitness
CONTROL_SLOTS = 6


@dataclass(frozen=True)
class Kernel:
    """A compiled kernel by name: its settings in the order its `params` array holds them (then the
    target), where a face's compiled function comes from, and how many control slots it keeps. Every kernel is called as
    ``run(inst, st, best, home, rng, ctl, params, max_moves, trace_e, trace_v)``."""

    name: str
    settings: tuple[str, ...]
    compiled: Callable[[LocalSearchFace], Any]
    control: int = CONTROL_SLOTS  # the length of its control vector

    def slot(self, setting: str) -> int:
        """Where `setting` sits in the params array ("target" last)."""
        return (*self.settings, "target").index(setting)


# ----------------------------------------------------------------------------- simulated annealing


@njit(nogil=True)
def _temperature(t0, log_ratio, period, evals):
    """Cyclic geometric cooling: t0 down to t_end over `period` evaluations, then reheat."""
    phase = (evals % period) / period
    return t0 * math.exp(log_ratio * phase)


def sa(propose, delta, apply, inst, st, best, home, rng, ctl, params, max_moves, trace_e, trace_v):
    """Simulated annealing (Metropolis acceptance) with a cyclic cooling schedule.

    Settings: t_start, t_end, period (evaluations per cooling cycle). The best is copied into `best`
    lazily (ctl[SA_STALE]), just before the chain leaves it, so an improving streak costs no copies;
    `home` is unused.
    """
    t0, t1 = params[SA_T_START], params[SA_T_END]
    period, target = np.int64(params[SA_PERIOD]), np.int64(params[SA_TARGET])
    log_ratio = math.log(t1 / t0)
    evals, cur, bestf, stale = ctl[EVALS], ctl[CURRENT], ctl[BEST], ctl[SA_STALE]
    accept = np.empty(33, np.float64)  # exp(-d/T) for d = 0..32, refreshed every 256 evaluations
    nt, done = 0, 0
    while done < max_moves and nt < trace_e.shape[0] and bestf > target:
        temp = _temperature(t0, log_ratio, period, evals - evals % 256)  # same blocks in any chunking
        for d in range(33):
            accept[d] = math.exp(-d / temp)
        block = min(256 - evals % 256, max_moves - done)
        for _ in range(block):
            mv = propose(inst, st, rng)
            d = delta(inst, st, mv)
            evals += 1
            done += 1
            if d > 0:
                if d > 32 or uniform(rng) >= accept[d]:
                    continue
                if stale == 1:
                    best[:] = st
                    stale = 0
            apply(inst, st, mv)
            cur += d
            if cur < bestf:
                bestf = cur
                stale = 1
                trace_e[nt] = evals
                trace_v[nt] = bestf
                nt += 1
                if nt == trace_e.shape[0] or bestf <= target:
                    break
    if stale == 1:
        best[:] = st
        stale = 0
    ctl[EVALS], ctl[CURRENT], ctl[BEST], ctl[SA_STALE] = evals, cur, bestf, stale
    return done, nt


# ----------------------------------------------------------------------------- iterated local search


def ils(propose, delta, apply, inst, st, best, home, rng, ctl, params, max_moves, trace_e, trace_v):
    """Iterated local search: random-move descent (sideways moves allowed), kick, better-or-equal.

    A descent ends after `patience` priced moves without a strict improvement; its end is compared
    with the home state (kept in `home`): better or equal becomes home, worse goes back to home. Then
    `kick` random moves are applied whatever their price. With `restart` set (1) every local optimum
    is left behind, whatever its value: a kick as long as a shuffle makes this descent with random
    restarts (the compiled 2-opt). Settings: patience, kick, restart; ctl[ILS_HOME] starts at the
    initial fitness, with home[:] = st.
    """
    patience, kick = np.int64(params[ILS_PATIENCE]), np.int64(params[ILS_KICK])
    restart, target = params[ILS_RESTART] > 0, np.int64(params[ILS_TARGET])
    evals, cur, bestf = ctl[EVALS], ctl[CURRENT], ctl[BEST]
    since, kick_left, home_f = ctl[ILS_SINCE], ctl[ILS_KICK_LEFT], ctl[ILS_HOME]
    nt, done = 0, 0
    while done < max_moves and nt < trace_e.shape[0] and bestf > target:
        mv = propose(inst, st, rng)
        d = delta(inst, st, mv)
        evals += 1
        done += 1
        if kick_left > 0:  # perturbation: take the move whatever it costs
            apply(inst, st, mv)
            cur += d
            kick_left -= 1
            continue
        if d <= 0:
            apply(inst, st, mv)
            cur += d
        if d < 0:
            since = 0
            if cur < bestf:
                bestf = cur
                best[:] = st
                trace_e[nt] = evals
                trace_v[nt] = bestf
                nt += 1
        else:
            since += 1
        if since >= patience:  # a local optimum (as far as sampling tells): accept or go home
            if restart:
                home_f = cur
            elif cur <= home_f:
                home[:] = st
                home_f = cur
            else:
                st[:] = home
                cur = home_f
            since = 0
            kick_left = kick
    ctl[EVALS], ctl[CURRENT], ctl[BEST] = evals, cur, bestf
    ctl[ILS_SINCE], ctl[ILS_KICK_LEFT], ctl[ILS_HOME] = since, kick_left, home_f
    return done, nt


# ----------------------------------------------------------------------------- compiling per face

_sa_inline = njit(nogil=True, inline="always")(sa)
_ils_inline = njit(nogil=True, inline="always")(ils)
_BUILT: dict[tuple[object, ...], object] = {}

_BOUND = """
import importlib
from numba import njit
from heuristics.kernels import _ils_inline, _sa_inline

propose = getattr(importlib.import_module({pm!r}), {pn!r})
delta = getattr(importlib.import_module({dm!r}), {dn!r})
apply = getattr(importlib.import_module({am!r}), {an!r})


@njit(nogil=True, cache=True)
def sa_bound(inst, st, best, home, rng, ctl, params, max_moves, trace_e, trace_v):
    return _sa_inline(propose, delta, apply, inst, st, best, home, rng, ctl, params, max_moves, trace_e,
                      trace_v)


@njit(nogil=True, cache=True)
def ils_bound(inst, st, best, home, rng, ctl, params, max_moves, trace_e, trace_v):
    return _ils_inline(propose, delta, apply, inst, st, best, home, rng, ctl, params, max_moves, trace_e,
                       trace_v)
"""


def _sources_key(functions) -> str:
    """A hash of every source the bound kernels compile from (numba's cache checks only its own file)
    and of the functions' full names (one module may hold two faces' propose: no-turn and turning; a
    renamed module must not find the old one's build)."""
    modules = {sys.modules[f.py_func.__module__] for f in functions} | {sys.modules[__name__], rng}
    text = "".join(sorted(inspect.getsource(m) for m in modules))
    text += " ".join(f"{f.py_func.__module__}.{f.py_func.__qualname__}" for f in functions)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _bound_module(propose, delta, apply):
    """The bound kernels as a generated module, so numba caches them on disk (closures never hit its cache).

    The module is named by a hash of the face's and the kernels' sources: editing either builds anew.
    """
    names = {}
    for key, f in (("p", propose), ("d", delta), ("a", apply)):
        names[key + "m"], names[key + "n"] = f.py_func.__module__, f.py_func.__name__
    folder = Path(tempfile.gettempdir()) / f"puzzlelab-kernels-{os.getuid()}"
    folder.mkdir(exist_ok=True)
    path = folder / f"bound_{_sources_key((propose, delta, apply))}.py"
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(_BOUND.format(**names))
        os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = sys.modules.setdefault(
        path.stem, importlib.util.module_from_spec(spec)
    )  # numba's cache imports it
    spec.loader.exec_module(module)
    return module.sa_bound, module.ils_bound


def for_face(propose, delta, apply):
    """SA and ILS kernels with a face's functions bound at compile time (built once per face).

    Why a factory as well as first-class arguments: bound as globals, numba can inline the face's
    functions into the kernel's loop (15-25% more moves/s), and the build is cached on disk.
    Returns the (sa, ils) kernels, each called as in `Kernel`.
    """
    key = (propose, delta, apply)
    if key not in _BUILT:
        _BUILT[key] = _bound_module(propose, delta, apply)
    return _BUILT[key]


SA = Kernel(
    "sa", ("t_start", "t_end", "period"), lambda face: for_face(face.propose, face.delta, face.apply)[0]
)
ILS = Kernel(
    "ils", ("patience", "kick", "restart"), lambda face: for_face(face.propose, face.delta, face.apply)[1]
)
KERNELS = {kernel.name: kernel for kernel in (SA, ILS)}  # the generic rows; a face adds its own


def kernel_row(name: str, face: LocalSearchFace) -> Kernel:
    """The kernel named `name`: a generic row of KERNELS, else a row the face provides (its `kernels`).

    Why here: the one place a kernel is looked up by name, so heuristics/ never imports the puzzle
    whose face brings a kernel of its own."""
    row = KERNELS.get(name) or face.kernels.get(name)
    if row is None:
        raise InputError(
            f"the '{name}' kernel is neither generic ({', '.join(KERNELS)}) nor offered by this puzzle's face "
            f"(it offers {', '.join(face.kernels) or 'none'}); use optimizer=sa_compiled"
        )
    return row


# Where each setting sits in a kernel's params, as compiled code reads it (numba reads module constants).
SA_T_START, SA_T_END, SA_PERIOD, SA_TARGET = map(SA.slot, ("t_start", "t_end", "period", "target"))
ILS_PATIENCE, ILS_KICK, ILS_RESTART, ILS_TARGET = map(ILS.slot, ("patience", "kick", "restart", "target"))
