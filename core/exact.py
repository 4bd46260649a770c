"""The exact-cover vocabulary: a puzzle's case as bitset rows (`CoverModel`), what an exact solver
found for it (`CaseAnswer`) and what a run shows (`ExactReport`). heuristics/ solves the models,
the puzzle reads the answers back."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.errors import InputError


def bitsets(rows: Iterable[Iterable[int]], n_items: int) -> np.ndarray:
    """Rows of item indices as bitsets, the one layout every exact solver reads.

    Row r becomes W = ceil(n_items / 64) uint64 words, item i at bit i % 64 of word i // 64.
    Puzzles build their placement rows with it and the engine its rows from item lists.
    """
    arrays = [np.fromiter(row, dtype=np.int64) for row in rows]
    masks = np.zeros((len(arrays), max(1, -(-n_items // 64))), dtype=np.uint64)
    if arrays:
        items = np.concatenate(arrays)
        row_of = np.repeat(np.arange(len(arrays)), [len(row) for row in arrays])
        bits = np.left_shift(np.uint64(1), (items % 64).astype(np.uint64))
        np.bitwise_or.at(masks, (row_of, items // 64), bits)
    return masks


@dataclass(frozen=True)
class Regions:
    """Where a cover model's cell items lie on a grid, so a solver can drop hopeless branches.

    The cells to fill are the bits of `to_fill` (all items in the first word). Cell i's neighbour
    along axis a is item i + strides[a], and bit i of plus[a] says it has one. A connected region
    of open cells smaller than `min_size`, or whose size is not a multiple of `divisor`, can never
    be filled.
    """

    to_fill: int
    strides: tuple[int, ...]
    plus: tuple[int, ...]
    min_size: int = 1
    divisor: int = 1

    def __post_init__(self) -> None:
        if not 1 <= len(self.strides) == len(self.plus) <= 3:
            raise InputError("regions: give 1 to 3 axes, one stride and one plus mask each")


@dataclass(frozen=True)
class CoverModel:
    """An exact-cover matrix as bitsets (see `bitsets`), what a puzzle hands an exact solver.

    Matrix row r is the puzzle's own row (placement) `rows[r]`; `masks[r]` its items. Items in
    `primary` (a bitset) must be covered once, the others at most once. `rule` suggests the
    engine's choice rule ("first" or "mrv"); `regions`, if given, allows dead-region pruning.
    """

    masks: np.ndarray
    n_items: int
    primary: np.ndarray
    rows: np.ndarray
    rule: str = "first"
    regions: Regions | None = None


@dataclass(frozen=True)
class CaseAnswer:
    """What an exact solver found for one case of an exact puzzle.

    `count`: solutions in all (at most `limit`; None if not counted); `solutions`: the ones kept,
    each as the puzzle's own row (placement) indices; `seconds`: the wall-clock time spent solving,
    `cpu_seconds` the process's CPU time over the same span.
    """

    case: dict[str, Any]
    count: int | None
    solutions: list[np.ndarray]
    seconds: float
    limit: int | None = None
    cpu_seconds: float | None = None


@dataclass(frozen=True)
class ExactReport:
    """What a run of an exact puzzle shows: its headline `figures` (the run record's columns), a
    `text` to print, and `files` by name: a DataFrame (.parquet, with a CSV beside it), a
    (title, DataFrame) pair (.html), a picture (.png, drawn with matplotlib).
    """

    figures: dict[str, Any]
    text: str
    files: dict[str, Any]
