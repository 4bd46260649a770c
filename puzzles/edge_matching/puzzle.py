"""Edge-matching puzzles: seed 001's pseudo Eternity II, and the real Eternity II rules.

A board of n x m square pieces (n x n when generated here; a piece file or the Eternity-II-like
generator may make it rectangular) whose sides carry colours, listed as [left, top, right, bottom];
colour 0 is the border. Cells are numbered row-major from the top-left. A piece may be turned by
r clockwise quarter turns: side s then shows the listed side (s - r) mod 4.

Rules (options):
  * the seed's: pieces never turn and the centre piece is given (n odd): `rotations=False,
    fix_centre=True`;
  * Eternity II's: pieces turn, the genome carries one turn per piece: `rotations=True,
    fix_centre=False`; and either may pre-place hint pieces.

Genome: the free pieces (all but the pre-placed ones) in the order they fill the free cells
(row-major), followed, with rotations, by one quarter-turn count per free piece.

Eternity II's board rules (corners in corners, frame pieces on the frame with their grey side out,
inner pieces inside, so grey shows exactly on the rim) hold for every genome when pieces turn and
their grey sides allow a legal board (`rules`, a `GreyRules`; None otherwise): the genome is then read
as a priority order within each piece class, each piece filling the next free cell of its class
(row-major); inner pieces take their turn gene, border pieces the turn that puts grey on the rim.
Why: the generic optimisers see only the genome, and any genome must be a board the puzzle allows.
A legal board's genome (`encode`) is the one without rules, and it decodes back to that board.

Two scores, never mixed up:
  * `match_rate`, the seed's accuracy: matching sides over all 4 n m sides, a border side matching
    when it carries 0 and an inner side when it equals its neighbour's facing side (as the
    seed's `check` counts, so each inner edge counts twice);
  * `edge_score`, the standard Eternity II score: matched inner edges over the 2nm - n - m inner
    edges, an edge matching when both sides carry the same colour other than 0.
The fitness optimisers minimise is the number of unmatched inner edges (0 for a perfect board).
"""

from __future__ import annotations

import sys
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import InputError
from core.exact import ExactReport
from core.faces import ConstructiveSolver, Face, LocalSearchFace, Offers
from core.space import PermutationSpace
from puzzles.edge_matching.board import (
    GreyRules,
    Layout,
    check_hints,
    colour_board,
    inner_edges,
    rim,
    turn_table,
)
from puzzles.edge_matching.fitness import fitness_plan, plan_unmatched
from puzzles.edge_matching.instances import Instance, file_instance, generated_instance
from puzzles.edge_matching.scores import board_scores

LOCAL_FACES = frozenset({Face.LOCAL_SEARCH, Face.WINDOWS})  # what pieces with no grey frame rule out


def _preplaced_rows(hints, instance: Instance, fix_centre: bool) -> list[tuple[int, int, int]]:
    """(cell, piece, turns) of every pre-placed piece: the centre, config hints, file hints."""
    n, m, known = instance.n, instance.m, instance.solution
    if any(len(h) not in (2, 4) for h in hints) or any(not (0 <= h[0] < n and 0 <= h[1] < m) for h in hints):
        raise InputError(
            f"puzzle.hints: each hint is [row, col] or [row, col, piece, turns] "
            f"with 0 <= row < {n}, 0 <= col < {m}; got {[list(h) for h in hints]}"
        )
    spots = [(n // 2, m // 2)] if fix_centre else []
    spots += [tuple(h) for h in hints if len(h) == 2]
    if spots and known is None:
        raise InputError(
            "puzzle.fix_centre and [row, col] hints take pieces from a known solution, which a piece "
            "file does not have; set puzzle.fix_centre=false and give [row, col, piece, turns] hints "
            "(or '# hint:' lines in the file)"
        )
    explicit = [tuple(h) for h in hints if len(h) == 4]
    check_hints(explicit, n, m, len(instance.sides), "puzzle.hints")
    rows = (  # spots need a known solution (checked above), so without one there are none
        [(r * m + c, int(known.piece[r * m + c]), int(known.rotation[r * m + c])) for r, c in spots]
        if known is not None
        else []
    )
    return rows + [(r * m + c, p, t) for r, c, p, t in explicit + list(instance.file_hints)]


def _check_preplaced(rows: np.ndarray, rotations: bool) -> None:
    """Pre-placed pieces must sit in distinct cells, be distinct pieces, and be turned only if pieces turn."""
    cells, pieces = rows[:, 0], rows[:, 1]
    if len(np.unique(cells)) < len(cells) or len(np.unique(pieces)) < len(pieces):
        raise InputError("puzzle.hints: two hints share a cell or a piece; give each hint its own")
    if not rotations and rows[:, 2].any():
        raise InputError(
            "puzzle.hints: a hint turns its piece but puzzle.rotations=false; "
            "use turns 0 or puzzle.rotations=true"
        )


def _built_start(puzzle: EdgeMatching, inst, solver: ConstructiveSolver):
    """A face's built start: the solver's board of the puzzle within `seconds` (None: no limit),
    seeded from the rng, made a legal state; `history`, if given, gets the solver's anytime rows
    (seconds, work, unmatched joins)."""
    from puzzles.edge_matching.face_states import legal_state

    def built(
        rng: np.random.Generator, seconds: float | None = None, history: list | None = None
    ) -> np.ndarray:
        construction = solver.seeded(int(rng.integers(2**31))).construct(puzzle, seconds)
        if history is not None:  # the solver's own anytime curve, for the run's trace
            history.extend(construction.history)
        if construction.note:  # what the builder did (which board was kept, the breaks' profile): shown once
            print(construction.note, file=sys.stderr)
        board = construction.layout
        return legal_state(inst, 4 * board.piece + board.rotation)

    return built


class EdgeMatching:
    """An edge-matching puzzle (pseudo or real Eternity II); minimise the unmatched inner edges.

    Args:
        n: board side (generated instances; a piece file states its own).
        colours: inner colours of a generated instance, 1..2n(n-1) (the seed sweeps 2..2n(n-1)).
        generator: "seed" (the seed's palette cycles), "uniform", or "file" (read `pieces_file`).
        instance_seed: fixes a generated instance (with generator, n, colours).
        rotations: may pieces turn? (False: the seed's rules; True: Eternity II's)
        fix_centre: the centre piece is given (the seed's rule; needs odd sides and a known solution).
        hints: pieces to pre-place, [row, col] (its piece from the known solution) or
            [row, col, piece, turns].
        pieces_file: a piece list (see puzzles/edge_matching/piece_files.py) when generator is "file".
        order: the edge order of the file's columns, if its header does not state it.

    Attributes:
        n, m: the board's rows and columns.
        colours: the colour count (a piece file's: the distinct colours it uses).
        sides: the pieces' colours, an (m, 4) array [left, top, right, bottom] in listed order.
        table: `turn_table` of the turns a piece may take (one turn without rotations).
        preplaced: (k, 3) rows (cell, piece, turns) of every pre-placed piece: the centre, the
            hints and a piece file's hints.
        rules: Eternity II's board rules (`GreyRules`) when pieces turn and a legal board exists; every
            genome then decodes to a legal board and `check` refuses boards that break them. None
            otherwise (the seed's unturned pieces; piece sets whose grey sides allow no legal board).
    """

    name = "edge_matching"
    offers = Offers(
        frozenset({Face.FITNESS, Face.LOCAL_SEARCH, Face.WINDOWS, Face.BOARD}),
        denied=lambda puzzle: frozenset() if puzzle.face_instance is not None else LOCAL_FACES,
    )
    score_name = "unmatched edges"
    instance_keys: tuple[str, ...] = ("instance_seed",)

    def __init__(
        self,
        n: int = 13,
        colours: int = 20,
        generator: str = "seed",
        instance_seed: int = 0,
        rotations: bool = False,
        fix_centre: bool = True,
        hints: tuple[list[int], ...] = (),
        pieces_file: str | None = None,
        order: str | None = None,
    ):
        if generator == "file":
            if not pieces_file:
                raise InputError("puzzle.generator=file needs puzzle.pieces_file=<path to a piece list>")
            self.instance = file_instance(pieces_file, order)
        else:
            self.instance = generated_instance(generator, n, colours, instance_seed, rotations)
        self.instance_seed = instance_seed
        self._set_up(rotations, fix_centre, hints, colours if generator != "file" else None)

    def _set_up(self, rotations: bool, fix_centre: bool, hints, colours: int | None) -> None:
        """Everything that follows from `self.instance` and the rules: pre-placed pieces and tables."""
        n, m = self.n, self.m = self.instance.n, self.instance.m
        if fix_centre and (n % 2 == 0 or m % 2 == 0):
            raise InputError(
                f"puzzle.fix_centre needs odd sides (a board with a centre cell), got {n} x {m}; "
                "use an odd n or puzzle.fix_centre=false"
            )
        self.sides, self.rotations = self.instance.sides, rotations
        self.colours = colours if colours is not None else self.colour_count()
        self.preplaced = np.array(_preplaced_rows(hints, self.instance, fix_centre), dtype=np.int64).reshape(
            -1, 3
        )
        _check_preplaced(self.preplaced, rotations)
        self._tables()

    @cached_property
    def face_instance(self) -> Any:
        """The local-search face's data, or None where a cell has no piece of its kind (no such face)."""
        from puzzles.edge_matching.face_instance import build_instance

        fixed = {int(c): int(4 * p + t) for c, p, t in self.preplaced}
        try:
            return build_instance(self.sides, self.n, self.m, fixed=fixed, turns=self.rotations)
        except InputError:
            return None

    def local_search(self, start: str | ConstructiveSolver = "random") -> LocalSearchFace | None:
        """The compiled local-search face, when the pieces' grey sides give every cell a piece of its
        kind: with turns, its class (corner, frame, inner); without, its grey pattern (None otherwise).

        start: "random" (the face's random board), or the constructive solver whose board, made legal,
        is the face's `built` start: given built (a pipeline's, pipelines.py), or by name (an optimiser's
        `optimizer.start`: greedy, beam, breaks, concurrent, or a board file's path;
        `solvers.starting_solver`, each with its solver's own defaults). Its `kernels` are the family's
        rows (kernel_rows.py).
        """
        from puzzles.edge_matching import board_moves as face
        from puzzles.edge_matching.face_states import random_state
        from puzzles.edge_matching.kernel_rows import PLATEAU, WINDOW, bound
        from puzzles.edge_matching.plateau import plateau_search_compiled
        from puzzles.edge_matching.solvers import starting_solver
        from puzzles.edge_matching.vlns import vlns_descent
        from puzzles.edge_matching.windows import window_search_compiled

        inst = self.face_instance
        if inst is None:
            return None
        return LocalSearchFace(
            face.propose if self.rotations else face.propose_fixed,
            face.delta,
            face.apply,
            face.fitness,
            inst,
            start=lambda rng: random_state(inst, rng),
            genome=self.genome_of_state,
            repair=vlns_descent,
            built=None
            if start == "random"
            else _built_start(self, inst, starting_solver(start) if isinstance(start, str) else start),
            kernels={
                "window": bound(WINDOW, window_search_compiled),
                "plateau": bound(PLATEAU, plateau_search_compiled),
            },
        )

    def write_run_files(self, run_dir: Path, layout: Layout) -> None:
        """A run's board as text anyone can check: best_board.txt, and the viewers' board_edges.txt on
        the official set (board_files.py)."""
        from puzzles.edge_matching.board_files import write_board_files

        write_board_files(self, layout, run_dir)

    def exact_report(
        self,
        limit: int | None,
        draw: int,
        max_nodes: int | None,
        seconds: float | None,
        threads: int | None,
        progress: bool = False,
    ) -> ExactReport:
        """task=exact on this board: its perfect boards counted, or none proved and the optimum
        (exact_boards.py)."""
        from puzzles.edge_matching.exact_boards import exact_report

        return exact_report(self, limit, draw, max_nodes, seconds, threads, progress)

    @staticmethod
    def sweep_colours(n: int, points: int | None = None) -> list[int]:
        """task=colour_sweep's colour counts on an n x n board: the seed's, or `points` log-spaced (sweep.py)."""
        from puzzles.edge_matching.sweep import seed_colours

        return seed_colours(n, points)

    @staticmethod
    def colour_limits(n: int) -> tuple[int, int]:
        """An n x n board's inner edges, and the most colours a sweep may deal on them."""
        from puzzles.edge_matching.sweep import colour_limits

        return colour_limits(n)

    def sweep_point(
        self, layout: Layout, optimizer: str, seconds: float, cpu_seconds: float
    ) -> dict[str, Any]:
        """The colour sweep's table row for this board solved by `optimizer` (sweep.py `point`)."""
        from puzzles.edge_matching.sweep import point

        return point(self, layout, optimizer, seconds, cpu_seconds)

    def genome_of_state(self, state: np.ndarray) -> np.ndarray:
        """The genome of a local-search state's board (its first n*m entries: piece * 4 + turns)."""
        orients = np.asarray(state[: self.n * self.m], dtype=np.int64)
        return self.encode(Layout(self.n, orients >> 2, orients & 3))

    def colour_count(self) -> int:
        """Distinct colours other than the border's."""
        return int(len(np.setdiff1d(np.unique(self.sides), [0])))

    def _tables(self) -> None:
        """Free cells and pieces, the pre-placed board, the turn table and the compiled fitness's plan."""
        size = self.n * self.m
        cells, pieces = self.preplaced[:, 0], self.preplaced[:, 1]
        self.free_cells = np.setdiff1d(np.arange(size), cells).astype(np.int64)
        self.free_pieces = np.setdiff1d(np.arange(len(self.sides)), pieces).astype(np.int64)
        self.base_piece = np.zeros(size, dtype=np.int64)
        self.base_rot = np.zeros(size, dtype=np.int64)
        self.base_piece[cells], self.base_rot[cells] = pieces, self.preplaced[:, 2]
        self.table = turn_table(self.sides, self.rotations)
        self.rim = rim(self.n, self.m)
        every_turn = turn_table(self.sides)
        f = len(self.free_cells)
        self.space = PermutationSpace(f, (4,) * f if self.rotations else ())
        self.rules = self._grey_rules()
        self.plan = fitness_plan(
            self.n,
            self.m,
            self.free_cells,
            self.free_pieces,
            self.rotations,
            every_turn[self.base_piece, self.base_rot],
            every_turn,
            self.rules,
        )

    def _grey_rules(self) -> GreyRules | None:
        """Eternity II's board rules, when pieces turn and the pieces' grey sides allow a legal board: as
        many pieces of each class as free cells, corners' grey sides adjacent, pre-placed pieces grey
        side out (else None: such puzzles decode and check as before)."""
        if not self.rotations:
            return None
        from puzzles.edge_matching.face_instance import build_instance

        fixed = {int(c): int(4 * p + t) for c, p, t in self.preplaced}
        try:
            inst = build_instance(self.sides, self.n, self.m, fixed=fixed)
        except InputError:
            return None
        free = np.zeros(self.n * self.m, dtype=bool)
        free[self.free_cells] = True
        rules = GreyRules(
            (
                np.flatnonzero((inst.cell_class == 0) & free),
                np.flatnonzero((inst.cell_class == 1) & free),
                np.flatnonzero((inst.cell_class == 2) & free),
            ),
            inst.piece_class[self.free_pieces].astype(np.int64),
            np.maximum(inst.piece_grey[self.free_pieces], 0).astype(np.int64),
            inst.out_side.astype(np.int64),
        )
        # every class's pieces fit every cell of that class alike, so one board tells: a 2 x m board's
        # middle cells (rim on opposite sides) or a hint turned grey side in leave no legal board
        first = self._place(self.space.identity(), rules)
        return None if any(self._grey_breaks(first)) else rules

    def _keeps_preplaced(self, layout: Layout) -> bool:
        """Does the board hold every pre-placed piece in its cell and turn?"""
        cells = self.preplaced[:, 0]
        return bool(
            np.array_equal(layout.piece[cells], self.preplaced[:, 1])
            and np.array_equal(layout.rotation[cells], self.preplaced[:, 2])
        )

    @property
    def known_optimum(self) -> float | None:
        """0 unmatched edges when the generating arrangement is known and agrees with every hint."""
        sol = self.instance.solution
        return 0.0 if sol is not None and self._keeps_preplaced(sol) else None

    def describe(self, value: float) -> str:
        """A fitness as the docs speak of it: matched joins of all, the unmatched beside them."""
        joins = inner_edges(self.n, self.m)
        return f"{joins - int(value)} of {joins} joins matched ({int(value)} unmatched)"

    def fitness(self, genome) -> float:
        """Unmatched inner edges of the genome's board (0 = solved)."""
        return float(plan_unmatched(np.asarray(genome, dtype=np.int64), self.plan))

    def decode(self, genome) -> Layout:
        """The board a genome describes (a legal one under `rules`)."""
        genome = np.asarray(genome, dtype=np.int64)
        if not self.space.contains(genome):
            raise InputError(
                f"not a genome of this puzzle: need {self.space.genome_length} "
                f"integers, a permutation of 0..{self.space.n - 1} (then turns 0..3)"
            )
        return self._place(genome, self.rules)

    def _place(self, genome: np.ndarray, rules: GreyRules | None) -> Layout:
        """The board of a valid genome: free pieces to free cells in order, or under `rules` each to the
        next free cell of its class, border pieces turned grey side out."""
        order, turns = self.space.split(genome)
        piece, rot = self.base_piece.copy(), self.base_rot.copy()
        if rules is None:
            piece[self.free_cells] = self.free_pieces[order]
            if turns is not None:
                rot[self.free_cells] = turns[order]
            return Layout(self.n, piece, rot)
        kind, turned = rules.piece_class[order], order * 0 if turns is None else turns  # None: no free piece
        for k, cells in enumerate(rules.cells):
            chosen = order[kind == k]  # the class's pieces in genome order
            piece[cells] = self.free_pieces[chosen]
            rot[cells] = turned[chosen] if k == 0 else (rules.out_side[cells] - rules.piece_grey[chosen]) % 4
        return Layout(self.n, piece, rot)

    def encode(self, layout: Layout) -> np.ndarray:
        """The genome of a board that uses every piece once, keeps the hints in place and, under
        `rules`, obeys them; it decodes back to that board."""
        self.check(layout)
        index = np.empty(len(self.sides), dtype=np.int64)
        index[self.free_pieces] = np.arange(len(self.free_pieces))
        order = index[layout.piece[self.free_cells]]
        if not self.rotations:
            return order
        turns = np.empty_like(order)
        turns[order] = layout.rotation[self.free_cells]
        return np.concatenate([order, turns])

    def check(self, layout: Layout, allow_duplicates: bool = False) -> None:
        """Raise unless the board keeps the hints, uses known pieces and turns only if allowed, and under
        `rules` shows grey exactly on the rim (which puts corners, frame and inner pieces in place)."""
        problems = []
        if not self._keeps_preplaced(layout):
            problems.append("a pre-placed piece was moved")
        pieces_ok = layout.piece.min() >= 0 and layout.piece.max() < len(self.sides)
        if not pieces_ok:
            problems.append("a cell is empty or names no piece")
        elif not allow_duplicates and len(np.unique(layout.piece)) < len(layout.piece):
            problems.append("a piece is placed twice")
        turns_ok = layout.rotation.min() >= 0 and layout.rotation.max() < 4
        if not turns_ok:
            problems.append("a turn is not 0, 1, 2 or 3")
        elif not self.rotations and layout.rotation.any():
            problems.append("a piece is turned but rotations are off")
        if self.rules is not None and pieces_ok and turns_ok:
            inward, bare = self._grey_breaks(layout)
            if inward or bare:
                problems.append(
                    f"grey sides belong exactly on the rim: {inward} face inward, {bare} rim sides are not grey"
                )
        if problems:
            raise ValueError("invalid board: " + "; ".join(problems))

    def _grey_breaks(self, layout: Layout) -> tuple[int, int]:
        """(grey sides facing inward, rim sides not grey) of a board whose pieces and turns are valid."""
        grey = self.table[layout.piece, layout.rotation] == 0
        return int((grey & ~self.rim).sum()), int((~grey & self.rim).sum())

    def layout(self, piece: np.ndarray, rotation: np.ndarray, allow_duplicates: bool = False) -> Layout:
        """The board of a piece and a turn per cell (a constructive solver's answer), checked."""
        board = Layout(self.n, np.asarray(piece, dtype=np.int64), np.asarray(rotation, dtype=np.int64))
        self.check(board, allow_duplicates)
        return board

    def score_layout(self, layout: Layout) -> dict[str, float]:
        """Both scores of a board (see SCORES), and how many cells repeat a piece."""
        scores = board_scores(colour_board(layout, self.table))
        scores["duplicates"] = int(len(layout.piece) - len(np.unique(layout.piece)))
        return scores

    def score(self, genome) -> dict[str, float]:
        """Both scores of the genome's board (see SCORES)."""
        return self.score_layout(self.decode(genome))

    def solution(self) -> Layout | None:
        """The generating arrangement (a perfect board), if known."""
        return self.instance.solution

    def draw(self, layout: Layout, ax=None):
        """Each piece as four coloured triangles, as in the seed; unmatched edges marked in red."""
        from puzzles.edge_matching.pictures import draw_board

        s = self.score_layout(layout)
        title = (
            f"match rate {100 * s['match_rate']:.1f}% (seed's accuracy, sides)\n"
            f"edge score {s['matched_edges']}/{inner_edges(self.n, self.m)} inner edges; red: unmatched"
        )
        return draw_board(colour_board(layout, self.table), ax=ax, title=title)
