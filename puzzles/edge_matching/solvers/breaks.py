"""A backtracker with scheduled breaks for edge-matching boards with a grey frame (issue 33, item 1).

Why: the strongest public Eternity II boards (Verhaard 2008, Blackwood 2021: 470 of 480 joins) came
from depth-first search that must match every join early and may leave a few joins unmatched
("breaks") only late in the fill, a cumulative allowance that grows with the depth. A beam keeps the
boards that are cheapest so far; this search keeps the early board perfect, which leaves more of the
pieces that fit each other for the hard last rows.

What is in it (the project's own code, after the public descriptions in issue 33):

  * fill order (`ORDERS`): rows from the bottom up, each left to right, then the top `tail` rows as a
    block (the first `tail` columns row by row), vertical teeth (a column of `tail` cells at a time)
    and, for `staircase`, the last `tail` columns by anti-diagonals. Every cell's left and bottom
    neighbours come before it (or are off the board), so those two sides key its candidates;
  * candidate tables keyed by (cell kind, left colour, bottom colour): the exact fits first, then the
    fits with one break; never a break on a join along the rim (a frame colour); a join with a
    pre-placed piece above or to the right is checked per candidate; at most one break per cell;
  * a break schedule by depth: the depths at which the next break unlocks (default SCHEDULE,
    Verhaard's 12 and five more, for 256 cells, scaled by the board's cells; Blackwood's 10 left the
    search too shallow for 60 s); once the run holds a board of b unmatched joins, every walk looks
    only for boards of fewer breaks (Verhaard's solver hunted only better boards), the walks under way
    on other threads at once (they share the best as they go);
  * restarts: each reshuffles the candidate lists (the opening included) from its own seed and stops
    after `restart_nodes` placements; a partial board at the restart's deepest depth is completed
    greedily (every free cell, in order, takes the free piece matching most of its neighbours), so the
    best board is always complete and legal (anytime);
  * a colour quota (Blackwood's forward pruning): until depth 160 of 256 a branch is cut when the
    sides placed in three colours (a frame colour, two inner ones) fall below a ramp (QUOTA_RAMP), so
    they are spent early and the last rows meet fewer colours. The triple matters (most leave no
    branch past the first rows), so probe restarts choose it (`Breaks.choose_quota`), and a restart
    short of depth 160 of 256 after ABANDON_NODES placements stops (Verhaard's restarts). On the
    official set: the nodes' peak moves from depth 194 to 235, the one-core minute from 459 to 463;
  * threads run independent restarts (the kernel releases the GIL); work counts nodes (placements).
    Restart k's seed and node cap depend on k alone, so a node budget gives the same board on any
    number of threads;
  * a checkpoint (issue 58, in a run that keeps one: core.checkpoint `Stage`): every 30 s, at a walk's
    pause (every PAUSE_NODES placements) or a restart's end, and on a stop, the state goes to the run
    folder: the probes run so far or the quota they chose, the restarts done (their count, work,
    histograms, outcomes, best board and curve, the ladder's boards) and each restart under way with
    its walk where it paused. The same command continues it: under a node budget to the same board
    and counts as an unbroken run, under a time limit with the time left.

    breaks_tables.py  the fill orders, the schedule and quota ramp, a board's kernel tables (`Tables`)
    breaks_walk.py    the compiled restart (its walk)
    breaks_finish.py  the greedy and the exact completion of its partial boards
    breaks_restarts.py  the restarts under way, shared by the threads, and what a checkpoint keeps of them
    breaks.py         the solver (`Breaks`): its settings, the quota probes and the restarts on threads
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from core import checkpoint, interrupt, progress
from core.errors import InputError
from core.faces import ConstructivePuzzle
from puzzles.edge_matching.solvers.base import BoardBuilder, alarm
from puzzles.edge_matching.solvers.beam import warm_up as beam_warm_up
from puzzles.edge_matching.solvers.breaks_restarts import (  # the settings and reports callers import here
    EXTEND_DEPTH,
    OPEN_CELLS,
    PROBE_COLOURS,
    BreaksConstruction,
    RestartOutcome,
    _Restarts,
)
from puzzles.edge_matching.solvers.breaks_tables import ORDERS, RestartRun, Tables
from puzzles.edge_matching.solvers.breaks_walk import _walk

__all__ = ["EXTEND_DEPTH", "OPEN_CELLS", "BreaksConstruction", "RestartOutcome", "Breaks", "warm_up"]

# Placements per restart when restart_nodes is null: under a time limit RESTART_PER_SECOND per second of
# it, at least RESTART_NODES; without one RESTART_NODES (issue 46's). Under a time limit a restart lasts
# about a third of the run on a walk of 20 million placements a second (a 10-minute portfolio's 480 s of
# breaks: 3.2e9, minutes a restart, as the record family's: Blackwood 5e10 loop turns, libblackwood 5-15
# minutes). On the ladder (120 s, both threads) restarts of 8e8 completed 2,720 boards an hour at 463 or
# better against 1,870 at 4e8 and 1,780 at 1.2e8 (1e6 a second, tuned when the walk was 3.3x slower).
RESTART_NODES = 50_000_000
RESTART_PER_SECOND = 6_700_000
DEFAULT_MAX_NODES = 200_000_000  # the node budget when no time limit is given
FINISH_WIDTH = 1000  # the beam that completes each restart's deepest partial board
TAIL_CELLS = 12  # deepest partials with at most this many empty cells are completed exactly too
VALUE_ORDERS = ("shuffled", "quota")
ABANDON_NODES = 3_000_000  # a restart short of ABANDON_DEPTH of the cells after these placements stops
ABANDON_DEPTH = 160 / 256
QUOTA_CELLS = 100  # boards of fewer cells get no quota by default: their trees are walked whole
PROBE_ROUNDS = (1, 4)  # restarts per candidate in the first round, and for the PROBE_KEEP kept
PROBE_KEEP = 6
PROBE_NODES = 4_000_000  # placements per probe restart
PROBE_SHARE = 0.25  # the probes' share of a time limit, at most
PROBE_BATCHES = 5  # batches of PROBE_COLOURS triples drawn at most, while no probe reaches the abandon depth


def whole_numbers(name: str, value: object, minimum: int, meaning: str) -> list[int]:
    """`value` as a list of ints >= minimum, or a one-line InputError naming optimizer.`name`."""
    what = f"optimizer.{name} must be a list of {meaning} (whole numbers >= {minimum})"
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise InputError(f"{what}, got {value!r}")
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < minimum:
            raise InputError(f"{what}; {v!r} is not one")
    return [int(v) for v in value]


def _whole(name: str, value: object, minimum: int, optional: bool = False) -> None:
    """A one-line InputError unless optimizer.`name` is a whole number >= minimum (or null when optional)."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise InputError(
            f"optimizer.{name} must be a whole number >= {minimum}{' (or null)' if optional else ''}, got {value!r}"
        )


def check_quota(quota: object) -> list[int]:
    """The quota colours as a list of ints >= 1, or a one-line InputError."""
    return whole_numbers("quota", quota, 1, "colours")


def check_quota_colours(quota: Sequence[int], frame: Sequence[int], inner: Sequence[int]) -> None:
    """Refuse quota colours no piece carries: they would cut nothing, yet the run would report the
    quota as in force."""
    absent = sorted(set(quota) - set(frame) - set(inner))
    if absent:
        raise InputError(
            f"optimizer.quota: {'colour' if len(absent) == 1 else 'colours'} {', '.join(map(str, absent))} "
            f"{'is' if len(absent) == 1 else 'are'} "
            f"not on this board, whose colours are {_spans(frame) or 'none'} on the frame and "
            f"{_spans(inner) or 'none'} inside; give colours from these ([] for no quota, null to let probes choose)"
        )


def _spans(colours: Sequence[int]) -> str:
    """Colours as runs, "1-5, 7"."""
    runs: list[list[int]] = []
    for c in sorted(colours):
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in runs)


def check_schedule(schedule: object) -> list[int]:
    """The schedule as a sorted list of ints, or a one-line InputError."""
    return sorted(whole_numbers("schedule", schedule, 0, "depths at which a break unlocks"))


def warm_up() -> None:
    """Compile the kernels (or load numba's cache) on a 2 x 2 board, off the run's clock."""
    if _walk.signatures:
        return

    class Tiny:
        n = m = 2
        table = np.array([[[0, 0, 1, 1]], [[1, 0, 0, 1]], [[0, 1, 1, 0]], [[1, 1, 0, 0]]], np.int64)
        preplaced = np.zeros((0, 3), np.int64)

    Tables(Tiny(), "rows", None, []).restart(100, 0, np.zeros(1, np.int64))  # type: ignore[arg-type]


@dataclass(frozen=True)
class Breaks(BoardBuilder):
    """The scheduled-break backtracker as a constructive solver (see the module). Its settings are its
    fields, checked once (`__post_init__`); a seeded copy is one `replace`.

    Args:
        seed: seeds restart k with seed * 1_000_003 + k (its list shuffle).
        order: rows, teeth or staircase (see ORDERS).
        tail: the top rows filled as block and teeth (null: 5 of 16 rows, scaled).
        schedule: depths at which the next break unlocks (null: SCHEDULE, scaled to the board);
            [] allows none.
        restart_nodes: placements per restart (null: RESTART_PER_SECOND per second of a time limit,
            at least RESTART_NODES; RESTART_NODES without one: `restart_length`).
        finish_width: the width of the beam that completes each restart's deepest partial board (0:
            only the greedy completion); its placements are not counted as nodes.
        max_nodes: the run's placements; null: none under a time limit (the time is the budget), else
            DEFAULT_MAX_NODES.
        threads: restarts run at once.
        quota: colours whose sides must be placed early (QUOTA_RAMP, Blackwood's colour quota);
            null: on boards of QUOTA_CELLS or more, the triple (a frame colour, two inner ones) that
            takes probe restarts deepest (`choose_quota`); []: no quota.
        abandon_nodes, abandon_depth: a restart that has not reached abandon_depth (null: 160 of 256
            cells, scaled) after abandon_nodes placements stops (Verhaard's restarts).
        ladder: count every distinct complete board of at most this many unmatched joins (the
            `bench_eternity2 ladder` figures); restarts then keep looking at that level instead of
            only for boards better than the best so far. null: off.
        rim_breaks: may a join between two frame pieces (a frame colour) break too? By default
            only inner colours' joins do.
        parity: refuse a break that leaves more colours odd than the breaks still allowed can pair
            (breaks_walk `_odd_colours`): such a partial board has no completion within the schedule.
            Off by default: on the ladder the completions of such partial boards (more breaks than
            the schedule's) are most of the boards counted, and parity cuts them (bench_eternity2
            ladder --ablate parity=false).
        tail_cells: a restart's deepest partial boards with at most this many empty cells are
            completed exactly (the fewest unmatched joins, any number of breaks; breaks_walk
            `_finish`) as well as greedily; 0: greedily only.
        extend_depth, extend_nodes: under a time limit, each new deepest depth a restart reaches at
            or past extend_depth (null: 252 of 256 cells, scaled) gives it at least extend_nodes
            placements more (libblackwood extends a restart that keeps going deeper past 252; e.g.
            5e8). 0, the default: never; on the ladder (two 5-minute runs a side) extending by 5e8
            bought no board at 463 or better and cost restarts. Off under a node budget, whose
            restarts have fixed shares.
        value_order: each cell's candidates "shuffled" per restart, or "quota": the most quota-colour
            sides first, shuffled among ties (Blackwood's order; on the ladder, 180 s a side, fewer
            boards at every score: 53 an hour at 464 or better against 147).
        generated_dive: the walk's inner loop generated per board and quota (LLVM IR, compiled in
            about 2 s on Eternity II, then cached; breaks_llvm.py) for every restart but the probes:
            the same tree as numba's loop, 1.7x as fast on the official set (bench_breaks_llvm).
        probe_batches: batches of PROBE_COLOURS quota triples drawn at most while no probe restart
            reaches the abandon depth (on Eternity II seed 1's first batch held none: tests/puzzles/edge_matching/test_breaks.py).

    Its work counts placements (nodes).
    """

    seed: int = 0
    order: str = "staircase"
    tail: int | None = None
    schedule: Sequence[int] | None = None
    restart_nodes: int | None = None
    finish_width: int = FINISH_WIDTH
    max_nodes: int | None = None
    threads: int = 1
    quota: Sequence[int] | None = None
    abandon_nodes: int = ABANDON_NODES
    abandon_depth: int | None = None
    ladder: int | None = None
    rim_breaks: bool = False
    parity: bool = False
    tail_cells: int = TAIL_CELLS
    extend_depth: int | None = None
    extend_nodes: int = 0
    value_order: str = "shuffled"
    generated_dive: bool = False
    probe_batches: int = PROBE_BATCHES

    name = "breaks"  # class attributes, not fields (no annotation): what every solver declares
    work_unit = "node"
    rectangles = True
    default_seconds = 60.0  # the docs' figure: a median 463 on Eternity II in 60 s on one core

    def __post_init__(self) -> None:
        if self.order not in ORDERS:
            raise InputError(f"optimizer.order must be one of {', '.join(ORDERS)}, got {self.order!r}")
        if self.value_order not in VALUE_ORDERS:
            raise InputError(
                f"optimizer.value_order must be one of {', '.join(VALUE_ORDERS)}, got {self.value_order!r}"
            )
        _whole("tail", self.tail, 1, optional=True)
        for name in ("restart_nodes", "max_nodes", "threads"):
            _whole(name, getattr(self, name), 1, optional=name != "threads")
        for name in (
            "finish_width",
            "abandon_nodes",
            "abandon_depth",
            "ladder",
            "tail_cells",
            "extend_nodes",
        ):
            _whole(name, getattr(self, name), 0, optional=name in ("abandon_depth", "ladder"))
        _whole("probe_batches", self.probe_batches, 1)
        _whole("extend_depth", self.extend_depth, 1, optional=True)
        for name in ("rim_breaks", "parity"):
            if not isinstance(getattr(self, name), bool):
                raise InputError(f"optimizer.{name} must be true or false, got {getattr(self, name)!r}")
        if self.schedule is not None:  # kept as tuples: the settings are frozen
            object.__setattr__(self, "schedule", tuple(check_schedule(self.schedule)))
        if self.quota is not None:
            object.__setattr__(self, "quota", tuple(check_quota(self.quota)))

    def seeded(self, seed: int) -> Breaks:
        return replace(self, seed=seed)

    def restart_length(self, seconds: float | None) -> int:
        """Placements per restart: restart_nodes, or by default longer restarts for longer runs (a
        restart that ends at four seconds seldom finishes a board; two of a one-core minute leave too
        few draws)."""
        if self.restart_nodes is not None:
            return self.restart_nodes
        return RESTART_NODES if seconds is None else max(RESTART_NODES, int(RESTART_PER_SECOND * seconds))

    def warm_up(self, puzzle: ConstructivePuzzle) -> None:
        warm_up()

    def choose_quota(
        self,
        tables: Tables,
        stop: np.ndarray,
        abandon: tuple[int, int],
        budget: int | None,
        done: Mapping[tuple[int, int, int], RestartRun] | None = None,
        finished: Callable[[tuple[int, int, int], RestartRun], None] | None = None,
    ) -> tuple[list[int], list[RestartRun]]:
        """The quota colours that take short restarts deepest: PROBE_COLOURS triples drawn from the
        seed get PROBE_ROUNDS[0] restarts each (while none reaches the abandon depth, another batch,
        probe_batches in all), the best PROBE_KEEP of them PROBE_ROUNDS[1] more; each
        restart ends after PROBE_NODES placements (or at abandon). Ranked by the summed deepest depth
        (most colour triples leave no restart past a few rows: the ramp asks too much of them). No
        quota when the chosen triple took no probe restart to the abandon depth (boards whose colours
        all run along the frame, such as the seed's pseudo Eternity II). Every probe's seed and cap
        are fixed, so the choice does not depend on threads (under a time limit, unless it runs out).
        Under a node budget one batch's probes take at most a quarter of it.

        `done`: the probes a run this one continues had ended, by (round, candidate, repeat): not run
        again. `finished(job, run)` is told of every probe that ends (one an interrupt cut short is
        run again by a continued run: it is not told)."""
        restarts = PROBE_COLOURS * PROBE_ROUNDS[0] + PROBE_KEEP * PROBE_ROUNDS[1]  # one batch's
        cap = PROBE_NODES if budget is None else max(1, min(PROBE_NODES, budget // (4 * restarts)))
        abandon = (min(abandon[0], cap), abandon[1])
        rng = np.random.default_rng(self.seed)
        candidates: list[list[int]] = []
        runs: list[RestartRun] = []
        depth_sum: dict[int, int] = {}
        passed: dict[int, bool] = {}
        done = {} if done is None else done

        def probe(job: tuple[int, int, int], seed: int) -> RestartRun | None:
            if job in done:
                return done[job]
            if stop[0]:  # stopped: the probes left are not started (each costs its set-up)
                return None
            run = tables.restart(
                cap, seed, stop, candidates[job[1]], abandon, quota_first=self.value_order == "quota"
            )
            progress.report(run.nodes, None if run.board is None else run.unmatched, "node")  # the live line
            if finished is not None and (run.walk is None or not interrupt.requested()):
                finished(job, replace(run, walk=None))
            return run

        def measure(round_: int, alive: list[int], restarts: int) -> None:
            jobs = [(round_, c, r) for c in alive for r in range(restarts)]
            seeds = [self.seed * 1_000_003 - 1 - (round_ * 1_000 + r) * 1_000 - c for _, c, r in jobs]
            ended = list(pool.map(probe, jobs, seeds))
            runs.extend(run for run in ended if run is not None)
            for (_, c, _), run in zip(jobs, ended, strict=True):
                if run is not None:
                    depth_sum[c] += run.deepest
                    passed[c] |= run.deepest >= abandon[1]

        with ThreadPoolExecutor(max_workers=max(1, self.threads)) as pool:
            # a seed's draw may hold no triple that takes a probe to the abandon depth (so on Eternity
            # II with seed 1): another batch rather than a run without a quota
            for _ in range(self.probe_batches):
                batch = [len(candidates) + i for i in range(PROBE_COLOURS)]
                candidates += [tables.draw_quota(int(rng.integers(1 << 62))) for _ in batch]
                depth_sum.update(dict.fromkeys(batch, 0))
                passed.update(dict.fromkeys(batch, False))
                measure(0, batch, PROBE_ROUNDS[0])
                if any(passed.values()) or stop[0]:
                    break
            alive = sorted(depth_sum, key=lambda c: (-depth_sum[c], c))[:PROBE_KEEP]
            measure(1, alive, PROBE_ROUNDS[1])
            alive = sorted(alive, key=lambda c: (-depth_sum[c], c))[:1]
        return (candidates[alive[0]] if passed[alive[0]] else []), runs

    def construct(self, puzzle: ConstructivePuzzle, seconds: float | None = None) -> BreaksConstruction:
        """The best complete board of the restarts within `seconds` (or the node budget), checked. In a
        run that keeps a checkpoint (`checkpoint.current()`), its state is kept there and, when the run
        continues one, taken back: the probes or restarts go on where they were, in the time left."""
        started = time.perf_counter()
        puzzle = self._require(puzzle)
        schedule = None if self.schedule is None else list(self.schedule)
        tables = Tables(puzzle, self.order, self.tail, schedule, self.rim_breaks, self.parity)
        check_quota_colours(self.quota or [], tables.frame_colours, tables.inner_colours)
        if (
            seconds is not None
        ):  # compiling (or loading) the kernels, the finishing beam's too, is off the clock
            compiling = time.perf_counter()
            warm_up()
            if self.finish_width:
                beam_warm_up()
            started += time.perf_counter() - compiling
        stage = checkpoint.current()
        key = f"{self.name} seed {self.seed}"  # concurrent builders: each backtracker its own seed
        saved: dict[str, Any] | None = None if stage is None else stage.restored(key)
        if saved is not None:
            started -= saved["seconds"]  # the time it had spent: a time limit gets the time left
        depth = self.abandon_depth
        abandon = (self.abandon_nodes, round(ABANDON_DEPTH * tables.cells_count) if depth is None else depth)
        budget = self.max_nodes or (DEFAULT_MAX_NODES if seconds is None else None)
        each = self.restart_length(seconds) if saved is None else int(saved["each"])
        runs = _Restarts(self, tables, abandon, budget, started, each)
        runs.keeper = None if stage is None else (stage, key)
        with alarm(None if seconds is None else seconds - (time.perf_counter() - started)) as stop:
            quota: list[int] = list(self.quota or [])
            if saved is not None and saved["phase"] == "restarts":
                quota, runs.probed_quota = list(saved["quota"]), saved["probed"]
                runs.restore(saved["restarts"])
                if runs.best is not None:  # the live line shows the best it continues from
                    progress.report(0, runs.score, "node")
            elif self.quota is None and tables.cells_count >= QUOTA_CELLS:
                runs.phase = "probes"
                runs.probes = {} if saved is None else dict(saved["probes"])
                spent = 0.0 if saved is None else saved["seconds"]  # all of it in the probes
                share = None if seconds is None else PROBE_SHARE * seconds - spent
                with alarm(share) as probe_stop:
                    quota, probes = self.choose_quota(
                        tables, probe_stop, abandon, budget, dict(runs.probes), runs.probe_ended
                    )
                for index, run in enumerate(probes):  # probes first: their k are below every restart's
                    runs.record(run, index - len(probes))
                runs.probed, runs.probed_quota = runs.nodes, bool(probes)
                if not interrupt.requested():  # else a continued run runs the probes cut short again
                    runs.phase = "restarts"
            runs.quota = quota
            threads = max(1, self.threads)
            # A restart looks only for boards better than the run's best so far, as its walk goes (the
            # walks share it: breaks_walk `_shared_cap`), unless threads racing under a node budget
            # would make that best, and so the board, depend on their timing.
            share_best = seconds is not None or threads == 1
            if threads == 1:
                runs.worker(stop, quota, share_best)
            else:
                with ThreadPoolExecutor(max_workers=threads) as pool:
                    for future in [pool.submit(runs.worker, stop, quota, share_best) for _ in range(threads)]:
                        future.result()
            timed_out = stop[0] != 0
        runs.stopped_at_last(interrupted=interrupt.requested())
        return runs.construction(puzzle, quota, runs.probed_quota, timed_out)
