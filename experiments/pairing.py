"""Which solver runs on which puzzle, in one place: declarations compared, and the adapters between kinds.

Every optimiser declares the face it needs (`needs`, a `core.faces.Face`) and every puzzle the faces it
offers (`offers`); `check_pair` compares them before anything runs and refuses a mismatch in one line
that names the puzzles that would do. The declaration also picks how a solver runs: a constructive
solver under a budget is wrapped as an optimiser (`Built`), a metaheuristic asked for a board is
wrapped as a constructive solver (`UnderBudget`), and a compiled optimiser is handed the puzzle's
local-search face (`local_search_face`).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from hydra.utils import get_object
from omegaconf import DictConfig

from core.checkpoint import staged
from core.errors import InputError
from core.faces import Construction, Face
from core.objective import Objective
from experiments.build import make_budget
from experiments.schema import CONFIG_DIR, config_target
from heuristics.chains import warm_up
from heuristics.minimize import minimize

COMPILED = frozenset({Face.LOCAL_SEARCH, Face.WINDOWS})  # the faces compiled chains run on
FITNESS_ONLY = frozenset({Face.FITNESS})  # a puzzle that declares nothing offers what every puzzle must

EVALUATION_KIND = {  # what one evaluation in a run record is, by the face the optimiser runs on
    Face.FITNESS: "fitness",
    Face.LOCAL_SEARCH: "priced move",
    Face.WINDOWS: "priced placement",
    Face.BOARD: "construction",
}


def offers(puzzle: Any) -> frozenset[Face]:
    """The faces a puzzle (an instance or its class) declares; the fitness face when it declares none."""
    declared: frozenset[Face] = getattr(puzzle, "offers", FITNESS_ONLY)
    return declared


def needs(solver: Any) -> Face:
    """The face an optimiser (an instance or its class) declares it needs; a one-line error for an
    optimiser that declares none."""
    cls = solver if isinstance(solver, type) else type(solver)
    declared = getattr(cls, "needs", None)
    if not isinstance(declared, Face):
        raise InputError(
            f"optimizer {cls.__name__} does not declare what it needs: give its class "
            "`needs = core.faces.Face.FITNESS` (or LOCAL_SEARCH, BOARD)"
        )
    return declared


def evaluation_kind(solver: Any) -> str:
    """What one evaluation of this solver's runs counts."""
    return EVALUATION_KIND[needs(solver)]


@cache
def config_classes(group: str, config_dir: Path = CONFIG_DIR) -> dict[str, type]:
    """Every config of a group (`packing/free6` included) -> the class it builds."""
    group_dir = config_dir / group
    found = {}
    for path in sorted(group_dir.rglob("*.yaml")):
        target = config_target(path, group_dir)
        if target:
            found[path.relative_to(group_dir).with_suffix("").as_posix()] = get_object(target)
    return found


def puzzles_offering(face: Face) -> list[str]:
    """The project's puzzle configs that offer `face` (variants of one class listed once each)."""
    return [name for name, cls in config_classes("puzzle").items() if face in offers(cls)]


def _short(names: list[str]) -> str:
    """A list of config names for a one-line message: packing/* folded into one entry."""
    packing = [n for n in names if n.startswith("packing/")]
    rest = [n for n in names if not n.startswith("packing/")]
    return ", ".join(rest + (["packing/*"] if packing else []))


def check_pair(solver: Any, puzzle: Any, solver_name: str, puzzle_name: str) -> None:
    """Refuse, in one line, an optimiser whose needed face the puzzle does not offer."""
    face, offered = needs(solver), offers(puzzle)
    if face in offered:
        return
    hint = "; it is an exact puzzle: run it with task=exact" if offered == {Face.EXACT} else ""
    if face in offers(type(puzzle)):  # its class does, on other pieces
        hint = " with these pieces (a cell has no piece of its kind: grey sides must face out)"
    raise InputError(
        f"optimizer={solver_name} needs {face.value}, which puzzle={puzzle_name} does not offer{hint} "
        f"(puzzles that do: {_short(puzzles_offering(face))})"
    )


def local_search_face(puzzle: Any, solver: Any):
    """The puzzle's local-search face, its kernel compiled, for an optimiser that needs one (else None).

    The optimiser's start (`solver.start`) is a name the puzzle resolves (`optimizer.start`: random,
    greedy, a board file) or a constructive solver a pipeline built; the face builds its board, so the
    compiled optimisers import no solver.
    """
    if needs(solver) not in COMPILED:
        return None
    face = puzzle.local_search(solver.start)
    if face is not None:
        warm_up(face, solver.kernel)
    return face


class Built:
    """A constructive solver run as an optimiser: each board it builds is one evaluation, so its record,
    trace and picture are a metaheuristic's. `last` keeps what the last construction cost."""

    needs = Face.FITNESS

    def __init__(self, solver: Any, puzzle: Any):
        if solver.repeats_pieces:
            raise InputError(
                f"optimizer={solver.name} may place a piece twice (the seed's bug, kept on purpose), so its "
                "board is no genome of the puzzle: run it with task=colour_sweep, which counts duplicates, "
                "or use optimizer=greedy"
            )
        self.solver, self.puzzle, self.name = solver, puzzle, solver.name
        self.last: Construction | None = None
        solver.warm_up(puzzle)  # load the kernels before the budget's clock starts

    def run(self, objective: Objective, rng) -> None:
        """Build the board within the time budget, the solver's ties drawn from the run's seed, and score it.
        A solver that keeps its state in the run's checkpoint finds it on the stage (core.checkpoint)."""
        before = rng.bit_generator.state  # a continued run draws the same seed from it
        solver = self.solver.seeded(int(rng.integers(2**31)))
        with staged(objective, before):
            self.last = solver.construct(self.puzzle, objective.budget.seconds)
        try:
            objective(self.puzzle.encode(self.last.layout))
        finally:  # the boards it held before, at their times: the trace is the solver's anytime curve
            final = objective.best
            earlier = [(1, float(s), float(v)) for s, _, v in self.last.history if v > final]
            objective.trace[:0] = [
                row for i, row in enumerate(earlier) if i == 0 or row[2] < earlier[i - 1][2]
            ]


class UnderBudget:
    """A metaheuristic in the constructive shape: `solve(puzzle)` runs it under the run's budget and
    decodes its best genome; `cost` says what the last solve spent."""

    needs = Face.BOARD
    repeats_pieces = False

    def __init__(self, optimizer: Any, budget: DictConfig, seed: int):
        self.optimizer, self.budget, self.seed = optimizer, budget, seed
        self.name = optimizer.name
        self.cost: dict[str, Any] = {"evaluations": None, "stop_reason": "finished"}

    def solve(self, puzzle: Any):
        """The best board the metaheuristic finds within the budget (stopping at a known optimum)."""
        budget = make_budget(self.budget, puzzle.known_optimum)
        face = local_search_face(puzzle, self.optimizer)
        result = minimize(puzzle.fitness, puzzle.space, self.optimizer, budget, self.seed, face=face)
        self.cost = {"evaluations": result.evaluations, "stop_reason": result.stop_reason}
        return puzzle.decode(result.best_genome)

    def seeded(self, seed: int) -> UnderBudget:
        return UnderBudget(self.optimizer, self.budget, seed)

    def warm_up(self, puzzle: Any) -> None:
        """Compile the fitness and any face kernel (or load numba's cache), where a solve is a whole run."""
        puzzle.fitness(puzzle.space.identity())
        local_search_face(puzzle, self.optimizer)


def as_optimizer(solver: Any, puzzle: Any) -> Any:
    """The solver in the shape `minimize` runs: a constructive solver wrapped, any other as it is."""
    return Built(solver, puzzle) if needs(solver) is Face.BOARD else solver


def as_builder(solver: Any, budget: DictConfig, seed: int) -> Any:
    """The solver in the shape that builds one board per puzzle: a metaheuristic wrapped, a constructive
    solver as it is."""
    return solver if needs(solver) is Face.BOARD else UnderBudget(solver, budget, seed)


def compatibility_table(config_dir: Path = CONFIG_DIR) -> str:
    """The table of which optimiser runs on which puzzle, made from the declarations alone."""
    optimizers, puzzles = config_classes("optimizer", config_dir), config_classes("puzzle", config_dir)
    lines = ["| what it needs | optimizer configs | puzzle configs that offer it |", "|---|---|---|"]
    for face in Face:
        users = [name for name, cls in optimizers.items() if face is needs(cls)]
        if face is Face.EXACT:
            users = ["task=exact (backends: algorithm_x, ilp, cpsat)"]
        offering = [name for name, cls in puzzles.items() if face in offers(cls)]
        lines.append(f"| {face.value} | {', '.join(users)} | {_short(offering)} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(compatibility_table())
