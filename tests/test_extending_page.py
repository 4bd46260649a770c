"""docs/extending.md's code runs as the page shows it (nevergrad's test_doc.py does the same for its docs).

The page's Python blocks (an optimiser and a puzzle) and YAML blocks (their configs) are written into a
folder of their own, outside the repository, as a user would copy them: each class into a module, each
YAML into that folder's config directory under a name of its own (so the project's copies, lahc and
queens, do not shadow them), `_target_` pointing at the copied module. Then the app runs the copied
optimiser on the copied puzzle from the command line, and the run's record is read back.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.conftest import outside_app

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "extending.md"


def fenced_blocks(language: str, text: str | None = None) -> list[str]:
    """The page's fenced code blocks in one language, in order."""
    text = PAGE.read_text(encoding="utf-8") if text is None else text
    return [m.group(1) for m in re.finditer(rf"^```{language}\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)]


def defined_class(source: str) -> ast.ClassDef:
    """The one class a block defines."""
    classes = [node for node in ast.parse(source).body if isinstance(node, ast.ClassDef)]
    assert len(classes) == 1, f"a block of docs/extending.md should define one class:\n{source[:200]}"
    return classes[0]


def class_attributes(node: ast.ClassDef) -> set[str]:
    """The names a class body assigns (`name = ...`, `needs: Face = ...`)."""
    names = set()
    for statement in node.body:
        targets = (
            statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
        )
        names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Path:
    """A user's folder holding the page's code: doc_optimizer.py, doc_puzzle.py, conf/<group>/doc_<name>.yaml."""
    folder = tmp_path_factory.mktemp("extending_page")
    modules: dict[str, str] = {}  # group -> module written
    for source in fenced_blocks("python"):
        node = defined_class(source)
        attributes = class_attributes(node)
        group = "optimizer" if "needs" in attributes else "puzzle" if "offers" in attributes else None
        assert group, f"class {node.name} of docs/extending.md declares neither `needs` nor `offers`"
        assert group not in modules, f"two {group} classes on the page"
        (folder / f"doc_{group}.py").write_text(source, encoding="utf-8")
        modules[group] = node.name
    assert set(modules) == {"optimizer", "puzzle"}, modules
    for source in fenced_blocks("yaml"):
        config = yaml.safe_load(source)
        schema = next(d for d in config["defaults"] if isinstance(d, str) and d.startswith("/schema/"))
        _, _, group, rest = schema.split("/", 3)
        name = rest.split("@")[0]
        module, _, cls = config["_target_"].rpartition(".")
        assert cls == modules[group], (
            f"the page's {group} YAML names {cls}, its code defines {modules[group]}"
        )
        copied = source.replace(f"/schema/{group}/{name}@", f"/schema/{group}/doc_{name}@")
        copied = copied.replace(f"_target_: {module}.{cls}", f"_target_: doc_{group}.{cls}")
        (folder / "conf" / group).mkdir(parents=True, exist_ok=True)
        (folder / "conf" / group / f"doc_{name}.yaml").write_text(copied, encoding="utf-8")
    return folder


def test_the_page_shows_an_optimiser_that_declares_its_face():
    """The optimiser on the page declares `needs` (without it the app refuses the class)."""
    optimiser = next(b for b in fenced_blocks("python") if "needs" in class_attributes(defined_class(b)))
    assert "needs = Face.FITNESS" in optimiser


def test_the_pages_optimiser_runs_on_the_pages_puzzle(lab: Path):
    run_dir = lab / "run"
    proc = outside_app(
        lab,
        "experiments.run",
        "hydra.searchpath=[file://conf]",
        "puzzle=doc_queens",
        "puzzle.n=12",
        "optimizer=doc_lahc",
        "optimizer.history=100",
        "budget.evaluations=30000",
        "progress=false",
        f"hydra.run.dir={run_dir}",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    row = pd.read_parquet(run_dir / "run.parquet").iloc[0]
    assert (row["puzzle"], row["optimizer"], row["status"]) == ("doc_queens", "doc_lahc", "ok")
    assert row["score_name"] == "attacking pairs" and row["optimizer.history"] == 100
    assert row["best"] == row["score.attacking_pairs"] == 0 and row["success"]  # 12 queens, none attacking
    assert (run_dir / "best.png").stat().st_size > 0
