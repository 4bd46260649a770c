"""A tiny counter-free RNG that lives in a numpy array, for compiled kernels.

Why not numba's built-in ``np.random``: its state is global per thread, so two chains running on two
threads, or one chain run in several chunks, cannot be resumed or replayed independently. Here the
whole generator state is one ``uint64`` in a 1-element array that the caller owns: a chunk picks up
exactly where the previous one stopped, the same seed gives the same stream on any thread, and the
state can be copied, saved or split per chain.

Generator: xorshift64* (Marsaglia's xorshift with a multiplicative output scramble; Vigna 2014),
seeded through splitmix64 so that nearby seeds give unrelated streams and the state is never 0.
"""

import numpy as np
from numba import njit, uint64

_MULT = np.uint64(2685821657736338717)
_S12 = np.uint64(12)
_S25 = np.uint64(25)
_S27 = np.uint64(27)
_S11 = np.uint64(11)
_S32 = np.uint64(32)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53


def splitmix64(x):
    """One splitmix64 step in Python integers: spreads a small seed over 64 bits."""
    x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


def make_rng(seed, stream=0):
    """A fresh generator state for (seed, stream); stream separates chains that share a seed."""
    s = splitmix64(
        splitmix64(int(seed) & 0xFFFFFFFFFFFFFFFF) ^ (int(stream) * 0xD1B54A32D192ED03 & 0xFFFFFFFFFFFFFFFF)
    )
    return np.array([s or 1], dtype=np.uint64)


@njit(inline="always")
def next_u64(rng):
    """Advance the state in rng[0] and return 64 scrambled bits."""
    x = rng[0]
    x ^= x >> _S12
    x ^= x << _S25
    x ^= x >> _S27
    rng[0] = x
    return x * _MULT


@njit(inline="always")
def randint(rng, n):
    """Uniform integer in [0, n) (n < 2**32; the bias of the multiply-shift is below 2**-32)."""
    return np.int64(((next_u64(rng) >> _S32) * uint64(n)) >> _S32)


@njit(inline="always")
def uniform(rng):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(rng) >> _S11) * _INV53
