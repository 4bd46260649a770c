"""Every puzzle config offers what it declares: an instance satisfies the Protocol of each face in
its `offers` (core.faces.PROTOCOL), so an optimiser paired by declaration finds every attribute and
method it calls. A new puzzle config is covered without touching this test."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

from core.faces import PROTOCOL, Face, LocalSearchPuzzle
from experiments.build import build
from experiments.pairing import offers
from experiments.run import setup
from experiments.schema import CONFIG_DIR

PUZZLES = sorted(
    p.relative_to(CONFIG_DIR / "puzzle").with_suffix("").as_posix()
    for p in (CONFIG_DIR / "puzzle").rglob("*.yaml")
)


def puzzle_of(name: str):
    setup()
    GlobalHydra.instance().clear()
    with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
        cfg = compose("config", overrides=[f"puzzle={name}"])
    return build(cfg.puzzle, "puzzle")


@pytest.mark.parametrize("name", PUZZLES)
def test_every_puzzle_satisfies_the_protocol_of_each_face_it_offers(name):
    puzzle = puzzle_of(name)
    declared = offers(puzzle)
    assert Face.FITNESS in declared or Face.EXACT in declared, f"{name} offers no face a task runs"
    for face in declared:
        assert isinstance(puzzle, PROTOCOL[face]), (
            f"puzzle={name} declares {face.name} but lacks a member of {PROTOCOL[face].__name__}"
        )


@pytest.mark.parametrize("name", PUZZLES)
def test_a_window_face_comes_with_a_window_kernel(name):
    puzzle = puzzle_of(name)
    if Face.WINDOWS in offers(puzzle):
        assert isinstance(puzzle, LocalSearchPuzzle)
        face = puzzle.local_search()
        assert face is None or {"window", "plateau"} <= set(face.kernels)


def test_a_class_that_lacks_a_member_fails_the_protocol():
    class Half:
        name = "half"

        def fitness(self, genome):
            return 0.0

    assert not isinstance(Half(), PROTOCOL[Face.FITNESS])
    assert not isinstance(Half(), PROTOCOL[Face.LOCAL_SEARCH])
