"""The seeds' own exact solvers on the same exact-cover model: ILP (PuLP + CBC) and CP-SAT.

Seed 000 solved the calendar as an integer programme, seed 004 with OR-tools CP-SAT. Both are
kept as cross-checks of the Algorithm X engine: one binary variable per row, "exactly one" per
primary item, "at most one" per secondary item. They live in the optional `exact` extra
(pip install 'puzzlelab[exact]') and are imported only when asked for.

An ILP solver finds one solution per solve, so enumeration adds a no-good cut after each one.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np

from core.errors import InputError
from heuristics.exact_cover import ExactCover, bool_matrix, solution_limit

BACKENDS = ("algorithm_x", "ilp", "cpsat")


def solutions(problem, backend: str = "algorithm_x", limit: int | None = None) -> Iterator[list[int]]:
    """Solutions (lists of row indices, sorted) from the chosen backend, up to `limit`.

    `problem` is an ExactCover or a puzzle's `core.exact.CoverModel`.
    """
    check_backend(backend)
    problem = _engine(problem)
    if backend == "algorithm_x":
        return (sorted(s) for s in problem.solutions(limit))
    if backend == "ilp":
        return _ilp_solutions(problem, solution_limit(limit))
    return iter(_cpsat_solutions(problem, solution_limit(limit)))


def check_backend(backend: str) -> None:
    """Refuse an unknown backend in one line that names the known ones."""
    if backend not in BACKENDS:
        raise InputError(f"unknown exact backend {backend!r}; choose one of: {', '.join(BACKENDS)}")


def count(problem, backend: str = "algorithm_x", limit: int | None = None) -> int:
    """The number of solutions by the chosen backend (stopping at `limit`)."""
    problem = _engine(problem)
    if backend == "algorithm_x":
        return problem.count(limit)
    return sum(1 for _ in solutions(problem, backend, limit))


def _engine(problem) -> ExactCover:
    """The problem as an ExactCover (the engine, and the matrix the other backends read)."""
    return problem if isinstance(problem, ExactCover) else ExactCover.from_model(problem)


def _columns(problem: ExactCover) -> tuple[list[np.ndarray], np.ndarray]:
    """For each item, the rows that cover it; and which items are primary."""
    bits = bool_matrix(problem.masks)[:, : problem.n_items]
    primary = bool_matrix(problem.primary[None, :])[0, : problem.n_items]
    return [np.flatnonzero(bits[:, i]) for i in range(problem.n_items)], primary


def _import(module: str, backend: str) -> ModuleType:
    """Import an optional dependency, or say in one line how to install it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(
            f"the {backend!r} backend needs {module.split('.')[0]}: pip install 'puzzlelab[exact]'"
        ) from None


def _ilp_solutions(problem: ExactCover, limit: int) -> Iterator[list[int]]:
    """Enumerate by re-solving the ILP with a cut excluding each solution found (seed 000)."""
    pulp = _import("pulp", "ilp")
    model = pulp.LpProblem("exact_cover", pulp.LpMinimize)
    x = [_binary(pulp, model, f"x{r}") for r in range(len(problem.masks))]
    model += pulp.lpSum([])  # a feasibility problem: any objective will do
    columns, primary = _columns(problem)
    for item, rows in enumerate(columns):
        total = pulp.lpSum(x[r] for r in rows)
        if primary[item]:
            model += total == 1
        elif len(rows) > 1:
            model += total <= 1
    with warnings.catch_warnings():  # PuLP 3 deprecates the CBC it bundles, the one it has
        warnings.simplefilter("ignore", DeprecationWarning)
        solver = pulp.PULP_CBC_CMD(msg=False)
    for _ in range(limit):
        if pulp.LpStatus[model.solve(solver)] != "Optimal":
            return
        chosen = [r for r, v in enumerate(x) if v.value() > 0.5]
        yield chosen
        model += pulp.lpSum(x[r] for r in chosen) <= len(chosen) - 1


def _binary(pulp, model, name: str):
    """A 0/1 variable of the model (PuLP 3 adds it through the model, PuLP 2 builds it alone)."""
    if hasattr(model, "add_variable"):
        return model.add_variable(name, cat=pulp.LpBinary)
    return pulp.LpVariable(name, cat=pulp.LpBinary)


def _cpsat_solutions(problem: ExactCover, limit: int) -> list[list[int]]:
    """Enumerate every solution with CP-SAT's solution callback (seed 004)."""
    # imported by name, so mypy cannot see its classes; Any lets Collect subclass its callback class
    cp_model: Any = _import("ortools.sat.python.cp_model", "cpsat")
    model = cp_model.CpModel()
    x = [model.NewBoolVar(f"x{r}") for r in range(len(problem.masks))]
    columns, primary = _columns(problem)
    for item, rows in enumerate(columns):
        if primary[item]:
            model.AddExactlyOne(x[r] for r in rows)
        elif len(rows) > 1:
            model.AddAtMostOne(x[r] for r in rows)
    found: list[list[int]] = []

    class Collect(cp_model.CpSolverSolutionCallback):
        """Keep each solution; stop at the limit."""

        def on_solution_callback(self):
            found.append([r for r, v in enumerate(x) if self.BooleanValue(v)])
            if len(found) >= limit:
                self.StopSearch()

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.Solve(model, Collect())
    return found
