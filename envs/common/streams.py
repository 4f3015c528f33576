"""Keyed random streams: every game of a batch draws its chance words from its own SplitMix64 stream.

Why: games stepped in parallel (``BatchedGame(threads=N)``) must not share one generator, or the outcome a game
gets would depend on which thread reached the generator first. Each game ``b`` of a batch seeded ``seed`` owns the
stream keyed ``stream_keys(seed, B)[b]`` (NumPy's ``SeedSequence``: a prefix of the keys does not depend on ``B``),
so a game's whole history, restarts included, depends on its seed, its index and its own actions only: the same
whatever the thread count, the batch size or the other games. The single-game faces (``SeededChance``) draw game 0's
stream, so a 1-game batch and the AEC env with the same seed play the same game.

A stream's state is one ``uint64`` (SplitMix64 adds the golden gamma per word), so a batch's streams are one
``(B,)`` array, cheap to snapshot and restore. Its arithmetic wraps modulo 2**64 on purpose: compiled, silently;
in plain Python (``NUMBA_DISABLE_JIT=1``) NumPy would warn at every word, so there ``splitmix`` silences that.
"""

from __future__ import annotations

from functools import wraps

import numpy as np
from numba import config, njit

__all__ = ["GOLDEN", "draw_words", "splitmix", "stream_keys"]

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _wrapping(function):
    """``function`` as it is, or in plain Python (``NUMBA_DISABLE_JIT=1``) with NumPy's overflow warnings off: uint64
    arithmetic wraps, as numba's does."""
    if not config.DISABLE_JIT:
        return function

    @wraps(function)
    def wrapping(*args):
        with np.errstate(over="ignore"):
            return function(*args)

    return wrapping


@_wrapping
@njit(cache=True, inline="always")
def splitmix(x: np.uint64) -> tuple[np.uint64, np.uint64]:
    """SplitMix64: the next generator state and its output word."""
    x = x + GOLDEN
    z = x
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return x, z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def draw_words(streams: np.ndarray, b: int, out: np.ndarray) -> None:
    """``out`` filled with the next words of stream ``b`` (uniform on 0..2**63-1, the contract's ``WORD_HIGH``)."""
    x = streams[b]
    for i in range(out.shape[0]):
        x, z = splitmix(x)
        out[i] = np.int64(z >> np.uint64(1))
    streams[b] = x


def stream_keys(seed: int | None, n: int) -> np.ndarray:
    """The ``(n,)`` uint64 stream states of games ``0..n-1`` seeded ``seed`` (``None``: fresh entropy)."""
    return np.random.SeedSequence(seed).generate_state(n, np.uint64)
