"""Task `optimise`: a puzzle, an optimiser, a budget and a seed -> a run record."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numba
import pandas as pd
from omegaconf import DictConfig

from core import interrupt
from core.faces import Construction, Describing, FitnessPuzzle, Printable, WithRunFiles
from core.space import Result
from experiments.build import build, component_name, config_columns, make_budget
from experiments.live import LiveLine
from experiments.pairing import Built, as_optimizer, check_pair, evaluation_kind, local_search_face
from experiments.records import TRACE_COLUMNS, RunRecord, write_picture, write_record
from heuristics.minimize import minimize


def first_reach(trace: pd.DataFrame, target: float | None) -> tuple[float | None, float | None]:
    """Evaluations and seconds at which best first got to <= target (None if never)."""
    if target is None:
        return None, None
    hit = trace[trace["best"] <= target]
    if hit.empty:
        return None, None
    return float(hit["evaluations"].iloc[0]), float(hit["seconds"].iloc[0])


def rescored(puzzle: FitnessPuzzle, solver: Any, result: Result) -> float:
    """The puzzle's own score of the final board; a loud error when the optimiser's tally differs.

    Why: compiled kernels and constructive solvers keep running tallies of their own; the record
    must say what the board is worth, not what the solver believed.
    """
    score = float(puzzle.fitness(result.best_genome))
    if score != result.best:
        raise RuntimeError(
            f"optimizer={solver.name} reported best {result.best:g}, but its final board re-scores to "
            f"{score:g} on puzzle={puzzle.name}: a bug in the optimiser's tally"
        )
    return score


def stop_reason(built: Construction | None, result: Result) -> str:
    """Why the run ended: an interrupt (a constructive solver stopped by it reports only that it
    stopped), the constructive solver's own reason, or the budget's."""
    if interrupt.requested():
        return "interrupted"
    return built.stop_reason if built is not None and built.stop_reason != "finished" else result.stop_reason


def run_record(
    cfg: DictConfig,
    puzzle: FitnessPuzzle,
    solver,
    built: Construction | None,
    result: Result,
    trace: pd.DataFrame,
) -> RunRecord:
    """The run's one row: what was run (every config parameter a column) and what it found.

    `solver` is the configured optimiser, `built` its board when it is a constructive solver."""
    optimum = puzzle.known_optimum
    evals_to, secs_to = first_reach(trace, optimum)
    best = rescored(puzzle, solver, result)
    return RunRecord(
        task="optimise",
        seed=int(cfg.seed),
        puzzle=component_name(cfg, "puzzle", puzzle),
        optimizer=component_name(cfg, "optimizer", solver),
        config=config_columns(cfg),
        best=best,
        known_optimum=optimum,
        success=None if optimum is None else bool(best <= optimum),
        evaluations=result.evaluations,
        evaluation_kind=evaluation_kind(solver),
        work=None if built is None else built.work,
        work_unit=None if built is None else solver.work_unit,
        lower_bound=None if built is None else built.lower_bound,
        seconds=result.seconds,
        cpu_seconds=result.cpu_seconds,
        evals_to_optimum=evals_to,
        seconds_to_optimum=secs_to,
        stop_reason=stop_reason(built, result),
        threads=numba.get_num_threads(),
        best_genome=" ".join(map(str, result.best_genome)),
        score_name=puzzle.score_name,
        instance_keys=" ".join(f"puzzle.{k}" for k in puzzle.instance_keys),
        scores=puzzle.score(result.best_genome),
    )


class Optimise:
    """Optimise, then write the record and a picture of the best layout."""

    def __call__(self, cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
        puzzle = build(cfg.puzzle, "puzzle")
        chosen = build(cfg.optimizer, "optimizer")
        check_pair(
            chosen, puzzle, component_name(cfg, "optimizer", chosen), component_name(cfg, "puzzle", puzzle)
        )
        optimizer = as_optimizer(chosen, puzzle)
        budget = make_budget(cfg.budget, puzzle.known_optimum)
        puzzle.fitness(puzzle.space.identity())  # compile (or load numba's cache) outside the clock
        face = local_search_face(puzzle, chosen)
        describe = puzzle.describe if isinstance(puzzle, Describing) else (lambda value: f"{value:g}")
        with LiveLine(f"{optimizer.name} seed {cfg.seed}", budget, describe, cfg.progress) as line:
            result = minimize(
                puzzle.fitness, puzzle.space, optimizer, budget, int(cfg.seed), line.seen, face=face
            )
        trace = pd.DataFrame(result.trace, columns=list(TRACE_COLUMNS))
        built = optimizer.last if isinstance(optimizer, Built) else None
        if built is not None and built.note:
            print(built.note, file=sys.stderr)  # why a constructive solver stopped short, and what it kept
        record = run_record(cfg, puzzle, chosen, built, result, trace)
        layout = puzzle.decode(result.best_genome)
        write_picture(puzzle.draw(layout), run_dir / "best.png")
        if isinstance(puzzle, WithRunFiles):  # a puzzle's own files (its board as text)
            puzzle.write_run_files(run_dir, layout)
        row = write_record(run_dir, record, trace)
        if cfg.progress and isinstance(puzzle, Printable):
            print(puzzle.text(layout))
        return row


def summary_line(row: dict[str, Any], run_dir: Path) -> str:
    """One line for the console: what ran, what it found, what it cost, where it is."""
    optimum = row.get("known_optimum")
    best = f"best {row['best']:g}" + (f" (known optimum {optimum:g})" if optimum is not None else "")
    matched = row.get("score.matched_edges")
    if matched is not None and row.get("score_name") == "unmatched edges":  # as the docs speak of a board
        joins = int(matched) + int(row["best"])
        best = f"best {int(matched)} of {joins} joins matched ({row['best']:g} unmatched)" + (
            f"; known optimum {joins - int(optimum)}" if optimum is not None else ""
        )
    return (
        f"{row['puzzle']} | {row['optimizer']} | seed {row['seed']}: {best} after "
        f"{row['evaluations']:,} evaluations, {row['seconds']:.2f} s ({row['stop_reason']}) -> {run_dir}"
    )
