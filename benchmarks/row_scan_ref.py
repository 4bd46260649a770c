"""The same-machine reference of `bench_exact_edge speed` (issue 56): benchmarks/row_scan_ref.c, a plain
row-scan engine in C, built with `cc -O3` into a temporary folder when a compiler is present (the
product never needs one), fed a `Board`'s own candidate lists so that its tree is the row-scan order's.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SOURCE = Path(__file__).resolve().parent / "row_scan_ref.c"


@dataclass(frozen=True)
class Walked:
    """One run of the reference: nodes (placements and dead ends), placements, boards, CPU seconds."""

    nodes: int
    placements: int
    boards: int
    seconds: float


def build(folder: Path) -> Path | None:
    """The reference compiled into `folder` with -O3, or None when there is no C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        return None
    exe = folder / "row_scan_ref"
    subprocess.run([cc, "-O3", "-march=native", "-o", str(exe), str(SOURCE)], check=True)
    return exe


def write_tables(board, path: Path) -> None:
    """The board's walk tables (order, keys, twins, lists, pre-placed colours) as row_scan_ref.c reads
    them; the board must be without look-ahead and checked sides (every known side keys its list)."""
    assert not board.check_len.any() and not board.lookahead, "the reference keys every known side"
    f, pieces = len(board.order), len(board.table)
    parts = [np.array([f, pieces, len(board.piece_of), len(board.starts)])]
    per_depth = np.column_stack([board.order, board.base, board.key_at, board.key_weight])
    parts += [per_depth.ravel(), np.column_stack([board.next_twin, board.blocked[:-1]]).ravel()]
    parts += [np.column_stack([board.piece_of, board.shows]).ravel(), board.starts]
    parts += [np.array([len(board.shown)]), board.shown.ravel()]
    path.write_text(" ".join(map(str, np.concatenate([np.asarray(x, np.int64) for x in parts]))))


def run(exe: Path, tables: Path, max_nodes: int) -> Walked:
    """The reference's walk from the empty board to the node cap (or the tree's end), as `Board.walk`
    counts it; its seconds are its own CPU seconds of the walk (not reading the tables)."""
    done = subprocess.run([str(exe), str(tables), str(max_nodes)], check=True, capture_output=True, text=True)
    nodes, placements, boards, seconds = done.stdout.split()
    return Walked(int(nodes), int(placements), int(boards), float(seconds))


def temporary() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="row_scan_ref-")
