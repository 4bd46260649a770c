"""Every YAML in configs/ and in each study's conf/ composes and builds (the lightning-hydra-template's check): a default that
drifts from its constructor, a misspelt key or a missing module fails here, not in a user's run."""

from __future__ import annotations

import pytest

from experiments.build import build
from experiments.overrides import options as choices
from experiments.schema import component_targets, project_config_dirs

COMPONENTS = ("puzzle", "optimizer", "task")


@pytest.mark.slow
@pytest.mark.parametrize("group, name", [(g, n) for g in COMPONENTS for n in choices(g)])
def test_every_component_config_composes_and_builds(compose_config, group, name):
    cfg = compose_config(f"{group}={name}")
    from hydra.utils import get_object

    assert type(build(cfg[group], group)) is get_object(cfg[group]["_target_"])


@pytest.mark.parametrize("name", choices("experiment"))
def test_every_experiment_composes_and_builds(compose_config, name):
    cfg = compose_config(f"+experiment={name}")
    for group in COMPONENTS:
        assert build(cfg[group], group) is not None


@pytest.mark.slow
def test_the_schema_default_is_the_constructor_default(compose_config):
    # the drift this layout prevents: EdgeMatching(colours=...) once disagreed with its YAML
    import inspect

    from hydra.utils import get_object

    for (group, name), (config_dir, target) in {
        key: (d, target) for d in project_config_dirs() for key, target in component_targets(d).items()
    }.items():
        cfg = compose_config(f"{group}={name}")
        for key, param in inspect.signature(get_object(target)).parameters.items():
            if param.default is not inspect.Parameter.empty and key in cfg[group]:
                given = cfg[group][key]
                declared = list(param.default) if isinstance(param.default, tuple) else param.default
                overridden = key in (config_dir / group / f"{name}.yaml").read_text()
                assert overridden or given == declared, (group, name, key)
