"""The vocabulary that puzzles, solvers and experiments share, owned by none of them.

`puzzles/` and `heuristics/` both import this module and never each other: a metaheuristic sees a
`PermutationSpace` and a fitness, a constructive solver sees a `ConstructivePuzzle`, an exact
solver sees a cover model. Every user mistake, wherever it is found, is an `InputError`: one line
that says what is wrong and how to fix it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol, overload, runtime_checkable

import numpy as np

if TYPE_CHECKING:  # only for annotations
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


class InputError(ValueError):
    """Bad input (a config value, a piece file, an impossible puzzle, an optimiser setting) a user can fix."""


@dataclass(frozen=True)
class PermutationSpace:
    """n items to order; `orientations[i]` choices for item i, or () when the order is all.

    A genome is one flat int array: a permutation of n items, followed (when items have
    orientations) by one orientation index per *item*, so an item keeps its orientation wherever
    it moves in the order.
    """

    n: int
    orientations: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.orientations and len(self.orientations) != self.n:
            raise ValueError("need one orientation count per item")

    @property
    def oriented(self) -> bool:
        return bool(self.orientations) and max(self.orientations) > 1

    @cached_property
    def turnable(self) -> np.ndarray:
        """Items with more than one orientation: the only ones an orientation move can change."""
        return np.flatnonzero(np.asarray(self.orientations, dtype=np.int64) > 1)

    @property
    def genome_length(self) -> int:
        return 2 * self.n if self.orientations else self.n

    def split(self, genome: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """(order, orientation per item) views of a genome."""
        if not self.orientations:
            return genome, None
        return genome[: self.n], genome[self.n :]

    def random(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random genome."""
        order = rng.permutation(self.n)
        if not self.orientations:
            return order
        return np.concatenate([order, rng.integers(0, self.orientations)])

    def identity(self) -> np.ndarray:
        """Items in id order, each as drawn: the seed's starting point."""
        return np.concatenate([np.arange(self.n), np.zeros(len(self.orientations), dtype=np.int64)])

    def contains(self, genome: Sequence[int] | np.ndarray) -> bool:
        """Is this a valid genome of the space?"""
        array = np.asarray(genome)
        if array.shape != (self.genome_length,):
            return False
        order, orient = self.split(array)
        if not np.array_equal(np.sort(order), np.arange(self.n)):
            return False
        return orient is None or bool(np.all((orient >= 0) & (orient < self.orientations)))


@dataclass(frozen=True)
class Budget:
    """When a run ends: after `evaluations`, after `seconds`, or once best <= `target`."""

    evaluations: int | None = None
    seconds: float | None = None
    target: float | None = None

    def __post_init__(self) -> None:
        for name in ("evaluations", "seconds"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise InputError(f"budget.{name} must be positive, got {value}")
        if self.evaluations is None and self.seconds is None:  # a target alone may never be reached
            raise InputError("the budget is unbounded: set budget.evaluations or budget.seconds")


@dataclass
class Result:
    """What one run found and what it cost; `trace` rows are (evaluations, seconds, best).

    `seconds` is read on the run's clock (wall-clock unless `minimize` was given another);
    `cpu_seconds` is the process's CPU time over the same span (every thread, numba's included).
    """

    best: float
    best_genome: np.ndarray
    evaluations: int
    seconds: float
    stop_reason: str
    trace: list[tuple[int, float, float]]
    cpu_seconds: float | None = None


@runtime_checkable
class Puzzle(Protocol):
    """A puzzle seen by a metaheuristic: a space, a fitness to minimise, and a picture.

    `fitness` is what optimisers minimise and `known_optimum` its best possible value where known;
    `score` gives the numbers users read, `score_name` says what `fitness` counts (axis labels),
    and `instance_keys` name the parameters that pick one instance among many of a kind (runs of
    different optimisers on equal instance keys pair up in the statistics).
    """

    name: str
    space: PermutationSpace
    known_optimum: float | None
    score_name: str
    instance_keys: tuple[str, ...]

    def fitness(self, genome: np.ndarray) -> float: ...

    def score(self, genome: np.ndarray) -> dict[str, float]: ...

    def decode(self, genome: np.ndarray) -> Any: ...

    def draw(self, layout: Any, ax: Axes | None = None) -> Figure: ...


class Face(Enum):
    """What a puzzle offers a solver, and what a solver needs from it: compatibility is declared.

    A puzzle lists the faces it offers (`offers`, a frozenset) and every optimiser names the one
    it needs (`needs`); `experiments.solvers` compares the two before a run starts and refuses a
    mismatch in one line. The value reads in that line: "needs a genome and fitness".
    """

    FITNESS = "a genome and fitness"  # `space` + `fitness(genome)`: every generic metaheuristic
    LOCAL_SEARCH = "a local-search face"  # `local_search(start)`: the compiled optimisers
    WINDOWS = "a local-search face that re-solves windows"  # its face's `window` kernel: window_lns
    BOARD = "an edge-matching board"  # `ConstructivePuzzle`: greedy, beam, backtracker
    EXACT = "an exact model"  # `ExactPuzzle`: task=exact


@dataclass(frozen=True)
class Construction:
    """What a constructive solver built: its board, the work it took (`work` counts the solver's
    `work_unit`: placements priced, search nodes), why it stopped ("finished", "seconds",
    "max_nodes"), a lower bound it proved on the optimum (None: none proved) and a `note`, one line
    for the user when it stopped short (empty otherwise)."""

    layout: Any
    work: int
    stop_reason: str = "finished"
    lower_bound: float | None = None
    note: str = ""


class ConstructiveSolver(Protocol):
    """A solver that builds one board from an edge-matching puzzle's pieces (greedy, beam, backtracker).

    `construct(puzzle, seconds)` returns the best complete board it can build within `seconds`
    (None: no time limit), or refuses in one line (`InputError`) where it cannot; `solve(puzzle)` is
    `construct(puzzle).layout`; `seeded(seed)` is the same solver drawing its ties from `seed` (itself
    when it draws none). `repeats_pieces` declares a solver whose boards may place a piece
    twice (the seed's greedy, kept faithful): such a board is no genome of the puzzle.
    """

    name: str
    needs: Face
    work_unit: str
    repeats_pieces: bool

    def construct(self, puzzle: Any, seconds: float | None = None) -> Construction: ...

    def solve(self, puzzle: Any) -> Any: ...

    def seeded(self, seed: int) -> ConstructiveSolver: ...


@overload
def unmatched_edge(a: int | np.integer, b: int | np.integer) -> bool | np.bool_: ...


@overload
def unmatched_edge(a: np.ndarray, b: np.ndarray) -> np.ndarray: ...


def unmatched_edge(
    a: int | np.integer | np.ndarray, b: int | np.integer | np.ndarray
) -> bool | np.bool_ | np.ndarray:
    """The edge-matching rule, in one place: an inner edge whose two sides show colours a and b is
    unmatched when they differ or carry the border colour 0.

    Written with plain operators so that one definition serves numpy arrays (element by element)
    and compiled loops (wrap it once with `numba.njit(inline="always")`; it costs nothing there).
    """
    return (a != b) | (a == 0)


@runtime_checkable
class ConstructivePuzzle(Protocol):
    """What an edge-matching puzzle offers a constructive solver (`ConstructiveSolver.solve`).

    An n x m board (the greedy and exact_first build square ones; the beam and the backtracker any n x m), cells numbered row-major from the top-left. `table[p, r, s]` is the colour
    piece p shows on side s ([left, top, right, bottom]; 0 is the border) in its r-th allowed
    clockwise quarter turn (r = 0 only, when `rotations` is false). `preplaced` rows are
    (cell, piece, turns) already on the board. `layout` makes the puzzle's board from a piece and a
    turn per cell, checked: pre-placed pieces kept, each piece once unless `allow_duplicates`.
    """

    name: str
    n: int
    m: int
    rotations: bool
    table: np.ndarray
    preplaced: np.ndarray
    rules: Any  # Eternity II's board rules (grey sides exactly on the rim) where they apply, else None

    def layout(self, piece: np.ndarray, rotation: np.ndarray, allow_duplicates: bool = False) -> Any: ...


# Exact puzzles: an exact-cover model per case, solved by heuristics/, read back by the puzzle.


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
class Answer:
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


@runtime_checkable
class ExactPuzzle(Protocol):
    """A puzzle answered exactly: cases, each an exact-cover model, and what their solutions mean.

    `cases()` names the problems a run solves (one date, one cube; 366 dates; one board per line
    of a table), each by a key such as {"month": 1, "day": 1} or {"board": "6x10"}; `model(case)`
    is its cover model. `figures(answer)` gives one case's numbers a user reads (solution counts
    raw / distinct / up to symmetry, the literature's beside them): with the key, a table row.
    `needs_solutions` says whether figures need every solution (to merge symmetric ones) or only
    their count. `report(table, answers)` turns the table and the kept solutions into the run's
    headline figures, text and files (pictures, HTML pages).
    """

    name: str
    needs_solutions: bool

    def cases(self) -> list[dict[str, Any]]: ...

    def model(self, case: dict[str, Any]) -> CoverModel: ...

    def figures(self, answer: Answer) -> dict[str, Any]: ...

    def report(self, table: Any, answers: list[Answer]) -> ExactReport: ...


# Local search: the compiled face a puzzle may offer beside its fitness (shared/design.md).


@dataclass(frozen=True)
class LocalSearchFace:
    """What a puzzle hands a compiled local search, so kernels in heuristics/ never see the puzzle.

    `propose(instance, state, rng) -> move`, `delta(instance, state, move) -> int` (the fitness change
    the move would make, priced without making it), `apply(instance, state, move)` and
    `fitness(instance, state) -> int` (from scratch) are numba-compiled functions; `rng` is a
    `core.rng` state. `instance` is opaque data handed back to them; a state is a flat numpy array a
    kernel may only copy. `start(np_rng)` draws a fresh legal state, `genome(state)` gives the same
    board as a genome of the puzzle's fitness face (for records, scores and pictures), and `repair`,
    if offered, is a large step `repair(instance, state, np_rng, steps, size) -> (fitness change,
    evaluations)` that never makes the board worse and prices at most size**2 moves a step.
    `scale` > 1 says the face's fitness refines the puzzle's: it is `fitness * scale + tie-break`
    (0 <= tie-break < scale), so a kernel can tell apart boards the puzzle scores alike.
    `built(np_rng, seconds)`, if offered, is a constructive start: the legal state of the board the
    puzzle's own solver builds for the start named to `local_search` (an optimiser's `start: greedy`,
    `start: beam` or a board file), within `seconds` (None: no limit), its seed drawn from np_rng. `window`, if offered, is a compiled kernel with the contract of heuristics/kernels.py
    that re-solves windows of the board exactly (the `window` kernel of `window_lns`).
    """

    propose: Any
    delta: Any
    apply: Any
    fitness: Any
    instance: Any
    start: Any
    genome: Any
    repair: Any = None
    scale: int = 1
    built: Any = None
    window: Any = None
