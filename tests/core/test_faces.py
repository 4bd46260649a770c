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


@pytest.mark.slow
@pytest.mark.parametrize("name", PUZZLES)
def test_every_puzzle_satisfies_the_protocol_of_each_face_it_offers(name):
    puzzle = puzzle_of(name)
    declared = offers(puzzle)
    assert Face.FITNESS in declared or Face.EXACT in declared, f"{name} offers no face a task runs"
    for face in declared:
        assert isinstance(puzzle, PROTOCOL[face]), (
            f"puzzle={name} declares {face.name} but lacks a member of {PROTOCOL[face].__name__}"
        )


@pytest.mark.slow
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


def test_offers_never_promises_a_face_the_pieces_rule_out(tmp_path):
    """Pieces with no grey frame give no local-search face: the instance does not offer it (its class
    does), and the app refuses a compiled optimiser in one line before any work."""
    from experiments.pairing import offers
    from puzzles.edge_matching import EdgeMatching
    from tests.experiments.test_experiment_run import run_app

    path = tmp_path / "no_frame.txt"
    path.write_text("# size: 2\n# order: left top right bottom\n1 2 3 4\n2 3 4 1\n3 4 1 2\n4 1 2 3\n")
    puzzle = EdgeMatching(generator="file", pieces_file=str(path), fix_centre=False)
    assert Face.LOCAL_SEARCH in offers(EdgeMatching) and Face.LOCAL_SEARCH not in offers(puzzle)
    assert puzzle.local_search() is None and Face.BOARD in offers(puzzle)
    proc = run_app(
        "puzzle=edge_matching",
        "puzzle.generator=file",
        f"puzzle.pieces_file={path}",
        "puzzle.fix_centre=false",
        "optimizer=sa_compiled",
        f"hydra.run.dir={tmp_path / 'run'}",
    )
    assert proc.returncode != 0 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert (
        "needs a local-search face, which puzzle=edge_matching does not offer with these pieces"
        in proc.stderr
    )
