"""The break backtracker's restarts under way, shared by its threads (`_Restarts`): the next restart's
number, the best board, the ladder's boards and prefixes, the anytime curve, and what a checkpoint
keeps of them; and what a construction reports (`BreaksConstruction`, `RestartOutcome`). Apart from
breaks.py, which holds the solver's settings, its quota probes and its construction."""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from core import checkpoint, interrupt, progress
from core.faces import Construction, ConstructivePuzzle
from puzzles.edge_matching.solvers.breaks_finish import _complete, _unmatched
from puzzles.edge_matching.solvers.breaks_tables import RestartRun, Tables
from puzzles.edge_matching.solvers.breaks_walk import BEST, NODES

if TYPE_CHECKING:
    from puzzles.edge_matching.solvers.breaks import Breaks

EXTEND_DEPTH = 252 / 256  # libblackwood extends a restart that sets a new deepest depth past 252 of 256
OPEN_CELLS = (
    16  # the ladder's distinct prefixes: boards alike but in their last 16 cells (eii's last row) count once
)
PROBE_COLOURS = 48  # quota triples drawn a batch when optimizer.quota is null (breaks.py probe_batches)


@dataclass(frozen=True)
class BreaksConstruction(Construction):
    """A `Construction` with the search's own count of its board's unmatched joins (`unmatched`) and
    its profile: the quota colours used, placements by depth (`depth_nodes`, the benchmark's
    "where the nodes go"), the deepest depth reached and the restarts run and how each ended; its
    `history` is the anytime curve (seconds, nodes, unmatched joins at each new best board)."""

    unmatched: int = 0
    depth_nodes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    break_nodes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # of those, with a break
    deepest: int = 0
    restarts: int = 0
    quota: tuple[int, ...] = ()
    ladder_boards: dict[bytes, int] = field(default_factory=dict)  # on the ladder: board -> unmatched joins
    ladder_parts: dict[bytes, str] = field(default_factory=dict)  # board -> the part that first completed it
    ladder_prefixes: dict[bytes, bytes] = field(
        default_factory=dict
    )  # board -> its cells bar the last OPEN_CELLS
    outcomes: tuple[RestartOutcome, ...] = ()


@dataclass(frozen=True)
class RestartOutcome:
    """What one restart did (the ladder benchmark's profile): its number k (probes below 0), its
    placements, its deepest depth, its best board's unmatched joins (-1: none), and how it ended:
    "walked" (its whole tree), "abandoned" (short of the abandon depth) or "ran out" (its placements
    spent, or stopped)."""

    k: int
    nodes: int
    deepest: int
    unmatched: int
    ended: str


def _copied(value: Any) -> Any:
    """A copy of a kept field that the threads going on cannot change."""
    if isinstance(value, np.ndarray | list | dict):
        return value.copy()
    return value


class _Restarts:
    """One construction's restarts, shared by its threads: the next restart's number k, the best board
    so far (ties: the lower k), the work done and the anytime curve, under one lock; and what a
    checkpoint keeps of them (`state`): the restarts under way (`running`: k -> the best score they
    were told and their walk where it last paused, None before its first pause), and those a stop cut
    short (`stopped`, counted once every thread has ended, after the checkpoint that continues them)."""

    def __init__(
        self, solver: Breaks, tables: Tables, abandon: tuple[int, int], budget: int | None, started, each: int
    ):
        self.solver, self.tables, self.abandon, self.budget, self.started = (
            solver,
            tables,
            abandon,
            budget,
            started,
        )
        self.lock, self.each = threading.Lock(), each
        self.next, self.score, self.key = 0, 1 << 30, (1 << 30, 0)
        self.best: np.ndarray | None = None
        self.bound = np.full(1, 1 << 30, np.int64)  # the best's unmatched joins, as the walks share it
        self.nodes, self.deepest, self.done, self.probed = 0, 0, False, 0
        self.history: list[tuple[float, int, int]] = []
        self.hist = np.zeros(tables.cells_count, np.int64)
        self.break_hist = np.zeros(tables.cells_count, np.int64)
        self.outcomes: list[RestartOutcome] = []
        # extended restarts only under a time limit: under a node budget each restart's share is fixed
        depth = (
            round(EXTEND_DEPTH * tables.cells_count) if solver.extend_depth is None else solver.extend_depth
        )
        self.extend = (depth if budget is None and solver.extend_nodes else 1 << 30, solver.extend_nodes)
        self.boards: dict[bytes, int] = {}  # the ladder's distinct boards: unmatched joins of each
        self.parts: dict[bytes, str] = {}  # and the part of the search that completed each first
        self.prefixes: dict[
            bytes, bytes
        ] = {}  # and its prefix: the fill order's cells bar the last OPEN_CELLS
        self.prefix_cells = tables.order[: max(0, tables.cells_count - OPEN_CELLS)]
        # what a checkpoint keeps (core.checkpoint.Stage): where it goes, and the state besides the above
        self.keeper: tuple[checkpoint.Stage, str] | None = None
        self.phase = "restarts"  # or "probes": the quota's probes under way
        self.probes: dict[tuple[int, int, int], RestartRun] = {}  # the probes ended, by job
        self.quota: list[int] = []
        self.probed_quota = False  # the quota was chosen by probes
        self.running: dict[int, tuple[int, dict[str, Any] | None]] = {}
        self.pending: list[tuple[int, int, dict[str, Any] | None]] = []  # a continued run's, first
        self.stopped: list[tuple[int, RestartRun]] = []

    KEPT: tuple[str, ...] = ("next", "score", "key", "best", "nodes", "deepest", "done", "probed", "history")
    KEPT += ("hist", "break_hist", "outcomes", "boards", "parts", "prefixes")  # what `state` copies

    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps (under the lock): copies, so that the threads may go on."""
        head = {"seconds": time.perf_counter() - self.started, "each": self.each, "phase": self.phase}
        if self.phase == "probes":
            return {**head, "probes": dict(self.probes)}
        kept = {name: _copied(getattr(self, name)) for name in self.KEPT}
        running = sorted([*self.pending, *((k, fewer, walk) for k, (fewer, walk) in self.running.items())])
        return {
            **head,
            "quota": list(self.quota),
            "probed": self.probed_quota,
            "restarts": {**kept, "running": running},
        }

    def restore(self, saved: dict[str, Any]) -> None:
        """Go on from a checkpoint's restarts: those under way first, each from its walk."""
        for name in self.KEPT:
            setattr(self, name, _copied(saved[name]))
        self.bound[0] = self.score
        self.pending = list(saved["running"])

    def said(self) -> str:
        """The continued run's one line about this state (under the lock)."""
        if self.phase == "probes":
            return f"{self.solver.name}: {len(self.probes)} quota probes done"
        done = sum(outcome.k >= 0 for outcome in self.outcomes)
        under_way = [walk for _, walk in self.running.values()] + [walk for _, _, walk in self.pending]
        walks = [walk["regs"] for walk in under_way if walk is not None]
        nodes = self.nodes + sum(int(regs[NODES]) for regs in walks)
        lowest = min([self.score if self.best is not None else 1 << 30, *(int(regs[BEST]) for regs in walks)])
        best = "none yet" if lowest >= 1 << 30 else f"{lowest} unmatched joins"
        return (
            f"{self.solver.name}: {done:,} restarts done, {len(under_way)} under way, {nodes:,} nodes, "
            f"best {best}"
        )

    def keep(self, force: bool = False) -> None:
        """Write the checkpoint when its interval has passed (or `force`: on a stop)."""
        if self.keeper is None:
            return
        stage, key = self.keeper
        with stage.lock:
            if not (force or stage.due()):
                return
            with self.lock:
                state, said = self.state(), self.said()
            stage.save(key, state, said)

    def probe_ended(self, job: tuple[int, int, int], run: RestartRun) -> None:
        with self.lock:
            self.probes[job] = run
        self.keep()

    def paused(self, k: int, walk: dict[str, Any]) -> None:
        """Restart k's walk paused (every PAUSE_NODES placements): a checkpoint continues it from here."""
        with self.lock:
            self.running[k] = (self.running[k][0], walk)
        self.keep()

    def stopped_at_last(self, interrupted: bool) -> None:
        """Every thread has ended: on an interrupt, the checkpoint that continues the restarts under way
        from where they stopped; then their work is counted, as a stopped restart's always was."""
        if interrupted:
            self.keep(force=True)
        for k, run in sorted(self.stopped, key=lambda kr: kr[0]):
            self.record(run, k)
            if run.unmatched == 0:
                self.done = True
        self.stopped = []

    def cap_of(self, k: int) -> int:
        """Restart k's placements: the restart length, or what the node budget leaves it."""
        each = self.each
        if self.budget is None:
            return each
        return max(0, min(each, self.budget - self.probed - k * each))

    def record(self, run: RestartRun, k: int) -> None:
        """Count a restart's work and keep its board if the best (ties: the lower k), under lock."""
        self.nodes += run.nodes
        if k >= 0:  # a probe reported itself as it ended
            progress.report(run.nodes, None if run.board is None else run.unmatched, "node")
        self.hist[:] += run.hist
        self.break_hist[:] += run.break_hist
        self.deepest = max(self.deepest, run.deepest)
        ended = "walked" if run.exhausted else ("abandoned" if run.deepest < self.abandon[1] else "ran out")
        unmatched = run.unmatched if run.board is not None else -1
        self.outcomes.append(RestartOutcome(k, run.nodes, run.deepest, unmatched, ended))
        col, nb = self.tables.colours, self.tables.neighbours
        for board, part in zip(run.kept, run.kept_by, strict=True):
            key = board.tobytes()
            if key not in self.boards:
                self.boards[key], self.parts[key] = int(_unmatched(board, col, nb)), part
                self.prefixes[key] = board[self.prefix_cells].tobytes()
        if run.board is not None and (run.unmatched, k) < self.key:
            self.key = (run.unmatched, k)
            self.bound[0] = min(self.bound[0], run.unmatched)  # a probe's or finishing beam's board too
            improved = run.unmatched < self.score
            self.best, self.score = run.board, run.unmatched
            if improved:
                self.history.append((time.perf_counter() - self.started, self.nodes, run.unmatched))

    def worker(self, stop: np.ndarray, quota: list[int], share_best: bool) -> None:
        """Run restarts, the next k each (a continued run's restarts under way first), until stopped,
        out of budget or done."""
        solver, tables, abandon = self.solver, self.tables, self.abandon
        while stop[0] == 0:
            with self.lock:
                if self.done:
                    return
                if self.pending:
                    k, fewer, walk = self.pending.pop(0)
                else:
                    k, walk = self.next, None
                    self.next += 1
                    fewer = self.score if share_best else 1 << 30
                self.running[k] = (fewer, walk)
            cap = self.cap_of(k)
            if cap <= 0:
                with self.lock:
                    del self.running[k]
                return
            ladder = None if solver.ladder is None else (solver.ladder + 1, solver.ladder)
            seed = solver.seed * 1_000_003 + k
            run = tables.restart(
                cap,
                seed,
                stop,
                quota,
                abandon,
                fewer,
                ladder,
                solver.tail_cells,
                self.extend,
                solver.value_order == "quota",
                walk,
                None if self.keeper is None else partial(self.paused, k),
                self.bound if share_best else np.full(1, fewer, np.int64),
                solver.generated_dive,
            )
            shallow = run.deepest < abandon[1] and k > 0  # abandoned: not worth a beam
            # a walk an interrupt stopped and a checkpoint continues: its beam comes at its real end
            kept = run.walk is not None and self.keeper is not None and interrupt.requested()
            if solver.finish_width and run.deepest < tables.cells_count and not shallow and not kept:
                finished = tables.finish(run.deep_board, solver.finish_width, solver.seed)
                if finished is not None and finished[1] < run.unmatched:
                    run.board, run.unmatched = finished
                if finished is not None and solver.ladder is not None and finished[1] <= solver.ladder:
                    run.kept = np.concatenate([run.kept, finished[0][None]])
                    run.kept_by = [*run.kept_by, "beam"]
            with self.lock:
                if run.walk is not None:  # stopped mid-walk: a checkpoint continues it from there
                    self.running[k] = (fewer, run.walk)
                    self.stopped.append((k, run))
                    continue
                del self.running[k]
                self.record(run, k)
                if (run.exhausted and not quota) or run.unmatched == 0:
                    self.done = True  # the whole tree walked, no quota cut (or a perfect board)
            self.keep()

    def construction(
        self, puzzle: ConstructivePuzzle, quota: list[int], probed: bool, timed_out: bool
    ) -> BreaksConstruction:
        """The best board as the run's result, with its profile and a one-line note."""
        tables, board = self.tables, self.best
        if board is None:  # no restart ran long enough to place a piece: complete the empty board
            board = tables.board0.copy()
            *_, pat_orients, pat_start = tables.lists
            self.score = _complete(
                board,
                tables.colours,
                tables.piece_of,
                tables.order,
                tables.neighbours,
                tables.cell_kinds,
                pat_orients,
                pat_start,
            )
        reason = "finished" if self.done else ("seconds" if timed_out else "max_nodes")
        layout = puzzle.layout(board // tables.turns, board % tables.turns)
        peak = int(np.argmax(self.hist)) if self.hist.any() else 0
        drawn = len({c for round_, c, _ in self.probes if round_ == 0})  # triples probed: batches of 48
        how = f" (chosen of {drawn} by probes)" if quota else f" (none of {drawn} probed passed)"
        note = (
            f"breaks: {self.next} restarts, {self.nodes:,} nodes, deepest {self.deepest} of "
            f"{tables.cells_count}, nodes peak at depth {peak}; colour quota {quota or 'none'}"
            f"{how if probed else ''}; "
            f"best {self.score} unmatched joins"
        )
        if self.solver.ladder is not None:
            counts = sorted(Counter(self.boards.values()).items())
            note += "; ladder (unmatched joins: distinct complete boards): " + (
                ", ".join(f"{u}: {c}" for u, c in counts) or f"none of {self.solver.ladder} or fewer"
            )
        return BreaksConstruction(
            layout,
            self.nodes,
            reason,
            None,
            note,
            unmatched=int(self.score),
            depth_nodes=self.hist,
            break_nodes=self.break_hist,
            deepest=self.deepest,
            restarts=self.next,
            quota=tuple(quota),
            ladder_boards=dict(self.boards),
            ladder_parts=dict(self.parts),
            ladder_prefixes=dict(self.prefixes),
            outcomes=tuple(self.outcomes),
            history=tuple(self.history),
        )
