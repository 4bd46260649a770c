"""Tests of heuristics/: the generic optimisers, their moves, the compiled chains and the exact-cover engine."""
