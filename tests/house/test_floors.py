"""The floors (shared design, issue 32): core/ < heuristics/ < puzzles/ < experiments/ < studies/. A module
imports only from its own floor and the ones below, so heuristics/ (generic engines) never imports a
puzzle, nor the puzzle families' own solvers, and core/ imports neither. puzzles/ and experiments/ are
siblings joined only by config: neither imports the other. A study (studies/<name>/, issue 57) imports
experiments/ and core/, never a puzzle family, nor another study; nothing imports a study: the app
builds its task from a config's `_target_`, the report finds its section through the task's hook
(`Task.report_section`). Nor do heuristics/, experiments/ and studies/ tie themselves to a family by
name (its path, its solvers' and pipelines' names): they reach it through the faces a puzzle offers."""

import ast
from pathlib import Path

import pytest

from tests import ROOT

BELOW = {  # the floors each may import from
    "core": {"core"},
    "heuristics": {"core", "heuristics"},
    "puzzles": {"core", "heuristics", "puzzles"},
    "experiments": {"core", "heuristics", "experiments"},
    "studies": {"core", "experiments", "studies"},
}
PROJECT = {"core", "heuristics", "puzzles", "experiments", "studies"}


def _imports(path: Path) -> set[str]:
    """The project packages a module imports, at any depth (lazy imports inside functions included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & PROJECT


@pytest.mark.parametrize("floor", sorted(BELOW))
def test_a_floor_imports_only_itself_and_the_floors_below(floor):
    above = {
        f"{path.relative_to(ROOT)}: {sorted(_imports(path) - BELOW[floor])}"
        for path in sorted((ROOT / floor).rglob("*.py"))
        if _imports(path) - BELOW[floor]
    }
    assert not above, f"imports from a floor above {floor}/: {sorted(above)}"


def _study_imports(path: Path) -> set[str]:
    """The studies a module imports (studies.<name>...), at any depth."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] if "." in node.module else [f"{node.module}.{a.name}" for a in node.names]
        found |= {n.split(".")[1] for n in names if n.startswith("studies.")}
    return found


def test_a_study_is_one_folder_that_imports_no_other_study():
    studies = sorted(p for p in (ROOT / "studies").iterdir() if (p / "__init__.py").is_file())
    assert {"colour_sweep", "hardness_peak"} <= {p.name for p in studies}
    crossed = {
        f"{path.relative_to(ROOT)}: {sorted(_study_imports(path) - {study.name})}"
        for study in studies
        for path in sorted(study.rglob("*.py"))
        if _study_imports(path) - {study.name}
    }
    assert not crossed, f"a study imports another study: {sorted(crossed)}"


FAMILY = "puzzles.edge_matching"  # a puzzle family: its solvers and pipelines are named only inside it
WIRING = ("heuristics", "experiments", "studies")  # engines, wiring, studies: a family only through its faces


def _family_names() -> set[str]:
    """What ties a module to the family by name: every class of its solvers and pipelines that declares
    the face it needs (a solver or an optimiser: Beam, Breaks, BestOfConcurrent, PlateauLNS...), each
    such class's `name` and module that is no plain word (plateau_lns, perfect_search, board_file), and
    the family's own path. Plain words (beam, concurrent, breaks, greedy) stay free: they say what
    generic code means too."""
    import importlib
    import inspect
    import pkgutil

    modules = [importlib.import_module(f"{FAMILY}.pipelines"), importlib.import_module(f"{FAMILY}.solvers")]
    solvers = modules[1]
    modules += [
        importlib.import_module(m.name) for m in pkgutil.walk_packages(solvers.__path__, f"{FAMILY}.solvers.")
    ]
    names = {FAMILY, FAMILY.replace(".", "/")}
    for module in modules:
        stem = module.__name__.rsplit(".", 1)[1]
        names |= {stem} if "_" in stem else set()
        for cls in vars(module).values():
            if inspect.isclass(cls) and cls.__module__ == module.__name__ and hasattr(cls, "needs"):
                names.add(cls.__name__)
                label = getattr(cls, "name", "")
                names |= {label} if isinstance(label, str) and "_" in label else set()
    return names


def test_the_family_names_what_the_floors_test_looks_for():
    names = _family_names()
    assert {
        "Beam",
        "Breaks",
        "BestOfConcurrent",
        "Backtrack",
        "PlateauLNS",
        "Portfolio",
        "BeamRefine",
    } <= names
    assert {"perfect_search", "plateau_lns", "beam_refine", "puzzles.edge_matching"} <= names


@pytest.mark.parametrize("floor", WIRING)
def test_generic_code_names_no_family_solver(floor):
    """A tie by name is a tie the import floors cannot see: a start handed over as "concurrent" and a
    dict of the beam's settings, a task that imports the backtracker. Generic code names none of them, in code
    or prose (word for word, case and all)."""
    import re

    pattern = re.compile(r"(?<!\w)(" + "|".join(map(re.escape, sorted(_family_names()))) + r")(?!\w)")
    found = [
        f"{path.relative_to(ROOT)}:{number}: {match.group(1)}"
        for path in sorted((ROOT / floor).rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        for match in [pattern.search(line)]
        if match
    ]
    assert not found, "generic code names the family's solvers: " + "; ".join(found)
