"""One metaheuristic run: a puzzle, an optimiser, a budget and a seed -> a run record."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numba
import pandas as pd
from omegaconf import DictConfig, OmegaConf
from tqdm import tqdm

from experiments.build import build, make_budget
from experiments.records import flatten, write_figure, write_record
from core import Puzzle, Result
from heuristics.minimize import minimize

TRACE_COLUMNS = ["evaluations", "seconds", "best"]


def first_reach(trace: pd.DataFrame, target: float | None) -> tuple[float | None, float | None]:
    """Evaluations and seconds at which best first got to <= target (None if never)."""
    if target is None:
        return None, None
    hit = trace[trace["best"] <= target]
    if hit.empty:
        return None, None
    return float(hit["evaluations"].iloc[0]), float(hit["seconds"].iloc[0])


def run_row(cfg: DictConfig, puzzle: Puzzle, optimizer, result: Result, trace: pd.DataFrame) -> dict[str, Any]:
    """The run's one row: what was run (every parameter a column) and what it found."""
    optimum = puzzle.known_optimum
    evals_to, secs_to = first_reach(trace, optimum)
    opt_params = OmegaConf.to_container(cfg.optimizer, resolve=True)
    row = {"status": "ok", "error": None, "puzzle": puzzle.name, **flatten("puzzle", puzzle.params()),
           "optimizer": optimizer.name, **flatten("optimizer", opt_params), "seed": int(cfg.seed),
           **flatten("budget", OmegaConf.to_container(cfg.budget, resolve=True)),
           "best": result.best, "known_optimum": optimum,
           "success": None if optimum is None else bool(result.best <= optimum),
           "evaluations": result.evaluations, "seconds": result.seconds,
           "evals_to_optimum": evals_to, "seconds_to_optimum": secs_to,
           "stop_reason": result.stop_reason, "threads": numba.get_num_threads(),
           "best_genome": " ".join(map(str, result.best_genome))}
    row.update({f"score.{k}": v for k, v in puzzle.score(result.best_genome).items()})
    return row


def run(cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
    """Optimise, then write the record and a picture of the best layout."""
    puzzle = build(cfg.puzzle, "puzzle")
    optimizer = build(cfg.optimizer, "optimizer")
    budget = make_budget(cfg.budget, puzzle.known_optimum)
    puzzle.fitness(puzzle.space.identity())  # compile (or load numba's cache) outside the clock
    with tqdm(total=budget.evaluations, disable=not cfg.progress, unit="eval", leave=False,
              desc=f"{optimizer.name} seed {cfg.seed}") as bar:
        result = minimize(puzzle.fitness, puzzle.space, optimizer, budget, int(cfg.seed),
                          on_progress=lambda obj: bar.update(obj.evaluations - bar.n))
    trace = pd.DataFrame(result.trace, columns=TRACE_COLUMNS)
    row = run_row(cfg, puzzle, optimizer, result, trace)
    write_figure(puzzle.draw(puzzle.decode(result.best_genome)), run_dir / "best.png")
    write_record(run_dir, row, trace)
    if cfg.progress and hasattr(puzzle, "text"):
        print(puzzle.text(puzzle.decode(result.best_genome)))
    return row


def summary_line(row: dict[str, Any], run_dir: Path) -> str:
    """One line for the console: what ran, what it found, what it cost, where it is."""
    optimum = row.get("known_optimum")
    best = f"best {row['best']:g}" + (f" (known optimum {optimum:g})" if optimum is not None else "")
    return (f"{row['puzzle']} {row.get('puzzle.orientations', '')} | {row['optimizer']} | "
            f"seed {row['seed']}: {best} after {row['evaluations']:,} evaluations, "
            f"{row['seconds']:.2f} s ({row['stop_reason']}) -> {run_dir}")
