"""Task `colour_sweep`: one (board size, solver, instance seed) over many colour counts -> one table.

For each colour count the puzzle config is built with that count, then solved by the configured
optimizer through one call, `solve(puzzle) -> layout`: a constructive solver (`optimizer=greedy`,
`greedy_faithful`, `backtrack`) builds its board directly; a metaheuristic, wrapped in
`UnderBudget`, runs under the budget with the unmatched inner edges as fitness. Writes
`colour_sweep.parquet` (+ CSV: one row per colour count, columns COLUMNS of table.py), pictures of the boards
at `task.pictures`, and a one-row run record; `python -m experiments.report` (run at the end of the
sweep) calls `ColourSweep.report_section`, which joins the points of every run into one table, its
summary and the seed's plot (report.py and plot.py beside this file).

Differences from the article, on purpose: instances come from a numpy Generator seeded by the
instance seed (the seed drew palettes and the shuffle from Python's `random`, unseeded), so they
are the same in distribution, not the same boards; the article ran one instance per colour count,
this sweeps several and draws their range as a band; it plotted int(percent) against the list
index (colours - 2), this plots the exact rate against the colour count.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, cast

import pandas as pd
from omegaconf import DictConfig, OmegaConf

from core import interrupt
from core.errors import InputError, whole
from core.faces import Face
from experiments.build import build, component_name, config_columns, settings
from experiments.live import compiling, steps
from experiments.pairing import UnderBudget, as_builder, check_pair, needs
from experiments.records import RunRecord, write_picture, write_record, write_table
from experiments.schema import CONFIG_DIR, component
from experiments.tasks import Section, Task
from studies.colour_sweep.table import TABLE, TIMING

# a constructive solver's cost: no budget
FINISHED: dict[str, int | str | None] = {"evaluations": None, "stop_reason": "finished"}


def solver_kind(optimizer) -> str:
    """The solver's kind, which picks its colour counts and budget: constructive (builds a board),
    compiled (counts priced moves on the local-search face) or metaheuristic (the fitness face)."""
    return {
        Face.BOARD: "constructive",
        Face.LOCAL_SEARCH: "compiled",
        Face.WINDOWS: "compiled",
        Face.FITNESS: "metaheuristic",
    }[needs(optimizer)]


def sweep_of(base: dict[str, Any]) -> Any:
    """The puzzle class the config names, which knows its colour counts (`sweep_colours`,
    `colour_limits`) and its table rows (`sweep_point`): the family's side of the sweep."""
    return component(base["_target_"], CONFIG_DIR) if "_target_" in base else None


def check_puzzle(cfg: DictConfig, base: dict[str, Any]) -> None:
    """The sweep varies a generated edge-matching board's colour count: the puzzle must take n and
    colours, and say which counts a board takes."""
    if "n" not in base or "colours" not in base or not hasattr(sweep_of(base), "sweep_colours"):
        chosen = OmegaConf.select(cfg, "choices.puzzle") or base.get("_target_", "?")
        raise InputError(
            f"task=colour_sweep sweeps the colour count of an edge-matching board, which puzzle={chosen} "
            "has not; use puzzle=edge_matching or puzzle=eternity (e.g. puzzle=edge_matching puzzle.n=5)"
        )


class ColourSweep(Task):
    """Solve every colour count, then write the table, the pictures and the run record.

    Args:
        colours: the colour counts to solve; None: the seed's 2 .. 2n(n-1).
        points: constructive solvers: this many log-spaced counts instead of all (None: all).
        optimizer_points: metaheuristics, whose every point is a full run under the budget: this
            many log-spaced counts.
        compiled_points: the same for compiled optimisers (they count priced moves and stop once a
            board is solved, so they can afford every count: None).
        compiled_evaluations: a compiled optimiser's evaluation budget per board, in priced moves
            (about 100 of them cost one fitness call of the Python optimisers; None: budget.evaluations).
        pictures: colour counts whose board is drawn.
    """

    @classmethod
    def report_section(cls, roots, out, study, runs, skipped) -> Section | None:
        """The sweep's points as one table, its summary, comparisons, plot and report.md's section."""
        from studies.colour_sweep.report import section

        return section(roots, out, study, runs, skipped)

    def __init__(
        self,
        colours: list[int] | None = None,
        points: int | None = None,
        optimizer_points: int = 16,
        compiled_points: int | None = None,
        compiled_evaluations: int | None = None,
        pictures: tuple[int, ...] = (),
    ):
        for key, value in (
            ("points", points),
            ("optimizer_points", optimizer_points),
            ("compiled_points", compiled_points),
        ):
            if value is not None and not (whole(value) and value >= 2):
                raise InputError(
                    f"task.{key} must be a whole number of at least 2 (log-spaced colour counts), got {value!r}"
                )
        if compiled_evaluations is not None and not (
            whole(compiled_evaluations) and compiled_evaluations >= 1
        ):
            raise InputError(
                "task.compiled_evaluations must be a whole number of at least 1 (priced moves per board), "
                f"got {compiled_evaluations!r}; or null for budget.evaluations"
            )
        if colours is not None and not isinstance(colours, (list, tuple)):
            raise InputError(
                f"task.colours must be a list of colour counts, e.g. task.colours=[2,4,8], got {colours!r}"
            )
        if colours is not None and not colours:
            raise InputError(
                "task.colours is empty; list the colour counts to solve, e.g. task.colours=[2,4,8], "
                "or task.colours=null for the seed's 2 .. 2n(n-1)"
            )
        self.colours, self.points = colours, points
        self.optimizer_points, self.compiled_points = optimizer_points, compiled_points
        self.compiled_evaluations = compiled_evaluations
        self.pictures = list(pictures)

    def counts(self, base: dict[str, Any], kind: str) -> list[int]:
        """The colour counts to solve: a piece file's own, the given list, or the seed's range.

        kind: "constructive", "metaheuristic" or "compiled" (which of the task's point counts applies).
        """
        if base.get("generator") == "file":
            return [base["colours"]]
        n, sweep = int(base["n"]), sweep_of(base)
        if n < 2:
            smallest = (
                "puzzle.n >= 3 (odd: puzzle.fix_centre=true)" if base.get("fix_centre") else "puzzle.n >= 2"
            )
            raise InputError(
                f"puzzle.n={n} leaves no inner edge to colour; the colour sweep needs {smallest}"
            )
        edges, most = sweep.colour_limits(n)
        if self.colours is not None:
            for c in self.colours:
                if not whole(c):
                    raise InputError(
                        f"task.colours: {c!r} is not a colour count; list whole numbers from 1 to {most}"
                    )
                if not 1 <= c <= most:
                    raise InputError(
                        f"task.colours: {c} colours cannot be dealt on a {n} x {n} board's "
                        f"{edges} inner edges; list counts from 1 to {most}"
                    )
            return list(self.colours)
        points = {"constructive": self.points, "metaheuristic": self.optimizer_points}
        return list(sweep.sweep_colours(n, points.get(kind, self.compiled_points)))

    def budget(self, cfg: DictConfig, kind: str) -> DictConfig:
        """The run's budget node; a compiled optimiser's evaluations are task.compiled_evaluations if set."""
        if kind != "compiled" or self.compiled_evaluations is None:
            return cfg.budget
        return cast(DictConfig, OmegaConf.merge(cfg.budget, {"evaluations": self.compiled_evaluations}))

    def __call__(self, cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
        optimizer = build(cfg.optimizer, "optimizer")
        kind = solver_kind(optimizer)
        budget = self.budget(cfg, kind)
        solver = as_builder(optimizer, budget, int(cfg.seed))
        base = settings(cfg.puzzle, "puzzle")
        check_puzzle(cfg, base)
        counts = self.counts(base, kind)
        first = build(OmegaConf.create({**base, "colours": counts[0]}), "puzzle")
        check_pair(
            optimizer,
            first,
            component_name(cfg, "optimizer", optimizer),
            component_name(cfg, "puzzle", first),
        )
        with compiling(cfg.progress):
            solver.warm_up(first)  # compile (or load numba's cache) before any clock starts
        rows, name = [], component_name(cfg, "optimizer", solver)
        start, cpu_start = time.perf_counter(), time.process_time()
        for colours in steps(counts, f"{name} n={base['n']}", cfg.progress, unit="board"):
            if interrupt.requested():  # Ctrl-C: the colour counts solved so far are the record
                break
            puzzle = build(OmegaConf.create({**base, "colours": colours}), "puzzle")
            clock, cpu_clock = time.perf_counter(), time.process_time()
            layout = solver.solve(puzzle)
            seconds, cpu_seconds = time.perf_counter() - clock, time.process_time() - cpu_clock
            cost = solver.cost if isinstance(solver, UnderBudget) else FINISHED
            rows.append({**puzzle.sweep_point(layout, name, seconds, cpu_seconds), **cost})
            if colours in self.pictures:
                write_picture(puzzle.draw(layout), run_dir / f"board_colours={colours}.png")
        table = pd.DataFrame(rows)
        write_table(table, run_dir / TABLE, timing=TIMING)
        config = {k: v for k, v in config_columns(cfg).items() if k != "puzzle.colours"}  # the sweep's axis
        config["budget.evaluations"] = budget.evaluations
        return write_record(
            run_dir,
            RunRecord(
                task="colour_sweep",
                seed=int(cfg.seed),
                puzzle=component_name(cfg, "puzzle", puzzle),
                optimizer=name,
                config=config,
                seconds=time.perf_counter() - start,
                cpu_seconds=time.process_time() - cpu_start,
                extra={
                    "points": len(table),
                    "mean_match_rate": float(table["match_rate"].mean()) if rows else None,
                    "mean_edge_score": float(table["edge_score"].mean()) if rows else None,
                    **({"stop_reason": "interrupted"} if interrupt.requested() else {}),
                },
            ),
        )
