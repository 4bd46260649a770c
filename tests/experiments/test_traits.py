"""Traits, not names (issue 57, item 2): what the app must know of a task, a launcher or a sweeper is
read from its class (a declared attribute, or the class object itself), never from a piece of its name,
which a subclass, a user's own class or a move of a module would quietly fool."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from omegaconf import OmegaConf

from experiments import overrides
from experiments.build import named_class
from experiments.run import setup
from experiments.schema import CONFIG_DIR, project_config_dirs
from experiments.tasks import Task, trait
from tests import ROOT

PRODUCT = ("experiments", "core", "heuristics", "puzzles", "hydra_plugins")
NAME_TESTS = ("endswith", "startswith")
NAMERS = ("_target_", "target", "launcher", "sweeper")  # what holds a class's dotted name


def _class_suffix(node: ast.expr) -> bool:
    """A string (or a tuple of them) such as ".Tune": the tail of a dotted class path."""
    if isinstance(node, ast.Tuple):
        return any(_class_suffix(item) for item in node.elts)
    text = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""
    return text.startswith(".") and text[1:2].isupper()


def name_tests(path: Path, root: Path = ROOT) -> list[str]:
    """Where a module tests a class by its name, as "path:line: code": a suffix or prefix test of what
    names a class (`..._target_...endswith(...)`, `launcher.startswith(...)`) or of a class path's tail
    (`.endswith(".Tune")`), and a word looked for in one (`"joblib" in str(launcher._target_)`)."""
    text = path.read_text()
    found = []
    for node in ast.walk(ast.parse(text, str(path))):
        hit = False
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in NAME_TESTS
        ):
            subject = ast.get_source_segment(text, node.func.value) or ""
            hit = any(word in subject for word in NAMERS) or any(_class_suffix(arg) for arg in node.args)
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            word = isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)
            sides = [ast.get_source_segment(text, side) or "" for side in node.comparators]
            hit = word and any(name in side for side in sides for name in NAMERS)
        if hit:
            found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.get_source_segment(text, node)}")
    return found


def test_the_scan_finds_each_kind_of_name_test(tmp_path):
    """The scan below is only as good as what it catches: each form the code used before, and none of
    the honest look-ups beside them (a key present, a file's suffix)."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "a = str(cfg.get('_target_', '')).endswith('.Tune')\n"
        "b = name.endswith(('.Exact', '.HardnessPeak'))\n"
        "c = 'joblib' in str(launcher.get('_target_', ''))\n"
        "d = 'joblib' not in str(hc.launcher._target_)\n"
        "e = 'Slurm' in launcher_target\n"
        "ok = '_target_' in base or k not in ('defaults', '_target_') or path.endswith('.csv')\n"
        "ok = key.startswith('hydra.') or 'Study.stop' not in str(err)\n"
    )
    lines = [hit.split(":")[1] for hit in name_tests(sample, tmp_path)]
    assert lines == ["1", "2", "3", "4", "5"]


def test_product_code_tests_no_class_or_launcher_by_name():
    """0 string tests of class or launcher names in product code (issue 57's target): a trait is a
    declared attribute (experiments.tasks.Task) or the class object itself (experiments.overrides)."""
    found = [
        hit for floor in PRODUCT for path in sorted((ROOT / floor).rglob("*.py")) for hit in name_tests(path)
    ]
    assert not found, "tests of a class by its name; read a trait from the class instead:\n" + "\n".join(
        found
    )


def _task_classes() -> dict[str, type]:
    """Each task config's name -> the class its `_target_` names (configs/task/*.yaml and each study's
    conf/task/*.yaml)."""
    classes = {}
    for path in sorted(p for d in project_config_dirs() for p in (d / "task").glob("*.yaml")):
        found = named_class(OmegaConf.load(path))
        assert found is not None, f"{path.name} names no class that imports"
        classes[path.stem] = found
    return classes


def test_every_task_declares_its_traits_on_its_class():
    classes = _task_classes()
    assert {"optimise", "exact", "hardness_peak", "colour_sweep", "tune"} <= set(classes)
    assert all(issubclass(cls, Task) for cls in classes.values()), (
        "a task that is no Task has only the defaults"
    )
    budgeted = {name for name, cls in classes.items() if cls.budgeted}
    tuning = {name for name, cls in classes.items() if cls.tuning}
    assert not {"exact", "hardness_peak"} & budgeted  # node caps of their own
    assert {"optimise", "colour_sweep", "tune"} <= budgeted
    assert tuning == {"tune"} == {name for name, cls in classes.items() if cls.races}


def test_a_trait_is_read_from_the_class_a_config_names():
    assert trait({"_target_": "experiments.tasks.exact.Exact"}, "budgeted") is False
    assert trait({"_target_": "experiments.tasks.tune.Tune"}, "tuning") is True
    # a user's task that declares nothing, none at all, or one that does not import: Task's defaults
    assert trait({"_target_": "collections.OrderedDict"}, "budgeted") is Task.budgeted
    assert trait(None, "tuning") is Task.tuning
    assert trait({"_target_": "no.such.module.Exact"}, "budgeted") is Task.budgeted  # not by its name
    with pytest.raises(AttributeError):
        trait({"_target_": "experiments.tasks.exact.Exact"}, "budgetted")  # a misspelt trait fails


def test_a_study_declares_its_report_section_on_its_task():
    """The generic report finds a study's section through its task's hook, not by importing the study
    (experiments/report.py `sections`); a task without a section of its own has Task's (None)."""
    classes = _task_classes()
    own = {
        name
        for name, cls in classes.items()
        if cls.report_section.__func__ is not Task.report_section.__func__
    }
    assert {"colour_sweep", "hardness_peak"} <= own
    assert not {"optimise", "exact", "tune"} & own
    assert Task.report_section([], Path("."), {}, None, {}) is None
    hook = trait({"_target_": "studies.colour_sweep.task.ColourSweep"}, "report_section")
    study = {"study": "colour_sweep", "smoke": False, "config": {"budget": {"evaluations": 10}}}
    assert hook([], Path("."), study, None, {}) is None  # no colour sweep points under no folder: no section


def _hydra(*choices: str):
    """The hydra node the app composes with these overrides."""
    setup()
    GlobalHydra.instance().clear()
    with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
        return compose("config", overrides=list(choices), return_hydra_config=True).hydra


def test_launchers_and_sweepers_are_told_by_their_class():
    local, slurm, optuna = _hydra(), _hydra("hydra/launcher=slurm"), _hydra("hydra/sweeper=optuna")
    assert overrides.local_workers(local.launcher) and not overrides.local_workers(slurm.launcher)
    assert overrides.runs_every_combination(local.sweeper)
    assert not overrides.runs_every_combination(optuna.sweeper)
    # a name that merely contains the word is no launcher of local workers (the old substring test said so)
    assert not overrides.local_workers(OmegaConf.create({"_target_": "joblib.parallel.Parallel"}))
    assert not overrides.runs_every_combination(OmegaConf.create({"_target_": "my.BasicSweeper"}))


def test_a_subclass_has_its_parents_launcher_traits(monkeypatch):
    """A user's launcher built on joblib's, named otherwise, runs local workers all the same. Built
    after Hydra's plugin scan, which loads plugin modules afresh (a class object kept from before it is
    not the launcher's): the traits look their classes up at each call for that reason."""
    _hydra()
    mine = type("MyLauncher", overrides.local_worker_launchers(), {})
    monkeypatch.setattr(sys.modules[__name__], "MyLauncher", mine, raising=False)
    assert overrides.local_workers(OmegaConf.create({"_target_": f"{__name__}.MyLauncher"}))


def test_the_app_prints_the_budget_only_for_a_budgeted_task(tmp_path):
    """task=exact has caps of its own: no budget line; task=optimise says the budget in force."""
    from tests.experiments.test_bad_input import run_forked

    exact = run_forked(["puzzle=queens", "task=exact", f"hydra.run.dir={tmp_path}/exact"], tmp_path)
    assert exact.returncode == 0, exact.stderr
    assert not any(line.startswith("budget:") for line in exact.stdout.splitlines()), exact.stdout
    optimise = run_forked(
        [
            "puzzle=queens",
            "optimizer=random_search",
            "budget.evaluations=10",
            f"hydra.run.dir={tmp_path}/optimise",
        ],
        tmp_path,
    )
    assert optimise.returncode == 0, optimise.stderr
    assert optimise.stdout.splitlines()[0] == "budget: 10 evaluations", optimise.stdout
