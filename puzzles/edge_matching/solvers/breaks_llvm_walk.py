"""The generated break dive (breaks_llvm.py) compiled, bound to a restart's arrays and called: from
Python through ctypes (the tests), and from numba by breaks_walk `_walk` given its address (dive_call.py:
a plain indirect call, no Python).

A dive is compiled per board and restart setup (the quota's need and the schedule are written in);
its machine code is kept by the hash of its text, as the perfect search's generated walks are
(perfect_search/generated.py, whose llvmlite set-up this reuses). `bind` copies `_prepare`'s arrays
into one block laid out for the board and hands back views of it, so `_walk`'s own code reads and
writes the same memory as the dive.
"""

from __future__ import annotations

import ctypes
import hashlib
import time
from pathlib import Path

import llvmlite
import numpy as np

from puzzles.edge_matching.solvers import breaks_llvm as gen
from puzzles.edge_matching.solvers.perfect_search.generated import KeptCode, _binding


class _Pair(ctypes.Structure):
    _fields_ = [("i", ctypes.c_int64), ("nodes", ctypes.c_int64)]


def arrays_of(state: tuple, lists2: tuple, hist: np.ndarray) -> dict[str, np.ndarray]:
    """`_prepare`'s arrays (and the restart's hist) by the block's names."""
    names = ("packed", "start", "break_start", "blocked", "per_orient", "bits", "odd")
    found = dict(zip(names, lists2, strict=True))
    found.update(walked=state[1], shown=state[2], board=state[3], hist=hist)
    return found


class GeneratedDive(KeptCode):
    """`_dive` for one board and restart setup (`_prepare`'s per_depth, the geometry's checks), compiled
    or loaded from `folder` (None: no cache)."""

    def __init__(self, state: tuple, lists2: tuple, hist: np.ndarray, extra: tuple, folder: Path | None):
        llvm = _binding()
        started = time.perf_counter()
        arrays = arrays_of(state, lists2, hist)
        self.layout = gen.Layout({name: a.shape for name, a in arrays.items()})
        self.parity = bool(lists2[5].any())
        if not self.parity and lists2[6].any():
            raise ValueError("no colour has a bit, yet some are odd: the dive leaves parity out")
        self.pieces = lists2[3].shape[0] - 2
        self.text = gen.source(gen.facts(state[0], extra), self.layout, self.pieces, self.parity)
        cpu, features = llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()
        machine = llvm.Target.from_default_triple().create_target_machine(
            opt=3, cpu=cpu, features=features, codemodel="large"
        )
        key = hashlib.sha1("\n".join([self.text, cpu, features, llvmlite.__version__]).encode())
        self.path = None if folder is None else folder / f"dive_{key.hexdigest()[:20]}.o"
        self.loaded = self.path is not None and self.path.exists()
        self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(self.text), machine)
        self.engine.set_object_cache(self._keep, self._load)
        self.engine.finalize_object()
        self.address = self.engine.get_function_address("dive")
        args = [ctypes.c_void_p] + [ctypes.c_int64] * 9
        self.function = ctypes.CFUNCTYPE(_Pair, *args)(self.address)
        self.compile_seconds = time.perf_counter() - started

    def bind(
        self, state: tuple, lists2: tuple, hist: np.ndarray
    ) -> tuple[np.ndarray, tuple, tuple, np.ndarray]:
        """(block, state, lists2, hist): the arrays copied into one block laid out for this dive, and
        `_prepare`'s tuples rebuilt from views of it (what `_walk` and the dive then share)."""
        lay, arrays = self.layout, arrays_of(state, lists2, hist)
        raw = np.zeros(lay.size + 64, np.uint8)
        skip = -raw.ctypes.data % 64
        block = raw[skip : skip + lay.size]
        views = {}
        for name, dtype in gen.ARRAYS:
            source = arrays[name]
            if source.dtype != dtype or source.shape != lay.shapes[name]:
                raise ValueError(
                    f"{name}: {source.dtype} {source.shape}, the dive was written for {lay.shapes[name]}"
                )
            at = lay.offset[name]
            views[name] = block[at : at + source.nbytes].view(dtype).reshape(source.shape)
            views[name][...] = source
        names = ("packed", "start", "break_start", "blocked", "per_orient", "bits", "odd")
        bound_state = (state[0], views["walked"], views["shown"], views["board"], state[4])
        return block, bound_state, tuple(views[n] for n in names), views["hist"]

    def __call__(self, block: np.ndarray, i: int, fresh: bool, nodes: int, until: tuple) -> tuple[int, int]:
        """(depth, nodes), as `_dive(state, lists2, i, fresh, nodes, until, hist, extra)`."""
        pair = self.function(block.ctypes.data, i, int(fresh), nodes, *(int(x) for x in until))
        return pair.i, pair.nodes
