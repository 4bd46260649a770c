"""task=exact on an edge-matching board: every perfect board counted, or a proof that there is none
and the optimum, each answer with the nodes walked, the time and what it proved.

    python -m experiments.run task=exact puzzle=eternity2 puzzle.pieces_file=puzzles/data/eternity2/clue1.txt puzzle.starter=false task.limit=100

The perfect search (solvers/perfect_search) counts distinct perfect boards (all of them, or up to
`task.limit`); a board with none is proved so, and then the deepening search (solvers/backtrack.py)
proves its optimum, the fewest unmatched joins. A capped search (task.max_nodes, task.seconds) reports
what it proved by then: "at least this many boards", or the optimum's lower bound. The task
(experiments/tasks/exact.py) reaches it through the puzzle (`EdgeMatching.exact_report`).
"""

from __future__ import annotations

import time
from typing import Any

import pandas as pd

from core import interrupt
from core.exact import ExactReport
from core.faces import ConstructivePuzzle
from puzzles.edge_matching.solvers.backtrack import solve_puzzle
from puzzles.edge_matching.solvers.perfect_search import Board, search


def exact_report(
    puzzle: Any,
    limit: int | None,
    draw: int,
    max_nodes: int | None,
    seconds: float | None,
    threads: int | None,
    progress: bool = False,
) -> ExactReport:
    """The answer as the exact task writes it: its figures (one table row, exact.parquet), a picture
    per board kept and one line to print."""
    row, layouts = answer_board(puzzle, limit, draw, max_nodes, seconds, threads, progress)
    files: dict[str, Any] = {"exact.parquet": pd.DataFrame([row])}
    files.update({f"board_{k}.png": puzzle.draw(layout) for k, layout in enumerate(layouts)})
    counted = "all" if row["all_counted"] else "at least"
    text = (
        f"{puzzle.name} {row['rows']} x {row['columns']}: {counted} {row['perfect_boards']:,} perfect boards; "
        f"proved {row['proved']}; {row['nodes']:,} nodes ({row['placements']:,} pieces placed), "
        f"{row['seconds']:.2f} s ({row['stop_reason']})"
    )
    return ExactReport(row, text, files)


def answer_board(
    puzzle: ConstructivePuzzle,
    limit: int | None,
    draw: int,
    max_nodes: int | None,
    seconds: float | None,
    threads: int | None,
    progress: bool = False,
) -> tuple[dict[str, Any], list]:
    """The board's figures (one table row) and the layouts of its first `draw` perfect boards."""
    started, cpu_started = time.perf_counter(), time.process_time()
    board = Board(
        puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order="auto"
    )  # the smallest estimated tree
    found = search(board, limit, max(draw, 1), threads, max_nodes, seconds, progress, portfolio=True)
    row: dict[str, Any] = {
        "rows": puzzle.n,
        "columns": puzzle.m,
        "perfect_boards": found.count,
        "all_counted": found.complete,
        "symmetry": found.symmetry,
        "nodes": found.nodes,
        "placements": found.placements,  # pieces placed: the node the community's census tables count
        "busy": round(found.busy, 4),  # the share of the threads' time in jobs
        "scan_order": found.order,  # the order that walked (or that won the race to the first board)
        "stop_reason": found.stop_reason,
    }
    kept = [puzzle.layout(piece, turn) for piece, turn in found.boards]
    if found.count and not kept:
        raise RuntimeError(
            f"the perfect search counted {found.count} perfect boards but returned none to check"
        )
    for layout in kept:  # every board the search returns, drawn or not, re-scored by the puzzle
        rescore(puzzle, layout, 0, f"a perfect board (of {found.count:,} counted)")
    if found.none and kept:
        raise RuntimeError(f"the perfect search proved no perfect board but returned {len(kept)} boards")
    layouts = kept[:draw]
    if found.count:
        row.update(
            optimum=0, lower_bound=0, proved="a perfect board" + ("; all counted" if found.complete else "")
        )
    elif not found.complete:
        row.update(optimum=None, lower_bound=0, proved="nothing: the search stopped first")
    else:  # no perfect board: the optimum by the deepening search, in what is left of the caps
        left = None if seconds is None else max(seconds - (time.perf_counter() - started), 0.0)
        rest = None if max_nodes is None else max(max_nodes - found.nodes, 1)
        best = solve_puzzle(puzzle, rest or 1 << 62, left, threads or 1, proved=1)  # not 0: just proved
        row.update(
            nodes=found.nodes + best.nodes,
            optimum=best.unmatched if best.optimal else None,
            lower_bound=max(best.lower_bound, 1),
            proved=f"no perfect board; {'optimum' if best.optimal else 'optimum at least'} "
            f"{best.unmatched if best.optimal else max(best.lower_bound, 1)} unmatched joins",
            stop_reason=best.stop_reason,
        )
        if best.piece is not None and best.rotation is not None:
            layout = puzzle.layout(best.piece, best.rotation)
            claim = "the optimum" if best.optimal else "the best board's count"
            score = rescore(puzzle, layout, best.unmatched, f"{claim}, with no perfect board proved")
            if score == 0:  # cannot pass the check above with a claim of 0, but say it plainly
                raise RuntimeError("no perfect board was proved, yet the optimum's board re-scores to 0")
            layouts = [layout] if draw else []
        elif best.optimal:
            raise RuntimeError(f"the deepening search claims the optimum {best.unmatched} without a board")
    if interrupt.requested():  # Ctrl-C: a partial count, which must not read as a finished or timed one
        row["stop_reason"] = "interrupted"
    row["seconds"] = time.perf_counter() - started  # wall-clock; the run record's seconds
    row["cpu_seconds"] = time.process_time() - cpu_started  # every search thread's CPU time
    return row, layouts


def rescore(puzzle: Any, layout: Any, claimed: int | None, what: str) -> int:
    """The puzzle's own count of a board's unmatched joins (not the search's tally); a loud error when
    it is not what the answer claims of that board (as the optimise task's `rescored` does)."""
    score = int(puzzle.score_layout(layout)["unmatched_edges"])
    if claimed is None or score != claimed:
        raise RuntimeError(
            f"task=exact on puzzle={puzzle.name}: {what} claims {claimed} unmatched joins, but its board "
            f"re-scores to {score}: a bug in the exact search"
        )
    return score
