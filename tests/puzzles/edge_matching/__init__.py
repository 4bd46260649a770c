"""Tests of puzzles/edge_matching/: boards, Eternity II's rules, and the family's solvers and pipelines."""
