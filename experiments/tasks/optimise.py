"""Task `optimise`: a puzzle, an optimiser, a budget and a seed -> a run record.

numba's compiles stay off the budget's clock: the warm-ups (the fitness, the face's kernel, a
constructive solver or a pipeline's start) run before it starts, saying so when they compile, and a
compile inside the run is left out of it (`LiveLine.clock`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numba
import pandas as pd
from omegaconf import DictConfig, OmegaConf

from core import interrupt
from core.checkpoint import FILE as CHECKPOINT
from core.checkpoint import Checkpoint
from core.faces import Construction, Describing, Face, FitnessPuzzle, Printable, WithRunFiles
from core.space import Budget, Result
from experiments.build import build, component_name, config_columns, flat, make_budget
from experiments.live import LiveLine, compiling
from experiments.pairing import Built, as_optimizer, check_pair, evaluation_kind, local_search_face, needs
from experiments.records import TRACE_COLUMNS, RunRecord, write_picture, write_record
from experiments.tasks import Task
from heuristics.minimize import minimize

UNCHANGING = ("progress", "resume")  # settings that do not change what a run finds (run.NOT_COMPARED)


def checkpoint_of(cfg: DictConfig, run_dir: Path) -> Checkpoint:
    """The run folder's checkpoint, for the run `cfg` describes (every setting that changes what the
    run finds must match for a saved state to be continued)."""
    settings = flat(OmegaConf.to_container(cfg, resolve=True))
    kept = {k: v for k, v in settings.items() if k.split(".")[0] not in UNCHANGING}
    return Checkpoint(run_dir / CHECKPOINT, kept)


def time_left(budget: Budget, spent: float) -> Budget:
    """The budget a continued run's live line shows: its seconds less those spent before."""
    if budget.seconds is None or spent <= 0:
        return budget
    return Budget(budget.evaluations, max(budget.seconds - spent, 1e-9), budget.target)


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


def plural(count: int, word: str) -> str:
    """1 evaluation, 2,343 evaluations."""
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def one_board(budget: DictConfig, solver: Any, name: str) -> str | None:
    """What a budget in evaluations means for a constructive solver, whose one evaluation is a whole
    board: one board, built with no time limit unless budget.seconds sets one (its settings fix the
    work, so the same seed gives the same board on any machine), or under the solver's default time
    when the run sets no budget at all. The line to print; None when the budget counts no evaluations.
    """
    if budget.evaluations is None:
        return None
    allowed = "" if budget.evaluations == 1 else f" (of the {budget.evaluations:,} allowed)"
    head = f"budget for optimizer={name}: a constructive solver builds one board, its 1 evaluation{allowed}"
    if budget.seconds is not None:
        return f"{head}, within {budget.seconds:g} s"
    own = getattr(solver, "default_seconds", None)
    default = f" (with no budget set: its default, {own:g} s)" if own else ""
    bound = f"set budget.seconds to bound it{default}"
    return f"{head}, with no time limit: its settings fix the work, the same board on any machine; {bound}"


def warm_start(solver: Any, puzzle: Any) -> None:
    """Compile a pipeline's start (`solver.start`: a constructive solver it builds its first board with,
    e.g. portfolio's backtracker) before the clock starts, as a constructive solver's own warm-up does."""
    warm_up = getattr(getattr(solver, "start", None), "warm_up", None)
    if callable(warm_up):
        warm_up(puzzle)


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


class Optimise(Task):
    """Optimise, then write the record and a picture of the best layout."""

    def __call__(self, cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
        puzzle = build(cfg.puzzle, "puzzle")
        chosen = build(cfg.optimizer, "optimizer")
        check_pair(
            chosen, puzzle, component_name(cfg, "optimizer", chosen), component_name(cfg, "puzzle", puzzle)
        )
        if needs(chosen) is Face.BOARD:
            said = one_board(cfg.budget, chosen, component_name(cfg, "optimizer", chosen))
            if said and cfg.progress:
                print(said)
        budget = make_budget(cfg.budget, puzzle.known_optimum)
        with compiling(cfg.progress):  # compile (or load numba's cache) outside the clock
            optimizer = as_optimizer(chosen, puzzle)  # a constructive solver warms up here
            puzzle.fitness(puzzle.space.identity())
            face = local_search_face(puzzle, chosen)
            warm_start(chosen, puzzle)
        describe = puzzle.describe if isinstance(puzzle, Describing) else (lambda value: f"{value:g}")
        checkpoint = checkpoint_of(cfg, run_dir)
        saved = checkpoint.load()
        if saved is not None:
            print(saved.line(describe))
        spent = 0.0 if saved is None else float(saved.objective["seconds"])
        shown = time_left(budget, spent)
        with LiveLine(f"{optimizer.name} seed {cfg.seed}", shown, describe, cfg.progress) as line:
            result = minimize(
                puzzle.fitness,
                puzzle.space,
                optimizer,
                budget,
                int(cfg.seed),
                line.seen,
                face=face,
                clock=line.clock,  # wall-clock seconds, numba's compiles left out
                checkpoint=checkpoint,
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
        if record.stop_reason != "interrupted":
            checkpoint.discard()  # the record is complete: nothing is left to continue
        elif checkpoint.path.is_file():
            print(f"checkpoint: {checkpoint.path}; the same command continues the run", file=sys.stderr)
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
    spent = [plural(int(row["evaluations"]), "evaluation")] if _known(row.get("evaluations")) else []
    spent += [f"{row['seconds']:.2f} s"] if _known(row.get("seconds")) else []
    after = f" after {', '.join(spent)}" if spent else ""
    return (
        f"{row['puzzle']} | {row['optimizer']} | seed {row['seed']}: {best}{after} ({row['stop_reason']}) "
        f"-> {run_dir}"
    )


def _known(value: Any) -> bool:
    """A record's cell holds a value: a record cut short (a run whose files could not be written, one
    read back) may lack its evaluations or seconds, or hold None or NaN there."""
    return value is not None and not pd.isna(value)
