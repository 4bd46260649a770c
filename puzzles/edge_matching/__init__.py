"""Edge matching (seed 001's pseudo Eternity II, and Eternity II's rules), all in one package.

    board.py        the vocabulary: sides, turn tables, `Layout`, hints, neighbours, grey patterns and
                    the edge rule `unmatched_edge` (`unmatched_join` inside compiled kernels)
    instances.py    generated instances (the seed's palette cycles, uniform) and `Instance`
    piece_files.py  piece lists as text files (published instances such as Eternity II)
    board_files.py  boards as text files (a run's best_board.txt, read back as a start)
    eternity2.py    the official set and generated boards under Eternity II's rules
    fitness.py      the compiled fitness (unmatched inner edges) optimisers minimise
    scores.py       the scores users read (match rate, edge score), with numpy
    pictures.py     each piece as four coloured triangles, unmatched sides in red
    puzzle.py       `EdgeMatching`, the puzzle that ties them together and offers its faces
    board_moves.py  the local-search face: compiled swaps and turns, priced from the joins they touch
    face_instance.py  the face's instance: colours shown, neighbours, classes, free cells, the move mix
    face_states.py  the face's board state: random, made legal, checked
    vlns.py         the face's large step: an exact reassignment of non-adjacent cells
    windows.py      the face's window kernel: blocks of cells lifted and re-filled exactly
    plateau.py      the face's plateau kernel: destroy-and-repair that walks plateaus (its operators:
                    plateau_operators.py; its repairs: plateau_repair.py)
    kernel_rows.py  the face's rows of the kernel table (window, plateau: settings and control slots)
    pipelines.py    the family's optimisers: beam_refine, plateau_lns, portfolio (a built start, then chains)
    exact_boards.py task=exact on a board: perfect boards counted, or the optimum proved
    sweep.py        the colour sweep's colour counts and rows (seed_sweep.py: the seed's instance by hand)
    solvers/        the family's own solvers: greedy, beam, backtrack, perfect_search, board_file

An inner edge is unmatched when its two sides differ or carry the border colour 0: that rule is
`board.unmatched_edge`, used by the compiled fitness, the scores, the pictures, the local-search face
and every solver.
"""

from puzzles.edge_matching.board import Layout, colour_board, inner_edges, turn_layout, turn_table
from puzzles.edge_matching.fitness import count_unmatched
from puzzles.edge_matching.instances import Instance, generate
from puzzles.edge_matching.piece_files import PieceList, read_piece_file, write_piece_file
from puzzles.edge_matching.puzzle import EdgeMatching
from puzzles.edge_matching.scores import SCORES, board_scores

__all__ = [
    "EdgeMatching",
    "Layout",
    "Instance",
    "PieceList",
    "SCORES",
    "board_scores",
    "colour_board",
    "count_unmatched",
    "generate",
    "inner_edges",
    "read_piece_file",
    "turn_layout",
    "turn_table",
    "write_piece_file",
]
