"""Tests of puzzles/: the packing families (pentomino, calendar, Galakub, rectangles, the strip, the packing suite)."""
