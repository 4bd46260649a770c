"""The packing suite (configs/puzzle/packing/): every instance's known optimum, established here.

Perfect rectangles (free widths 3-6) are shown reachable in tests/puzzles/test_rectangles.py; the seed's strip
optima (12 and 10 gaps) in tests/puzzles/test_pentomino_exhaustive.py and tests/oracles/strip_bound.py. Here:
widths 7 and 8 (the area bound, met by a genome found by the suite's own method and checked cell by cell), two
sets of pentominoes (two exact tilings stacked, turned into a genome), the 35 hexominoes, and a piece
set read from a file.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import InputError
from core.space import Budget
from experiments.build import build
from heuristics.compiled import HybridVLNS
from heuristics.minimize import minimize
from puzzles.packing import Packing, box
from puzzles.pentomino import PentominoStrip
from puzzles.pieces import orientations, read_pieces
from puzzles.rectangles import strip_genome
from tests.oracles.exact_solve import solve
from tests.oracles.packing_check import check_packing

# Found by optimizer=sa_repack (seed 0); the certificate is the decode, not the search.
WITNESS = {
    7: [1, 11, 9, 2, 10, 8, 4, 7, 3, 6, 5, 0, 0, 3, 1, 4, 3, 2, 0, 1, 2, 0, 0, 3],
    8: [8, 3, 4, 0, 9, 2, 7, 5, 6, 11, 10, 1, 1, 0, 1, 2, 1, 3, 3, 1, 0, 0, 0, 2],
}


def assert_valid_strip(strip: PentominoStrip, genome: np.ndarray) -> None:
    """The decoded grid holds every piece once, in one of its allowed images, nothing overlapping."""
    grid = strip.decode(genome).grid
    placed = [(p, np.argwhere(grid == piece.id)) for p, piece in enumerate(strip.pieces)]
    board = np.argwhere(np.ones_like(grid, dtype=bool))
    check_packing(
        board, [p.cells for p in strip.pieces], placed, mirror=True, open_cells=np.argwhere(grid == 0)
    )


@pytest.mark.parametrize("width, bound", [(7, 3), (8, 4)])
def test_free_widths_7_and_8_reach_the_area_bound(width, bound):
    """60 cells need 9 rows of 7 (63 cells) or 8 rows of 8 (64): no packing has fewer than 3 or 4
    gaps, and a genome packs with exactly that many, so it is the optimum."""
    strip = PentominoStrip(width=width, orientations="free")
    genome = np.array(WITNESS[width])
    assert strip.area_bound == bound == strip.known_optimum
    assert strip.space.contains(genome) and strip.fitness(genome) == bound
    assert_valid_strip(strip, genome)


@pytest.mark.parametrize("width", [6, 10])
def test_two_sets_stack_two_rectangles(width):
    """Two 6x10 (or 10x6) tilings, one above the other, decode from their genome with 0 gaps."""
    strip = PentominoStrip(width=width, orientations="free", copies=2)
    model = Packing(box(60 // width, width), read_pieces("pentominoes"))
    tiles = [model.grid(owner) for owner in solve(model, model.cover(), limit=2)]
    tiling = np.vstack([tiles[0], np.where(tiles[1] > 0, tiles[1] + 12, 0)])
    genome = strip_genome(strip, tiling)
    assert strip.fitness(genome) == 0 == strip.known_optimum
    np.testing.assert_array_equal(strip.decode(genome).grid, tiling)


def test_the_35_hexominoes():
    """35 free hexominoes (OEIS A000105): six connected cells each, no two alike under the square's
    symmetries; 11 of them cover 4 and 2 cells of a checkerboard's colours (so no rectangle exists),
    and on width 15 no known optimum (the area bound is 0)."""
    pieces = read_pieces("hexominoes")
    keys = set()
    for piece in pieces:
        cells = {tuple(c) for c in piece.cells}
        seen, todo = set(), [next(iter(cells))]
        while todo:
            r, c = todo.pop()
            if (r, c) in seen:
                continue
            seen.add((r, c))
            todo += [q for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)) if q in cells]
        assert len(cells) == 6 == len(seen)
        keys.add(min(tuple(map(tuple, o)) for o in orientations(piece)))
    assert len(pieces) == len(keys) == 35
    colour_gap = [abs(2 * int((p.cells.sum(axis=1) % 2 == 0).sum()) - 6) for p in pieces]
    assert sorted(colour_gap) == [0] * 24 + [2] * 11  # why no rectangle exists: 11 odd terms of 2
    strip = PentominoStrip(width=15, orientations="free", pieces="hexominoes")
    assert strip.known_optimum is None and strip.area_bound == 0


@pytest.mark.slow
def test_a_piece_file_packs_with_the_strong_method(tmp_path):
    """Any polyomino set from a file: the five tetrominoes twice on width 4 pack into a 4x10
    rectangle, found by the strong method and checked cell by cell."""
    path = tmp_path / "tetrominoes.txt"
    path.write_text("1 I\n####\n\n2 O\n##\n##\n\n3 T\n###\n.#.\n\n4 S\n.##\n##.\n\n5 L\n###\n#..\n")
    strip = PentominoStrip(width=4, orientations="free", pieces=str(path), copies=2)
    result = minimize(
        strip.fitness,
        strip.space,
        HybridVLNS(t_start=8, t_end=1, period=2e5, every=1000, steps=1, size=80),
        Budget(evaluations=50_000, target=0),
        seed=0,
        face=strip.local_search(),
    )
    assert result.best == strip.fitness(result.best_genome) == 0
    assert_valid_strip(strip, result.best_genome)


def test_bad_copies_is_one_clear_line():
    with pytest.raises(InputError, match="puzzle.copies"):
        PentominoStrip(copies=0)


@pytest.mark.slow
def test_every_suite_instance_composes(compose_config):
    """Each instance of the config group builds, with the known optimum its comment states."""
    expected = {
        "free3": 0,
        "free4": 0,
        "free5": 0,
        "free6": 0,
        "free7": 3,
        "free8": 4,
        "fixed6": 12,
        "fixed7": 10,
        "double6": 0,
        "double10": 0,
        "hexominoes15": None,
    }
    for name, optimum in expected.items():
        cfg = compose_config(f"puzzle=packing/{name}")
        assert build(cfg.puzzle, "puzzle").known_optimum == optimum


def _sa_repack_run(strip: PentominoStrip, seed: int, budget: Budget):
    """One run of the packing's strong method, with the settings of configs/optimizer/sa_repack.yaml."""
    optimizer = HybridVLNS(t_start=8, t_end=1, period=2e5, every=1000, steps=1, size=80)
    return minimize(strip.fitness, strip.space, optimizer, budget, seed, face=strip.local_search())


def test_sa_repack_repeats_its_trace_and_spends_the_budget_exactly():
    """Same seed, same trace (evaluations, best); an evaluation budget is spent to the evaluation, and
    the best genome scores the best on the fitness face."""
    strip = PentominoStrip(width=6, orientations="free", copies=2)
    one, two = (_sa_repack_run(strip, 5, Budget(evaluations=30_000)) for _ in range(2))
    assert [(e, v) for e, _, v in one.trace] == [(e, v) for e, _, v in two.trace]
    assert one.evaluations == 30_000 and strip.fitness(one.best_genome) == one.best
    assert [v for _, _, v in one.trace] == sorted({v for _, _, v in one.trace}, reverse=True)
