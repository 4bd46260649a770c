"""Neighbourhood moves on a genome (order, then orientation per item), as small free functions.

Each returns a new genome and leaves its input alone, so callers can keep the current one.
"""

from __future__ import annotations

import numpy as np

from core.space import PermutationSpace


def reverse(genome: np.ndarray, i: int, j: int) -> np.ndarray:
    """2-opt move: reverse the order between positions i and j inclusive."""
    out = genome.copy()
    out[i : j + 1] = genome[i : j + 1][::-1]
    return out


def swap(genome: np.ndarray, i: int, j: int) -> np.ndarray:
    """Exchange the items at positions i and j."""
    out = genome.copy()
    out[i], out[j] = genome[j], genome[i]
    return out


def insert(genome: np.ndarray, i: int, j: int, n: int) -> np.ndarray:
    """Take the item at position i and put it back at position j (order part of length n)."""
    order = list(genome[:n])
    order.insert(j, order.pop(i))
    out = genome.copy()
    out[:n] = order
    return out


def reorient(genome: np.ndarray, space: PermutationSpace, item: int, value: int) -> np.ndarray:
    """Give one item another orientation."""
    out = genome.copy()
    out[space.n + item] = value
    return out


def random_turn(genome: np.ndarray, space: PermutationSpace, rng: np.random.Generator) -> np.ndarray:
    """Another orientation for a random item that has one, so the move never re-scores the genome."""
    item = int(space.turnable[rng.integers(len(space.turnable))])
    now = int(genome[space.n + item])
    value = int(rng.integers(space.orientations[item] - 1))
    return reorient(genome, space, item, value + (value >= now))


def two_positions(n: int, rng: np.random.Generator) -> tuple[int, int]:
    """Two distinct positions, uniformly (cheaper than rng.choice on this hot path)."""
    i, j = int(rng.integers(n)), int(rng.integers(n - 1))
    return i, j + (j >= i)


def random_move(
    genome: np.ndarray, space: PermutationSpace, kind: str, rng: np.random.Generator
) -> np.ndarray:
    """A random neighbour by one move of the given kind."""
    n = space.n
    if kind == "orientation":
        return random_turn(genome, space, rng)
    i, j = two_positions(n, rng)
    if kind == "insert":
        return insert(genome, i, j, n)
    i, j = min(i, j), max(i, j)
    return swap(genome, i, j) if kind == "swap" else reverse(genome, i, j)
