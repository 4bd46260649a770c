"""Hydra finds each study's configs in its own folder (studies/<name>/conf/<group>/<name>.yaml), so a
study is one folder: its task, report, plots and configs together, and `+experiment=<name>`,
`task=<name>` and `smoke=on` find them as they find configs/'s. Hydra calls this plugin whenever it
builds a search path (the app, `initialize_config_dir` in tests and the API); it appends each study's
conf/ after configs/, so a name in configs/ would shadow a study's (tests/studies/test_study_configs.py
refuses one).

The folders are those of the `studies` package Python imports (located, not imported: Hydra loads
every plugin module at each scan), so a config and the class its `_target_` names come from the same
folder, in a checkout, an installed copy or a user's copy of the project alike.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hydra.core.config_search_path import ConfigSearchPath
from hydra.plugins.search_path_plugin import SearchPathPlugin

PACKAGE = "studies"
PROVIDER = "puzzlelab-study"


def studies_roots() -> list[Path]:
    """The folders of the `studies` package as Python would import it (none where it does not)."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):  # a broken or half-imported package: no studies to offer
        return []
    return [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []


def study_config_dirs(roots: list[Path] | None = None) -> list[Path]:
    """Each study folder's conf/ directory under `roots` (the `studies` package's folders), in name
    order; a study without one adds none."""
    found = {
        conf.resolve()
        for root in (studies_roots() if roots is None else roots)
        for conf in root.glob("*/conf")
        if conf.is_dir()
    }
    return sorted(found, key=lambda conf: (conf.parent.name, str(conf)))


class StudyConfigs(SearchPathPlugin):
    """Appends file://studies/<name>/conf for every study that has configs of its own."""

    def manipulate_search_path(self, search_path: ConfigSearchPath) -> None:
        for conf in study_config_dirs():
            search_path.append(provider=f"{PROVIDER}-{conf.parent.name}", path=f"file://{conf}")
