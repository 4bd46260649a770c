"""The family's search pipelines: a board built by its own solvers, then compiled chains that refine it.

    beam_refine   a beam builds the board, window-LNS chains (heuristics.compiled.WindowLNS) refine it
    plateau_lns   destroy-and-repair that walks plateaus, on the face's `plateau` kernel (plateau.py)
    portfolio     the break backtracker and the beam build the start at once, then plateau_lns walks

Why here, not in heuristics/: each builds its start from the family's solvers (a `Beam`, a
`BestOfConcurrent` of `Breaks` and a `Beam`) and hands it to the generic chain engine as a solver object (`Chains.start`),
settings and all. Each default lives once: the beams a pipeline builds (`PIPELINE_BEAM`: sized for 10
minutes on two cores, about 7 GB on the official set) and the backtracker's own (`Breaks()`).

plateau_lns: why: the window refinement (window_lns, beam_refine) keeps only re-fills at least as good as
the board, and strong boards are local optima of every such neighbourhood. This one accepts equal and
slightly worse boards, goes back to the best after a while, and adapts which operator frees cells. It
records each operator's share of the accepted and improving steps in `operator_stats` and prints it at
the end of a run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields, replace
from typing import Any, ClassVar

import numpy as np

from core.errors import InputError
from core.faces import ConstructivePuzzle, Face
from core.objective import Objective
from heuristics.chains import Chain, face_of, run_chains, start_chains
from heuristics.compiled import CHUNK, Chains, WindowLNS
from puzzles.edge_matching.kernel_rows import PLATEAU_COUNTS
from puzzles.edge_matching.kernel_rows import PLATEAU_OPERATORS as OPERATORS
from puzzles.edge_matching.kernel_rows import PLATEAU_STATS as STATS
from puzzles.edge_matching.solvers import breaks_and_beam
from puzzles.edge_matching.solvers.beam import Beam
from puzzles.edge_matching.solvers.breaks import Breaks, BreaksConstruction
from puzzles.edge_matching.solvers.concurrent import BySize

PIPELINE_BEAM = Beam(width=200_000, max_width=20_000_000)  # the beam a pipeline starts from, by default
BREAKS_OWN = ("seed", "threads")  # the Breaks settings a portfolio sets itself: the run's seed, its threads
MOVED = {  # portfolio settings that were its own before issue 57 -> where they are now
    "restart_nodes": "breaks.restart_nodes",
    "breaks_nodes": "breaks.max_nodes",
    "schedule": "breaks.schedule",
    "finish_width": "breaks.finish_width",
    "quota": "breaks.quota",
}
CHAIN_SECONDS = 60.0  # a portfolio's chains walk at most this long (Portfolio's chain_seconds)
BEAM_BELOW = 256  # portfolio runs the beam beside the backtracker on boards of fewer cells; on Eternity II's it does not win


def _share(name: str, value: float) -> None:
    if not 0 < value <= 1:
        raise InputError(f"optimizer.{name} must be in (0, 1], got {value}")


class BeamRefine(WindowLNS):
    """The pipeline: a beam builds the board (`width`, `max_width`, `order`: solvers/beam.py; its ties
    drawn from the run's seed), then `chains` window-LNS chains refine it, one per core, within the
    rest of the budget. Under a time budget the beam takes at most `beam_share` of it (the widest
    beams that fit, up to the configured width: solvers/beam.py `beam_within`); under an evaluation
    budget it is the configured beam. The defaults are sized for 10 minutes on two cores (a beam of
    200,000 widened to 20,000,000 on the official set: about 7 GB). The beam gets most of the time
    because on its boards widening pays more than refining (see the README's Eternity II section).
    Every setting counts work, not time, so a seed gives the same run anywhere under an evaluation
    budget.
    """

    name = "beam_refine"
    default_seconds: float | None = 600.0  # its defaults are sized for 10 minutes on two cores

    def __init__(
        self,
        width: int = PIPELINE_BEAM.width,
        max_width: int | None = PIPELINE_BEAM.max_width,
        order: str = PIPELINE_BEAM.order,
        beam_share: float = 0.8,
        size: int = 2,
        cap: int = 20_000,
        focus: float = 0.8,
        extra: int = 6,
        kick: float = 0.0,
        chunk: int = CHUNK,
        chains: int = 2,
        exchange: int = 8,
    ):
        _share("beam_share", beam_share)
        self.beam_share = beam_share
        super().__init__(size, cap, focus, extra, kick, chunk, chains, exchange)
        self.start = Beam(width, max_width=max_width, order=order)

    def start_seconds(self, objective: Objective) -> float | None:
        seconds = objective.budget.seconds
        return None if seconds is None else self.beam_share * seconds


class PlateauLNS(Chains):
    """Adaptive destroy-and-repair from a start board (`start`: beam, greedy, random or a board file).

    Each iteration an operator (from `operators`, drawn by adaptive weight) frees cells and a short
    anneal refills them (`moves` moves per freed cell, temperature `t_hi` down to `t_lo`), or the exact
    window re-fill (`cap` placements at most) or a twin swap changes the board; the result is accepted
    when no worse, else with probability exp(-change / `temperature`). After `patience` iterations
    without a new best the chain goes back to the best board (2000, not the public 60: an iteration
    here is a fraction of a millisecond, not 1.5 s of annealing, and from a 457 board of Eternity II
    500 to 20,000 all reached 458-459 within 1e8 evaluations in a first trial). A weight decays by `decay` a use toward
    the use's score (new best 10, better 4, equal 1, worse accepted 0.3). `region` caps the cells the
    grown, path and band operators free. The beam start (`width`, `max_width`, `order`, and
    `beam_share` of a time budget: half by default, where beam_refine gives it 0.8, because walking
    plateaus pays more than refining exactly) is beam_refine's. One evaluation is one priced move or placement.
    """

    name = "plateau_lns"
    kernel = "plateau"
    needs = Face.WINDOWS
    default_seconds: float | None = 120.0  # the beam start's share and a walk; no time limit builds 7 GB

    def __init__(
        self,
        operators: Sequence[str] = OPERATORS,
        moves: float = 100.0,
        t_hi: float = 1.0,
        t_lo: float = 0.15,
        temperature: float = 1.0,
        patience: int = 2000,
        decay: float = 0.9,
        region: int = 30,
        cap: int = 20_000,
        start: str = "beam",
        width: int = PIPELINE_BEAM.width,
        max_width: int | None = PIPELINE_BEAM.max_width,
        order: str = PIPELINE_BEAM.order,
        beam_share: float = 0.5,
        chunk: int = CHUNK,
        chains: int = 2,
        exchange: int = 8,
    ):
        unknown = [op for op in operators if op not in OPERATORS]
        if unknown or not operators:
            raise InputError(
                f"optimizer.operators must be a non-empty list of {', '.join(OPERATORS)}, got {list(operators)}"
            )
        for key, value in (("moves", moves), ("t_hi", t_hi), ("t_lo", t_lo), ("temperature", temperature)):
            if not value > 0:
                raise InputError(f"optimizer.{key} must be positive, got {value}")
        if t_lo > t_hi:
            raise InputError(f"optimizer.t_lo must be <= t_hi, got t_hi={t_hi}, t_lo={t_lo}")
        if patience < 1 or cap < 1 or region < 16:
            raise InputError(
                f"optimizer.patience and cap must be >= 1 and region >= 16, got {patience}, {cap}, {region}"
            )
        if not 0 <= decay < 1:
            raise InputError(f"optimizer.decay must be in [0, 1), got {decay}")
        _share("beam_share", beam_share)
        mask = sum(1 << OPERATORS.index(op) for op in set(operators))
        params = {
            "ops": mask,
            "moves": moves,
            "t_hi": t_hi,
            "t_lo": t_lo,
            "temperature": temperature,
            "patience": patience,
            "decay": decay,
            "region": region,
            "cap": cap,
        }
        super().__init__(params, chunk, chains, exchange, start)
        if start == "beam":  # the pipeline's own beam; any other name the face resolves
            self.start = Beam(width, max_width=max_width, order=order)
        self.beam_share = beam_share
        self.operator_stats: dict[str, dict[str, int]] = {}

    def start_seconds(self, objective: Objective) -> float | None:
        seconds = objective.budget.seconds
        return None if seconds is None else self.beam_share * seconds

    def run(self, objective: Objective, rng: np.random.Generator) -> None:
        face = face_of(objective, self.name)
        chains = start_chains(
            objective,
            face,
            rng,
            self.kernel,
            self.params,
            self.chains,
            self.start,
            self.start_seconds(objective),
        )
        try:
            run_chains(objective, chains, self.chunk, None, self.exchange)
        finally:
            self.operator_stats = operator_stats(chains)
            if used := format_stats(self.operator_stats):  # none, when a stop came before the first epoch
                print(f"plateau_lns operators (tried/equal/better/best): {used}")


class Portfolio(PlateauLNS):
    """Both cores, two phases, defaults for 10 minutes on two cores. First, within `breaks_share` of a
    time budget, on boards of fewer than `beam_below` cells, two builders at once (`solvers.breaks_and_beam`): the break
    backtracker (`threads` - 1 restarting at once, at least one) and, on a thread of its own unless
    `beam` is false, the beam alone (plateau_lns's beam: `width`, `max_width`, as wide as the time
    allows; at their full width without a time limit, so set them small for a quick node-budget run),
    whose thread then runs another backtracker, restarts of its own, for the time left
    (`BestOfConcurrent`'s spare); the best board wins. Then `chains` plateau_lns chains, one per core,
    walk from it, handing the best board to any chain doing worse every `exchange` epochs.

    `breaks`: the backtracker's settings, any of `Breaks`' but `seed` and `threads` (the run's seed and
    the portfolio's threads), as a mapping; null or {}: its own defaults (`Breaks`). E.g.
    `optimizer.breaks.max_nodes=400000` (a node budget: the same seed gives the same board on any
    machine), `optimizer.breaks.schedule=[200,210]`, `optimizer.breaks.probe_batches=1`. Why composed,
    not re-listed: one `Breaks` is built and checked by its own rules, the threads' variants are copies
    of it (`dataclasses.replace`), and every setting the backtracker gains is a portfolio's at once.

    Why 0.8: with the colour quota the backtracker made every best board of the 10-minute runs on
    Eternity II (464); the chains keep what it built and walk for the rest. Why the beam beside it: on
    generated boards of 10 x 10 to 12 x 12 the two are equal on average and each misses by a join where
    the other does not (benchmarks/bench_eternity2.py); on Eternity II the backtracker's board is 2-6
    joins better, and once the beam is done (240 s of 480 in ten minutes) its thread is the
    backtracker's too. So on boards of `beam_below` cells or more (Eternity II's 256) the backtracker
    takes every thread from the start: the 10-minute runs with it on both threads made 464, 464, 464
    where the backtracker beside the beam made 464, 463, 464.

    `chain_seconds`: the chains' time at most (null: no cap), the rest of a long budget the
    backtracker's. Why 60: on Eternity II, uncapped, the chains' improving steps never made a new best
    in a 10-minute or an hour's run (their operator tables: best 0), where in the one-core minute
    (12 s of chains) they made some; a cap leaves short runs as they were. Capped, a minute of chains
    still lifts a board now and then (an hour at the defaults: the last two new bests, 466).
    """

    name = "portfolio"
    default_seconds = 600.0  # its defaults are sized for 10 minutes on two cores
    # experiments/schema.py makes `breaks` a nested setting of Breaks' own (their defaults shown)
    composes: ClassVar[dict[str, tuple[type, tuple[str, ...]]]] = {"breaks": (Breaks, BREAKS_OWN)}
    moved: ClassVar[dict[str, str]] = MOVED  # overrides.py and build.py say where an old setting went

    def __init__(
        self,
        breaks_share: float = 0.8,
        threads: int = 2,
        breaks: Mapping[str, Any] | None = None,
        beam: bool = True,
        beam_below: int = BEAM_BELOW,
        width: int = PIPELINE_BEAM.width,
        max_width: int | None = PIPELINE_BEAM.max_width,
        operators: Sequence[str] = OPERATORS,
        moves: float = 100.0,
        temperature: float = 1.0,
        patience: int = 2000,
        chunk: int = CHUNK,
        chains: int = 2,
        exchange: int = 8,
        chain_seconds: float | None = CHAIN_SECONDS,
    ):
        _share("breaks_share", breaks_share)
        if chain_seconds is not None and (
            isinstance(chain_seconds, bool) or not isinstance(chain_seconds, int | float) or chain_seconds < 0
        ):
            raise InputError(f"optimizer.chain_seconds must be >= 0 (or null), got {chain_seconds!r}")
        self.chain_seconds = chain_seconds
        super().__init__(
            operators,
            moves,
            temperature=temperature,
            patience=patience,
            start="beam" if beam else "random",  # replaced below: both builders, or the backtracker alone
            width=width,
            max_width=max_width,
            beam_share=breaks_share,
            chunk=chunk,
            chains=chains,
            exchange=exchange,
        )
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise InputError(f"optimizer.threads must be a whole number >= 1, got {threads!r}")
        if isinstance(beam_below, bool) or not isinstance(beam_below, int) or beam_below < 0:
            raise InputError(f"optimizer.beam_below must be a whole number >= 0 (cells), got {beam_below!r}")
        backtracker = backtracker_of(breaks)
        alone = replace(backtracker, threads=threads)
        if isinstance(self.start, Beam):
            both = breaks_and_beam(replace(backtracker, threads=max(1, threads - 1)), self.start)
            self.start = BySize(both, alone, beam_below)
        else:
            self.start = alone

    def start_seconds(self, objective: Objective) -> float | None:
        """`breaks_share` of a time budget, or all but `chain_seconds` of a longer one."""
        share, seconds = super().start_seconds(objective), objective.budget.seconds
        if share is None or seconds is None or self.chain_seconds is None:
            return share
        return max(share, seconds - self.chain_seconds)


def _named_in_portfolio(err: InputError) -> InputError:
    """A backtracker's error, its settings named where a portfolio takes them: optimizer.breaks.<name>."""
    return InputError(str(err).replace("optimizer.", "optimizer.breaks."))


class ComposedBreaks(Breaks):
    """The portfolio's backtracker: errors found once the board is known (a quota colour not on it)
    name its settings under optimizer.breaks too; `replace` keeps the class."""

    def construct(self, puzzle: ConstructivePuzzle, seconds: float | None = None) -> BreaksConstruction:
        try:
            return super().construct(puzzle, seconds)
        except InputError as err:
            raise _named_in_portfolio(err) from None


def backtracker_of(breaks: Mapping[str, Any] | None) -> Breaks:
    """The portfolio's one `Breaks`, built from `optimizer.breaks` and checked by its own rules (its
    errors name the setting where a portfolio takes it: optimizer.breaks.<name>)."""
    if breaks is None:
        breaks = {}
    takes = [f.name for f in fields(Breaks) if f.name not in BREAKS_OWN]
    if not isinstance(breaks, Mapping):
        raise InputError(
            f"optimizer.breaks must be a mapping of the backtracker's settings, e.g. "
            f"{{schedule: [200, 210]}}, got {breaks!r}"
        )
    for key in breaks:
        if key in BREAKS_OWN:
            raise InputError(
                f"optimizer.breaks.{key} is the portfolio's own: "
                + ("set optimizer.threads" if key == "threads" else "the run's seed seeds it (seed=...)")
            )
        if key not in takes:
            raise InputError(f"optimizer.breaks has no setting {key!r}; it takes: {', '.join(takes)}")
    try:
        return ComposedBreaks(**breaks)
    except InputError as err:
        raise _named_in_portfolio(err) from None


def operator_stats(chains: Sequence[Chain]) -> dict[str, dict[str, int]]:
    """Per operator, summed over the chains: iterations tried, accepted equal, improved the current
    board, made a new best of its chain."""
    counts = np.sum(
        [
            chain.ctl[PLATEAU_COUNTS:][: len(STATS) * len(OPERATORS)].reshape(len(OPERATORS), -1)
            for chain in chains
        ],
        axis=0,
    )
    return {
        op: dict(zip(STATS, map(int, row), strict=True)) for op, row in zip(OPERATORS, counts, strict=True)
    }


def format_stats(stats: dict[str, dict[str, int]]) -> str:
    """One line: each operator used, as name tried/equal/better/best."""
    return ", ".join(
        f"{op} {'/'.join(str(row[s]) for s in STATS)}" for op, row in stats.items() if row["tried"]
    )
