"""How hard one planted board is for the perfect search: the nodes to its first perfect board within a
node cap, and its perfect boards counted within another.

Why node caps and one thread: nodes, unlike seconds, are the same on every machine and every run, and
on one thread the search stops at its cap exactly; on two or more it reads the cap every few
milliseconds, so whether a board found just under the cap counts as solved would depend on timing.
A study runs boards side by side instead (studies/hardness_peak/task.py). The search is the one
`task=exact` and `optimizer=backtrack` run: the order of the smallest estimated tree (seeded dives),
and for a first board the two best orders walked in turns (solvers/perfect_search/turns.py).
"""

from __future__ import annotations

import time
from typing import Any

from core.errors import InputError
from puzzles.edge_matching.exact_boards import rescore
from puzzles.edge_matching.owen import log10_expected_solutions, predicted_peak
from puzzles.edge_matching.solvers.perfect_search import AUTO, ORDERS, Board, search


def check_order(order: str) -> str:
    """A scan order the search knows ("auto": the smallest estimated tree)."""
    if order != AUTO and order not in ORDERS:
        raise InputError(
            f"task.order={order!r} is not a scan order; choose auto or one of: {', '.join(ORDERS)}"
        )
    return order


def board_text(piece, turn) -> str:
    """A board as one cell per word, `piece/turns` in row-major order (a table cell that re-scores)."""
    return " ".join(f"{int(p)}/{int(t)}" for p, t in zip(piece, turn))


def board_of(puzzle: Any, text: str):
    """The layout `board_text` wrote, on that board's puzzle."""
    cells = [word.split("/") for word in text.split()]
    return puzzle.layout([int(p) for p, _ in cells], [int(t) for _, t in cells])


def hardness(puzzle: Any, max_nodes: int, count_nodes: int | None, order: str = AUTO) -> dict[str, Any]:
    """One board's figures: `solved` (a perfect board within `max_nodes`), `nodes_to_first` (its
    nodes; `max_nodes` when not solved, `censored`), the first board (re-scored to 0 unmatched joins
    by the puzzle before it is kept), and `solutions` (perfect boards, turned copies apart) counted
    within `count_nodes`: all of them when `solutions_complete`, else at least that many (None: no
    count)."""
    started = time.perf_counter()
    board = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order=order)
    probed = time.perf_counter()
    first = search(board, limit=1, keep=1, threads=1, max_nodes=max_nodes, portfolio=True)
    searched = time.perf_counter()
    row: dict[str, Any] = {
        "solved": bool(first.boards),
        "censored": not first.boards,
        "nodes_to_first": first.nodes if first.boards else max_nodes,
        "nodes_walked": first.nodes,
        "stop_reason": first.stop_reason,
        "scan_order": first.order,
        "first_board": "",
    }
    if first.boards:
        layout = puzzle.layout(*first.boards[0])
        rescore(puzzle, layout, 0, "the first perfect board")
        row["first_board"] = board_text(layout.piece, layout.rotation)
    count = (
        None if count_nodes is None else search(board, limit=None, keep=1, threads=1, max_nodes=count_nodes)
    )
    if first.none or (count is not None and count.none):  # a planted board has a perfect board
        raise RuntimeError(
            f"the perfect search proved a planted {puzzle.n} x {puzzle.m} board unsolvable: a bug"
        )
    row.update(
        solutions=None if count is None else count.count,
        solutions_complete=bool(count is not None and count.complete),
        count_nodes_walked=None if count is None else count.nodes,
        probe_seconds=probed - started,
        seconds=searched - probed,
        count_seconds=time.perf_counter() - searched,
    )
    return row


def hardness_row(puzzle: Any, max_nodes: int, count_nodes: int | None, order: str = AUTO) -> dict[str, Any]:
    """One planted board's row of the hardness study: its size and palettes, Owen's figures for them
    (the predicted peak, the expected number of perfect boards), and the search's (`hardness`)."""
    n, m, frame = puzzle.n, puzzle.m, puzzle.frame_colours
    return {
        "n": n,
        "frame_colours": frame,
        "colours": puzzle.inner_colours,
        "instance_seed": puzzle.instance_seed,
        "max_nodes": max_nodes,
        "count_cap": count_nodes,
        "predicted_peak": predicted_peak(n, frame, m),
        "log10_expected_solutions": log10_expected_solutions(n, frame, puzzle.inner_colours, m),
        **hardness(puzzle, max_nodes, count_nodes, check_order(order)),
    }
