"""Brendan Owen's estimate of how many perfect boards a random Eternity-II-like board has, and the
colour count where it crosses one: the predicted hardest count (the phase transition's peak).

Why a formula beside eternity2.HARDEST_COLOURS: that table (copied from jwortmann/Eternity2Puzzles.jl)
gives one (frame, inner) pair per size; a hardness study needs the crossing for any size and frame
count. The estimate (Owen's "simple theory") counts the arrangements the rim allows and multiplies by
the chance that every join matches, each join independently:

    E = 4! * e! * i! * 4^i / (F^f * I^j)

with e = 2(n - 2) + 2(m - 2) edge pieces (one turn fits a rim cell), i = (n - 2)(m - 2) inner pieces
(4 turns each), f = 2(n - 1) + 2(m - 1) joins between rim cells coloured from F frame colours, and the
other j = 2nm - 3n - 3m + 4 joins from I inner colours. Turned copies of a board count apart, as a
count of boards does. E falls as I grows; it is 1 at I* = (4! e! i! 4^i / F^f)^(1/j), the predicted
peak. Rounded, I* is the table's inner count for every square size it lists but 9 (I* = 8.46 there,
the table says 9).
"""

from __future__ import annotations

from math import exp, lgamma, log


def joins(n: int, m: int | None = None) -> tuple[int, int]:
    """(frame joins, inner joins) of an n x m board with a frame: joins between two rim cells, and
    the rest (those an inner colour takes)."""
    m = n if m is None else m
    frame = 2 * (n - 1) + 2 * (m - 1)
    return frame, 2 * n * m - n - m - frame


def _log_arrangements(n: int, m: int, frame_colours: int) -> float:
    """ln(4! e! i! 4^i / F^f): ln E with one inner colour."""
    edge, inner = 2 * (n - 2) + 2 * (m - 2), (n - 2) * (m - 2)
    frame, _ = joins(n, m)
    return lgamma(5) + lgamma(edge + 1) + lgamma(inner + 1) + inner * log(4) - frame * log(frame_colours)


def log10_expected_solutions(n: int, frame_colours: int, inner_colours: float, m: int | None = None) -> float:
    """log10 of Owen's expected number of perfect boards (a log: E runs past a float's range)."""
    m = n if m is None else m
    _, inner = joins(n, m)
    return (_log_arrangements(n, m, frame_colours) - inner * log(inner_colours)) / log(10)


def predicted_peak(n: int, frame_colours: int, m: int | None = None) -> float:
    """The inner colour count I* where Owen's expected number of perfect boards is 1 (a real number:
    the hardest whole count is one of its two neighbours)."""
    m = n if m is None else m
    _, inner = joins(n, m)
    return exp(_log_arrangements(n, m, frame_colours) / inner)
