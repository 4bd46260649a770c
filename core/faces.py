"""The faces: what a puzzle offers a kind of solver, each a `Face` it declares and a Protocol that
states every attribute and method a solver of that kind uses.

"Face" means one thing: a puzzle's view for one kind of solver. A puzzle lists the faces it offers
(`offers`), an optimiser names the one it needs (`needs`), and `experiments.pairing` compares the two
before a run. `PROTOCOL` maps each face to its Protocol; tests/core/test_faces.py checks every puzzle
against the faces it declares.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from core.exact import CaseAnswer, CoverModel, ExactReport
from core.space import PermutationSpace

if TYPE_CHECKING:  # only for annotations
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


class Face(Enum):
    """What a puzzle offers a solver, and what a solver needs from it: compatibility is declared.

    A puzzle lists the faces it offers (`offers`, a frozenset) and every optimiser names the one
    it needs (`needs`); `experiments.pairing` compares the two before a run starts and refuses a
    mismatch in one line. The value reads in that line: "needs a genome and fitness".
    """

    FITNESS = "a genome and fitness"  # `space` + `fitness(genome)`: every generic metaheuristic
    LOCAL_SEARCH = "a local-search face"  # `local_search(start)`: the compiled optimisers
    WINDOWS = "a local-search face that re-solves windows"  # its face's `window` kernel (window_lns; a family's own)
    BOARD = "an edge-matching board"  # `ConstructivePuzzle`: greedy, beam, backtracker
    EXACT = "an exact model"  # `ExactPuzzle`: task=exact


class Offers:
    """A puzzle's `offers`: on its class, every face its instances may offer (the generated tables); on
    an instance, those its own pieces allow (`denied(puzzle)` names the faces they rule out), so a run
    never pairs an optimiser with a face the puzzle would then refuse to build."""

    def __init__(self, faces: frozenset[Face], denied: Callable[[Any], frozenset[Face]]):
        self.faces, self.denied = faces, denied

    def __get__(self, puzzle: Any, owner: type | None = None) -> frozenset[Face]:
        return self.faces if puzzle is None else self.faces - self.denied(puzzle)


@runtime_checkable
class FitnessPuzzle(Protocol):
    """A puzzle seen by a metaheuristic: a space, a fitness to minimise, and a picture.

    `fitness` is what optimisers minimise and `known_optimum` its best possible value where known;
    `score` gives the numbers users read, `score_name` says what `fitness` counts (axis labels),
    and `instance_keys` name the parameters that pick one instance among many of a kind (runs of
    different optimisers on equal instance keys pair up in the statistics). Hooks a puzzle may add,
    each a Protocol below: `text` (Printable), `describe` (Describing), `write_run_files` (WithRunFiles).
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
    start given to `local_search` builds (a solver, or one the puzzle names: an optimiser's `start:
    greedy` or a board file), within `seconds` (None: no limit), its seed drawn from np_rng. `kernels`
    are the face's own kernel rows by name (`heuristics.kernels.Kernel`: settings, control slots and
    the compiled kernel, with the contract of heuristics/kernels.py), which `kernels.kernel_row` looks
    up after the generic ones (edge matching offers `window`, exact re-solves of windows, and
    `plateau`, destroy-and-repair that walks plateaus).
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
    kernels: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class LocalSearchPuzzle(Protocol):
    """A puzzle with a local-search face (`Face.LOCAL_SEARCH`; `Face.WINDOWS` when its face has a
    `window` kernel): the compiled optimisers call `local_search(start)` once, before the run, for the
    face whose `built` start is the board `start` builds: a `ConstructiveSolver`, or a name the puzzle
    resolves ("random": none; None: the pieces give the face no structure to work on)."""

    def local_search(self, start: str | ConstructiveSolver = "random") -> LocalSearchFace | None: ...


@dataclass(frozen=True)
class Construction:
    """What a constructive solver built: its board, the work it took (`work` counts the solver's
    `work_unit`: placements priced, search nodes), why it stopped ("finished", "seconds",
    "max_nodes"), a lower bound it proved on the optimum (None: none proved), a `note`, one line
    for the user when it stopped short (empty otherwise), and an anytime solver's `history`: (seconds,
    work, fitness) at each better board it held, so the run's trace is its curve, not one point."""

    layout: Any
    work: int
    stop_reason: str = "finished"
    lower_bound: float | None = None
    note: str = ""
    history: tuple[tuple[float, int, float], ...] = ()


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


@runtime_checkable
class ConstructivePuzzle(Protocol):
    """What an edge-matching puzzle offers a constructive solver (`ConstructiveSolver.solve`).

    An n x m board (the greedy and exact_first build square ones; the beam and the backtracker any n x m), cells numbered row-major from the top-left. `table[p, r, s]` is the colour
    piece p shows on side s ([left, top, right, bottom]; 0 is the border) in its r-th allowed
    clockwise quarter turn (r = 0 only, when `rotations` is false). `preplaced` rows are
    (cell, piece, turns) already on the board. `layout` makes the puzzle's board from a piece and a
    turn per cell, checked: pre-placed pieces kept, each piece once unless `allow_duplicates`.
    `exact_report(limit, draw, max_nodes, seconds, threads, progress)` is task=exact on the board: the
    puzzle's own exact search, its answer as an `ExactReport`.
    """

    name: str
    n: int
    m: int
    rotations: bool
    table: np.ndarray
    preplaced: np.ndarray
    rules: Any  # Eternity II's board rules (grey sides exactly on the rim) where they apply, else None

    def layout(self, piece: np.ndarray, rotation: np.ndarray, allow_duplicates: bool = False) -> Any: ...

    def encode(self, layout: Any) -> np.ndarray:
        """The genome of the puzzle's fitness face that decodes to `layout` (a built board's record)."""
        ...

    def exact_report(
        self,
        limit: int | None,
        draw: int,
        max_nodes: int | None,
        seconds: float | None,
        threads: int | None,
        progress: bool = False,
    ) -> ExactReport: ...


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

    def figures(self, answer: CaseAnswer) -> dict[str, Any]: ...

    def report(self, table: Any, answers: list[CaseAnswer]) -> ExactReport: ...


@runtime_checkable
class Printable(Protocol):
    """A puzzle whose solutions read as text: a run prints its best one (pentomino, calendar)."""

    def text(self, layout: Any) -> str: ...


@runtime_checkable
class Describing(Protocol):
    """A puzzle that says a fitness in its own words ("458 of 480 joins matched"): progress lines use it."""

    def describe(self, value: float) -> str: ...


@runtime_checkable
class WithRunFiles(Protocol):
    """A puzzle with files of its own beside a run's record (an edge-matching board as text)."""

    def write_run_files(self, run_dir: Path, layout: Any) -> None: ...


PROTOCOL: dict[Face, type] = {
    Face.FITNESS: FitnessPuzzle,
    Face.LOCAL_SEARCH: LocalSearchPuzzle,
    Face.WINDOWS: LocalSearchPuzzle,
    Face.BOARD: ConstructivePuzzle,
    Face.EXACT: ExactPuzzle,
}
