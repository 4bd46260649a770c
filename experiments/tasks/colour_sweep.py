"""Task `colour_sweep`: one (board size, solver, instance seed) over many colour counts -> one table.

For each colour count the puzzle config is built with that count, then solved by the configured
optimizer through one call, `solve(puzzle) -> layout`: a constructive solver (`optimizer=greedy`,
`greedy_faithful`, `backtrack`) builds its board directly; a metaheuristic, wrapped in
`UnderBudget`, runs under the budget with the unmatched inner edges as fitness. Writes
`colour_sweep.parquet` (+ CSV: one row per colour count, see experiments/colour_sweep.py), pictures
of the boards at `task.pictures`, and a one-row run record.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pandas as pd
from omegaconf import DictConfig, OmegaConf
from tqdm import tqdm

from core import ConstructiveSolver, InputError, Optimizer
from experiments.build import build, component_name, config_columns, make_budget
from experiments.colour_sweep import TABLE, point, seed_colours
from experiments.records import RunRecord, write_figure, write_record, write_table
from heuristics.minimize import minimize
from puzzles.edge_matching import EdgeMatching, Layout

FINISHED = {"evaluations": None, "stop_reason": "finished"}  # a constructive solver's cost: no budget


class UnderBudget:
    """A metaheuristic in the constructive shape: `solve(puzzle)` runs it under the run's budget and
    decodes its best genome; `cost` says what the last solve spent."""

    def __init__(self, optimizer: Optimizer, budget: DictConfig, seed: int):
        self.optimizer, self.budget, self.seed = optimizer, budget, seed
        self.name, self.cost = optimizer.name, FINISHED

    def solve(self, puzzle: EdgeMatching) -> Layout:
        """The best board the metaheuristic finds within the budget (stopping at a known optimum)."""
        budget = make_budget(self.budget, puzzle.known_optimum)
        result = minimize(puzzle.fitness, puzzle.space, self.optimizer, budget, self.seed)
        self.cost = {"evaluations": result.evaluations, "stop_reason": result.stop_reason}
        return puzzle.decode(result.best_genome)

    def warm_up(self, puzzle: EdgeMatching) -> None:
        """Compile the fitness (or load numba's cache): one evaluation, where a solve is a whole run."""
        puzzle.fitness(puzzle.space.identity())


def warm_up(solver: ConstructiveSolver, puzzle: EdgeMatching) -> None:
    """Compile (or load numba's cache) before any clock starts, so the first colour count pays no extra."""
    getattr(solver, "warm_up", solver.solve)(puzzle)


class ColourSweep:
    """Solve every colour count, then write the table, the pictures and the run record.

    Args:
        colours: the colour counts to solve; None: the seed's 2 .. 2n(n-1).
        points: constructive solvers: this many log-spaced counts instead of all (None: all).
        optimiser_points: metaheuristics, whose every point is a full run under the budget: this
            many log-spaced counts.
        pictures: colour counts whose board is drawn.
    """

    def __init__(self, colours: list[int] | None = None, points: int | None = None,
                 optimiser_points: int = 16, pictures: list[int] = ()):
        for key, value in (("points", points), ("optimiser_points", optimiser_points)):
            if value is not None and value < 2:
                raise InputError(f"task.{key} must be at least 2 (log-spaced colour counts), got {value}")
        self.colours, self.points, self.optimiser_points = colours, points, optimiser_points
        self.pictures = list(pictures)

    def counts(self, base: dict[str, Any], budgeted: bool) -> list[int]:
        """The colour counts to solve: a piece file's own, the given list, or the seed's range."""
        if base.get("generator") == "file":
            return [base["colours"]]
        if self.colours is not None:
            return list(self.colours)
        return seed_colours(int(base["n"]), self.optimiser_points if budgeted else self.points)

    def __call__(self, cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
        optimizer = build(cfg.optimizer, "optimizer")
        budgeted = not hasattr(optimizer, "solve")  # a metaheuristic: each point is a run under the budget
        solver = UnderBudget(optimizer, cfg.budget, int(cfg.seed)) if budgeted else optimizer
        base = OmegaConf.to_container(cfg.puzzle, resolve=True)
        counts = self.counts(base, budgeted)
        warm_up(solver, build(OmegaConf.create({**base, "colours": counts[0]}), "puzzle"))
        rows, start, name = [], time.perf_counter(), component_name(cfg, "optimizer", solver)
        for colours in tqdm(counts, disable=not cfg.progress, desc=f"{name} n={base['n']}", leave=False):
            puzzle = build(OmegaConf.create({**base, "colours": colours}), "puzzle")
            clock = time.perf_counter()
            layout = solver.solve(puzzle)
            cost = getattr(solver, "cost", FINISHED)
            rows.append({**point(puzzle, layout, name, time.perf_counter() - clock), **cost})
            if colours in self.pictures:
                write_figure(puzzle.draw(layout), run_dir / f"board_colours={colours}.png")
        table = pd.DataFrame(rows)
        write_table(table, run_dir / TABLE)
        config = {k: v for k, v in config_columns(cfg).items() if k != "puzzle.colours"}  # the sweep's axis
        return write_record(run_dir, RunRecord(
            task="colour_sweep", seed=int(cfg.seed), puzzle=component_name(cfg, "puzzle", puzzle),
            optimizer=name, config=config, seconds=time.perf_counter() - start,
            extra={"points": len(table), "mean_match_rate": float(table["match_rate"].mean()),
                   "mean_edge_score": float(table["edge_score"].mean())}))
