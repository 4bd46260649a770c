"""Task `optimise`: a puzzle, an optimiser, a budget and a seed -> a run record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numba
import pandas as pd
from omegaconf import DictConfig
from tqdm import tqdm

from core import LocalSearchFace, Puzzle, Result
from experiments.build import build, component_name, config_columns, make_budget
from experiments.records import TRACE_COLUMNS, RunRecord, write_picture, write_record
from heuristics.edge_greedy import Greedy
from heuristics.local_search import warm_up
from heuristics.minimize import minimize


def first_reach(trace: pd.DataFrame, target: float | None) -> tuple[float | None, float | None]:
    """Evaluations and seconds at which best first got to <= target (None if never)."""
    if target is None:
        return None, None
    hit = trace[trace["best"] <= target]
    if hit.empty:
        return None, None
    return float(hit["evaluations"].iloc[0]), float(hit["seconds"].iloc[0])


def run_record(cfg: DictConfig, puzzle: Puzzle, optimizer, result: Result, trace: pd.DataFrame) -> RunRecord:
    """The run's one row: what was run (every config parameter a column) and what it found."""
    optimum = puzzle.known_optimum
    evals_to, secs_to = first_reach(trace, optimum)
    return RunRecord(
        task="optimise",
        seed=int(cfg.seed),
        puzzle=component_name(cfg, "puzzle", puzzle),
        optimizer=component_name(cfg, "optimizer", optimizer),
        config=config_columns(cfg),
        best=result.best,
        known_optimum=optimum,
        success=None if optimum is None else bool(result.best <= optimum),
        evaluations=result.evaluations,
        evaluation_kind=getattr(optimizer, "evaluation_kind", "fitness"),
        seconds=result.seconds,
        evals_to_optimum=evals_to,
        seconds_to_optimum=secs_to,
        stop_reason=result.stop_reason,
        threads=numba.get_num_threads(),
        best_genome=" ".join(map(str, result.best_genome)),
        score_name=puzzle.score_name,
        instance_keys=" ".join(f"puzzle.{k}" for k in puzzle.instance_keys),
        scores=puzzle.score(result.best_genome),
    )


def local_search_face(puzzle: Any, optimizer) -> LocalSearchFace | None:
    """The puzzle's local-search face, its kernel compiled, when the optimiser counts priced moves.

    The face's greedy start (`optimizer.start=greedy`) is the project's corrected greedy, handed in
    here because puzzles never import solvers.
    """
    if getattr(optimizer, "evaluation_kind", "fitness") != "priced move" or not hasattr(
        puzzle, "local_search"
    ):
        return None
    face = puzzle.local_search(Greedy())
    if face is not None:
        warm_up(face, optimizer.kernel)
    return face


class Built:
    """A constructive solver (`solve(puzzle) -> layout`) run as an optimiser: its board is the run's
    one evaluation, so its record, trace and picture are a metaheuristic's."""

    def __init__(self, solver: Any, puzzle: Any):
        self.solver, self.puzzle, self.name = solver, puzzle, solver.name

    def run(self, objective, rng) -> None:
        """Build the board (the solver's own settings fix it; the run's seed is not used) and score it."""
        layout = self.solver.solve(self.puzzle)  # first: it refuses a puzzle it cannot solve
        objective(self.puzzle.encode(layout))


class Optimise:
    """Optimise, then write the record and a picture of the best layout."""

    def __call__(self, cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
        puzzle = build(cfg.puzzle, "puzzle")
        optimizer = build(cfg.optimizer, "optimizer")
        if hasattr(optimizer, "solve"):
            optimizer = Built(optimizer, puzzle)
        budget = make_budget(cfg.budget, puzzle.known_optimum)
        puzzle.fitness(puzzle.space.identity())  # compile (or load numba's cache) outside the clock
        with tqdm(
            total=budget.evaluations,
            disable=not cfg.progress,
            unit="eval",
            leave=False,
            desc=f"{optimizer.name} seed {cfg.seed}",
        ) as bar:
            result = minimize(
                puzzle.fitness,
                puzzle.space,
                optimizer,
                budget,
                int(cfg.seed),
                on_progress=lambda obj: bar.update(obj.evaluations - bar.n),
                face=local_search_face(puzzle, optimizer),
            )
        trace = pd.DataFrame(result.trace, columns=list(TRACE_COLUMNS))
        record = run_record(cfg, puzzle, optimizer, result, trace)
        write_picture(puzzle.draw(puzzle.decode(result.best_genome)), run_dir / "best.png")
        row = write_record(run_dir, record, trace)
        if cfg.progress and hasattr(puzzle, "text"):
            print(puzzle.text(puzzle.decode(result.best_genome)))
        return row


def summary_line(row: dict[str, Any], run_dir: Path) -> str:
    """One line for the console: what ran, what it found, what it cost, where it is."""
    optimum = row.get("known_optimum")
    best = f"best {row['best']:g}" + (f" (known optimum {optimum:g})" if optimum is not None else "")
    return (
        f"{row['puzzle']} | {row['optimizer']} | seed {row['seed']}: {best} after "
        f"{row['evaluations']:,} evaluations, {row['seconds']:.2f} s ({row['stop_reason']}) -> {run_dir}"
    )
