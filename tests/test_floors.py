"""The floors (shared design, issue 32): core/ < heuristics/ < puzzles/ < experiments/. A module imports
only from its own floor and the ones below, so heuristics/ (generic engines) never imports a puzzle, nor
the puzzle families' own solvers, and core/ imports neither."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BELOW = {"core": {"core"}, "heuristics": {"core", "heuristics"}}  # the floors each may import from
PROJECT = {"core", "heuristics", "puzzles", "experiments"}


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
