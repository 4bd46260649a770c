"""A run's best board as text people can check: the piece-and-turn file reads back to the same board, and
the public viewers' board_edges string re-scores, by its letters alone, to the puzzle's own count."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from core.errors import InputError
from experiments import api
from puzzles.edge_matching import EdgeMatching
from puzzles.edge_matching.board import inner_edges
from puzzles.edge_matching.board_files import (
    VIEWER,
    board_edges,
    board_edges_url,
    read_board,
    score_board_edges,
    write_board,
    write_board_files,
)
from puzzles.edge_matching.eternity2 import Eternity2, Eternity2Like
from puzzles.edge_matching.piece_files import PieceList, write_piece_file

# sha256 of the viewer's default piece set, init.js `E2_PIECES` (jfbucas/eternityII-viewer): each piece's
# four letters (top right bottom left) at its smallest rotation, sorted, joined by commas.
VIEWER_SET_SHA256 = "6f19b5d05c9df9f095482f9145473c6787905d01ad96d12b019ead42b0456707"


@pytest.fixture(scope="module")
def official():
    """The official set with the mandatory starter piece placed, as `puzzle=eternity2` runs it."""
    return Eternity2()


def _random_board(puzzle, seed):
    """A random legal board of the puzzle (every genome decodes to one)."""
    return puzzle.decode(puzzle.space.random(np.random.default_rng(seed)))


@pytest.mark.parametrize(
    "make",
    [
        Eternity2,
        lambda: Eternity2Like(n=4, m=7, frame_colours=3, inner_colours=5, instance_seed=2),
        lambda: EdgeMatching(n=7, colours=10, instance_seed=1),  # the seed's rules: no turns, centre given
    ],
    ids=["eternity2", "eternity2_like_4x7", "edge_matching_no_turns"],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_a_board_file_reads_back_to_the_same_board(tmp_path, make, seed):
    puzzle = make()
    board = _random_board(puzzle, seed)
    path = write_board(puzzle, board, tmp_path / "best_board.txt")
    back = read_board(puzzle, path)
    assert back.n == board.n and back.m == board.m
    assert np.array_equal(back.piece, board.piece) and np.array_equal(back.rotation, board.rotation)
    puzzle.check(back)
    header = [line for line in path.read_text().splitlines() if line.startswith("# unmatched:")]
    assert header == [
        f"# unmatched: {puzzle.score_layout(board)['unmatched_edges']} of {inner_edges(puzzle.n, puzzle.m)} inner joins"
    ]
    if not puzzle.rotations:
        assert not back.rotation.any()


@pytest.mark.parametrize("seed", range(5))
def test_the_viewer_string_re_scores_to_the_puzzles_own_count(official, seed):
    genome = official.space.random(np.random.default_rng(seed))
    edges = board_edges(official, official.decode(genome))
    assert len(edges) == 4 * 256
    assert score_board_edges(edges, 16, 16) == 480 - official.fitness(genome)


def test_a_solved_generated_board_matches_every_join_in_the_viewer_string():
    puzzle = Eternity2Like(n=8, instance_seed=3)
    solved = puzzle.solution()
    assert solved is not None and puzzle.fitness(puzzle.encode(solved)) == 0
    assert score_board_edges(board_edges(puzzle, solved), 8, 8) == inner_edges(8) == 112
    spoiled = _random_board(puzzle, 0)
    assert score_board_edges(board_edges(puzzle, spoiled), 8, 8) == 112 - puzzle.fitness(
        puzzle.encode(spoiled)
    )


def test_a_rectangular_board_counts_its_rows_and_columns_apart():
    """4 rows of 7: a string read with the sides swapped would pair the wrong cells."""
    puzzle = Eternity2Like(n=4, m=7, frame_colours=3, inner_colours=5, instance_seed=2)
    solved = puzzle.solution()
    assert solved is not None
    assert score_board_edges(board_edges(puzzle, solved), 4, 7) == inner_edges(4, 7) == 45


def test_the_referee_counts_joins_by_hand():
    """Two cells side by side (1 x 2): the join is the first cell's right letter against the second's left;
    grey against grey never counts."""
    assert score_board_edges("abca" + "aacb", 1, 2) == 1  # b | b
    assert score_board_edges("abca" + "aacc", 1, 2) == 0  # b | c
    assert score_board_edges("aaaa" + "aaaa", 1, 2) == 0  # grey | grey
    assert score_board_edges("aaba" + "baaa", 2, 1) == 1  # bottom b over top b
    with pytest.raises(InputError, match="expected 8 letters"):
        score_board_edges("abc", 1, 2)


def test_the_official_set_is_the_viewers_default_set_with_letter_a_plus_colour(official):
    """Our colour numbers read as the viewer's letters give exactly its default piece set (so the link needs
    no motifs_order), and the starter piece in its cell reads the centre clue the viewer checks."""
    table = official.table  # [piece, turns, left top right bottom]
    canonical = []
    for piece in range(len(official.sides)):
        left, top, right, bottom = (chr(ord("a") + int(c)) for c in table[piece, 0])
        word = top + right + bottom + left
        canonical.append(min(word[k:] + word[:k] for k in range(4)))
    assert hashlib.sha256(",".join(sorted(canonical)).encode()).hexdigest() == VIEWER_SET_SHA256
    edges = board_edges(official, _random_board(official, 0))
    assert edges[135 * 4 : 136 * 4] == "ijjm"  # puzzle.js: the clue at cell 135 (row 8, column 7)


def test_the_link_opens_the_board_in_the_viewer(official):
    board = _random_board(official, 4)
    edges = board_edges(official, board)
    matched = 480 - official.score_layout(board)["unmatched_edges"]
    assert board_edges_url(official, board) == (
        f"{VIEWER}#puzzle=puzzlelab_{matched}&board_w=16&board_h=16&board_edges={edges}"
    )


def test_only_the_official_set_gets_the_viewer_file(tmp_path, official):
    generated = Eternity2Like(n=6)
    assert [p.name for p in write_board_files(generated, _random_board(generated, 0), tmp_path)] == [
        "best_board.txt"
    ]
    recoloured = np.where(official.sides == 1, 2, np.where(official.sides == 2, 1, official.sides))
    write_piece_file(
        tmp_path / "other.txt", PieceList(recoloured, 16)
    )  # colours 1 and 2 swapped: not the set
    other = Eternity2(pieces_file=str(tmp_path / "other.txt"), order="left top right bottom")
    assert [p.name for p in write_board_files(other, _random_board(other, 0), tmp_path)] == ["best_board.txt"]
    written = write_board_files(official, _random_board(official, 0), tmp_path)
    assert [p.name for p in written] == ["best_board.txt", "board_edges.txt"]


# ----------------------------------------------------------------------------- malformed files


def _edit(lines: list[str], case: str) -> list[str]:
    """The written file's lines with one fault; lines[0:6] is the header, lines[6:] the 16 rows."""
    rows = lines[6:]
    first = rows[0].split()
    if case == "a row missing":
        return lines[:-1]
    if case == "a row too many":
        return [*lines, rows[-1]]
    if case == "a cell missing":
        return [*lines[:6], " ".join(first[:-1]), *rows[1:]]
    if case == "a bad token":
        return [*lines[:6], " ".join(["12-3", *first[1:]]), *rows[1:]]
    if case == "a turn of 4":
        piece = first[0].split("/")[0]
        return [*lines[:6], " ".join([f"{piece}/4", *first[1:]]), *rows[1:]]
    if case == "a piece out of range":
        return [*lines[:6], " ".join(["256/0", *first[1:]]), *rows[1:]]
    if case == "a piece twice":
        return [*lines[:6], " ".join([first[1], *first[1:]]), *rows[1:]]
    if case == "another size":
        return [lines[0], "# board: 8 x 8", *lines[2:]]
    raise AssertionError(case)


@pytest.mark.parametrize(
    "case, says",
    [
        ("a row missing", "line 21: the file ends after 15 board rows"),
        ("a row too many", "line 23: a row beyond the board's 16"),
        ("a cell missing", "line 7: 15 cells, but a row of this board has 16"),
        ("a bad token", "line 7: '12-3' is not a cell"),
        ("a turn of 4", "line 7: .* turns 4 times"),
        ("a piece out of range", "line 7: piece 256 is out of range"),
        ("a piece twice", r"line 7: piece \d+ is placed twice \(also on line 7\)"),
        ("another size", "line 2: the file's board is 8 x 8, the puzzle's is 16 x 16"),
    ],
)
def test_a_malformed_board_file_is_refused_in_one_line(tmp_path, official, case, says):
    path = write_board(official, _random_board(official, 0), tmp_path / "best_board.txt")
    lines = path.read_text().splitlines()
    assert len(lines) == 6 + 16 and lines[5].startswith("#") and not lines[6].startswith("#")
    path.write_text("\n".join(_edit(lines, case)) + "\n")
    with pytest.raises(InputError, match=says) as err:
        read_board(official, path)
    assert "\n" not in str(err.value) and "best_board.txt line" in str(err.value)


def test_a_missing_board_file_is_refused_in_one_line(tmp_path, official):
    with pytest.raises(InputError, match="not found") as err:
        read_board(official, tmp_path / "nowhere.txt")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    "name, content, says",
    [
        ("picture.png", b"\x89PNG\r\n\x1a\n", r"not a text board file \(byte 0x89 at offset 0, not UTF-8\)"),
        ("zeros.bin", b"0/0 1/0\x00\x00", r"not a text board file \(byte 0x00 at offset 7\)"),
        ("latin1.txt", "# caf\xe9\n".encode("latin-1"), r"byte 0xe9 at offset 5, not UTF-8"),
        ("empty.txt", b"", "empty.txt: no board rows; the puzzle's board has 16 rows of 16 cells"),
        ("comments.txt", b"# board: 16 x 16\n", "comments.txt: no board rows"),
        ("folder", None, "is a folder, not a file"),
    ],
)
def test_a_board_file_that_is_no_text_or_no_board_is_refused_in_one_line(
    tmp_path, official, name, content, says
):
    path = tmp_path / name
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    with pytest.raises(InputError, match=says) as err:
        read_board(official, path)
    assert "\n" not in str(err.value) and "best_board.txt" in str(err.value)


# ----------------------------------------------------------------------------- through the app


@pytest.mark.slow
def test_a_run_of_the_official_puzzle_leaves_board_files_that_re_score_to_its_record(tmp_path):
    """`python -m experiments.run puzzle=eternity2 optimizer=greedy budget.evaluations=1`, in this process."""
    row = api.run(puzzle="eternity2", optimizer="greedy", overrides=["budget.evaluations=1"], out=tmp_path)
    run_dir = Path(row["run_dir"])
    puzzle = Eternity2()
    board = read_board(puzzle, run_dir / "best_board.txt")
    puzzle.check(board)
    assert puzzle.score_layout(board)["unmatched_edges"] == row["best"] > 0
    text = (run_dir / "board_edges.txt").read_text().splitlines()
    edges, url = (line for line in text if not line.startswith("#"))
    assert score_board_edges(edges, 16, 16) == 480 - row["best"] == row["score.matched_edges"]
    assert url.startswith(VIEWER) and url.endswith(f"&board_edges={edges}")


def test_a_run_of_a_generated_puzzle_leaves_only_the_board_file(tmp_path):
    row = api.run(
        puzzle="eternity2_like", optimizer="random_search", overrides=["budget.evaluations=50"], out=tmp_path
    )
    run_dir = Path(row["run_dir"])
    assert (run_dir / "best_board.txt").is_file() and not (run_dir / "board_edges.txt").exists()
    puzzle = Eternity2Like()
    assert (
        puzzle.score_layout(read_board(puzzle, run_dir / "best_board.txt"))["unmatched_edges"] == row["best"]
    )
