"""docs/extending.md's code runs as the page shows it (nevergrad's test_doc.py does the same for its docs).

The page's Python blocks (an optimiser and a puzzle) and YAML blocks (their configs) are written into a
folder of their own, outside the repository, as a user would copy them: each class into a module, each
YAML into that folder's config directory under a name of its own (so the project's copies, lahc and
queens, do not shadow them), `_target_` pointing at the copied module. Then the app runs the copied
optimiser on the copied puzzle from the command line, and the run's record is read back.

The study's blocks (each names its path, `# studies/<name>/...`) are written into a copy of studies/
where they say, outside the repository; from there the app finds the new study as it finds the
project's (the search path plugin hydra_plugins/puzzlelab_studies), runs its smoke version and writes
its part of the report.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests import ROOT
from tests.conftest import outside_app

PAGE = ROOT / "docs" / "extending.md"


STUDY_FILE = re.compile(r"^# (studies/\S+)$")  # a study's block names the file it is


def fenced_blocks(language: str, text: str | None = None, study: bool = False) -> list[str]:
    """The page's fenced code blocks in one language, in order: the components' (study=False) or the
    study's (study=True: those whose leading comment lines name a file under studies/)."""
    text = PAGE.read_text(encoding="utf-8") if text is None else text
    found = [m.group(1) for m in re.finditer(rf"^```{language}\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)]
    return [block for block in found if (study_file(block) is not None) == study]


def study_file(block: str) -> str | None:
    """The path under studies/ a block's leading comment lines name (None: a component's block)."""
    for line in block.splitlines():
        if not line.startswith("#"):
            return None
        named = STUDY_FILE.match(line)
        if named:
            return named.group(1)
    return None


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


STUDY = "random_floor"  # the page's study


@pytest.fixture(scope="module")
def study_lab(tmp_path_factory) -> Path:
    """A copy of the project's studies/ with the page's study written into it, each block at its path."""
    folder = tmp_path_factory.mktemp("extending_study")
    shutil.copytree(ROOT / "studies", folder / "studies", ignore=shutil.ignore_patterns("__pycache__"))
    written = []
    for language in ("python", "yaml"):
        for block in fenced_blocks(language, study=True):
            path = folder / str(study_file(block))
            assert not path.exists(), f"two blocks of docs/extending.md write {path.relative_to(folder)}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(block, encoding="utf-8")
            written.append(path.relative_to(folder / "studies" / STUDY).as_posix())
    assert sorted(written) == [
        "__init__.py",
        f"conf/experiment/{STUDY}.yaml",
        f"conf/smoke_study/{STUDY}_on.yaml",
        f"conf/task/{STUDY}.yaml",
        "report.py",
        "task.py",
    ]
    assert not (ROOT / "studies" / STUDY).exists(), "the page's study is an example, not one of the project's"
    return folder


@pytest.mark.slow  # runs the app several times: the longer checks
def test_the_pages_study_is_one_folder_the_app_finds_and_runs(study_lab: Path):
    """Its smoke version runs from the copy as the page says (no file outside its folder changed), each
    run writes its table and record, and the sweep's report.md ends with the study's section."""
    proc = outside_app(
        study_lab, "experiments.run", f"+experiment={STUDY}", "smoke=on", "hydra.sweep.dir=sweep"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    sweep = study_lab / "sweep"
    runs = pd.concat(pd.read_parquet(p) for p in sorted(sweep.rglob("run.parquet")))
    assert sorted(zip(runs["puzzle"], runs["seed"])) == [
        ("pentomino", 0),
        ("pentomino", 1),
        ("queens", 0),
        ("queens", 1),
    ]
    assert (runs["status"] == "ok").all() and (runs["task"] == STUDY).all()
    tables = pd.concat(pd.read_parquet(p) for p in sorted(sweep.rglob(f"{STUDY}.parquet")))
    assert len(tables) == 4 * 10  # task.samples=10 in the smoke version, four runs
    assert (runs["lowest"].to_numpy() >= 0).all()
    summary = pd.read_parquet(sweep / f"{STUDY}_summary.parquet").set_index("puzzle")
    assert summary.loc["queens", "count"] == summary.loc["pentomino", "count"] == 20
    assert summary.loc["queens", "min"] == tables[tables["puzzle"] == "queens"]["fitness"].min()
    report = (sweep / "report.md").read_text()
    assert "## Random floor" in report and report.rstrip().endswith(
        summary.reset_index().to_markdown(index=False).splitlines()[-1]
    )


@pytest.mark.slow  # runs the app several times: the longer checks
def test_the_pages_study_is_listed_and_refuses_a_bad_setting_in_one_line(study_lab: Path):
    shown = outside_app(study_lab, "experiments.run", "--help")
    assert shown.returncode == 0, shown.stderr
    groups = {line.split(":")[0]: line for line in shown.stdout.splitlines() if ": " in line}
    assert STUDY in groups["experiment"] and STUDY in groups["task"]
    assert "colour_sweep" in groups["experiment"]  # the project's studies, found beside it
    bad = outside_app(study_lab, "experiments.run", f"task={STUDY}", "task.samples=0")
    assert bad.returncode != 0
    assert bad.stderr.strip().splitlines()[-1] == "error: task.samples must be >= 1, got 0", bad.stderr
