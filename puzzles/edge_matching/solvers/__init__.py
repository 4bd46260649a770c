"""The edge-matching family's own solvers: they read its board (grey frame, turns, pre-placed pieces).

greedy (the seed's scoring rule), beam (beam search), backtrack (deepening and exact search),
perfect_search (the count of perfect boards), cpsat (an independent CP-SAT model of perfect boards),
board_file (a board read from a file). They may drive a generic engine of heuristics/; heuristics/
never imports them.
"""
