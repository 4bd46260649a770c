"""Puzzles: pieces, boards, decoders, fitness functions, pictures and exact-cover models."""
