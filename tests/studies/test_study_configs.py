"""A study is one folder, configs included (issue 57): Hydra finds studies/<name>/conf through the search
path plugin hydra_plugins/puzzlelab_studies, after configs/, and every listing of a group's configs
(the command line's check, --help, the tests' parametrisations) sees them."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra.core.plugins import Plugins
from hydra.plugins.search_path_plugin import SearchPathPlugin

from experiments.overrides import check, options
from experiments.schema import CONFIG_DIR, project_config_dirs
from hydra_plugins.puzzlelab_studies.study_configs import study_config_dirs
from tests import ROOT

MOVED = {  # each study's configs, once in configs/, now in its folder
    "colour_sweep": ("task/colour_sweep", "experiment/colour_sweep", "smoke_study/colour_sweep_on"),
    "hardness_peak": ("task/hardness_peak", "experiment/hardness_peak", "smoke_study/hardness_peak_on"),
}


def yaml_names(root: Path) -> set[str]:
    return {p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.yaml")}


def test_a_study_folder_with_a_conf_directory_is_found_and_one_without_is_not(tmp_path):
    for name in ("b_study", "a_study", "no_configs", "conf_is_a_file"):
        (tmp_path / name).mkdir()
    (tmp_path / "a_study" / "conf").mkdir()
    (tmp_path / "b_study" / "conf" / "task").mkdir(parents=True)
    (tmp_path / "conf_is_a_file" / "conf").write_text("")
    assert study_config_dirs([tmp_path]) == [tmp_path / "a_study" / "conf", tmp_path / "b_study" / "conf"]
    assert study_config_dirs([tmp_path / "absent"]) == []


def test_the_project_studies_configs_are_in_their_folders_and_on_hydras_search_path(compose_config):
    found = {conf.parent.name: conf for conf in study_config_dirs()}
    assert set(MOVED) <= set(found) and project_config_dirs()[0] == CONFIG_DIR
    for study, names in MOVED.items():
        assert found[study] == ROOT / "studies" / study / "conf"
        assert set(names) <= yaml_names(found[study])
        assert not set(names) & yaml_names(CONFIG_DIR), f"{study}'s configs are in configs/ too"
    plugins = [type(p).__name__ for p in [spp() for spp in Plugins.instance().discover(SearchPathPlugin)]]
    assert "StudyConfigs" in plugins
    cfg = compose_config("+experiment=hardness_peak", "smoke=on")
    assert (
        cfg.task._target_ == "studies.hardness_peak.task.HardnessPeak" and cfg.study == "hardness_peak_smoke"
    )
    assert compose_config("task=colour_sweep").task._target_ == "studies.colour_sweep.task.ColourSweep"
    assert {"colour_sweep", "hardness_peak"} <= set(options("task")) & set(options("experiment"))


def test_no_study_config_shadows_another_config():
    """Hydra takes the first file of a name on its search path and says nothing: configs/ would win
    over a study's file of the same group and name, and one study over the next."""
    seen: dict[str, Path] = {}
    clashes = []
    for root in project_config_dirs():
        for name in sorted(yaml_names(root)):
            if name.split("/")[0] in ("hydra", "schema"):
                continue
            if name in seen:
                clashes.append(f"{name}: {seen[name]} and {root}")
            seen.setdefault(name, root)
    assert not clashes, "configs of one name in two places: " + "; ".join(clashes)


@pytest.mark.parametrize("argv", [["+experiment=colour_sweep", "smoke=on"], ["task=hardness_peak"]])
def test_the_command_line_check_accepts_a_study_config(argv):
    check(argv)  # raises InputError (one line) for a config no directory offers
