"""Uniformly random legal actions; the baseline every benchmark and bot must beat."""

from __future__ import annotations

import numpy as np
from numba import config, njit, prange

from dicearena.agents.base import Agent
from dicearena.envs.common.batching import ThreadChoice
from dicearena.envs.common.byte_words import byte_word, popcount
from dicearena.envs.common.rows import row
from dicearena.envs.common.table import check_seed

__all__ = ["RandomAgent", "sample_masked"]


_ONES = np.uint64(0x0101010101010101)
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_HIGH = np.uint64(0x8080808080808080)
_SEVEN = np.uint64(7)


@njit(inline="always")
def _legal_bits(word: np.uint64) -> np.uint64:
    """The high bit of each nonzero byte of ``word`` (any nonzero mask entry is legal), with no carry across
    bytes."""
    return (((word & _LOW7) + _LOW7) | word) & _HIGH


@njit(inline="always")
def _count(bits: np.uint64) -> int:
    """Set bits as a signed count (numba adds an int64 and a uint64 as floats)."""
    return np.int64(popcount(bits))


@njit(inline="always")
def _compiled_pick(mask: np.ndarray, uniform: float) -> int:
    """The ``int(uniform * n)``-th legal action of one mask row of bytes (n legal; -1 if none), read eight actions
    a word (``byte_word``): count them, find the word holding the pick, then its byte with no branch: the bytes'
    running counts (a multiply) no greater than the pick number the bytes before it. ``mask`` is a ``row`` view:
    a view numba reference-counts would cost an atomic increment and decrement of the whole array's count per row."""
    width = mask.shape[0]
    whole = width - width % 8
    n = 0
    for a in range(0, whole, 8):
        n += _count(_legal_bits(byte_word(mask, a)))
    for a in range(whole, width):
        n += mask[a] != 0
    pick = int(uniform * n)
    for a in range(0, whole, 8):
        bits = _legal_bits(byte_word(mask, a))
        in_word = _count(bits)
        if pick < in_word:
            running = (bits >> _SEVEN) * _ONES  # byte k: the legal actions among bytes 0..k
            before = (((np.uint64(pick) * _ONES) | _HIGH) - running) & _HIGH  # bytes whose count <= pick
            return a + _count(before)
        pick -= in_word
    for a in range(whole, width):
        if mask[a] != 0:
            if pick == 0:
                return a
            pick -= 1
    return -1


def _python_pick(mask: np.ndarray, uniform: float) -> int:
    """``_pick`` in plain Python (``NUMBA_DISABLE_JIT=1``)."""
    legal = np.flatnonzero(mask)
    return int(legal[int(uniform * legal.size)]) if legal.size else -1


_pick = _python_pick if config.DISABLE_JIT else _compiled_pick


@njit(cache=True)
def _sample_masked(masks: np.ndarray, uniforms: np.ndarray, out: np.ndarray) -> None:
    for b in range(masks.shape[0]):
        out[b] = _pick(row(masks, b), uniforms[b])


@njit(cache=True, parallel=True)
def _sample_masked_parallel(masks: np.ndarray, uniforms: np.ndarray, out: np.ndarray) -> None:
    for b in prange(masks.shape[0]):
        out[b] = _pick(row(masks, b), uniforms[b])


PARALLEL_ROWS = 1024  # from this many rows the picks may go to numba's threads (below, starting them costs more)
_THREAD_CHOICE = ThreadChoice()  # ... while that measures faster (on a busy machine one thread can be)


def sample_masked(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (-1 for a row with none); the uniforms are drawn
    first, so the picks are the same whatever the thread count."""
    masks = np.asarray(masks)
    if masks.ndim != 2:
        raise ValueError(
            f"sample_masked takes (B, A) masks, one row per decision, got shape {masks.shape}; a simultaneous game's "
            f"(B, P, A) masks go in as masks.reshape(-1, A)"
        )
    masks = np.ascontiguousarray(masks if masks.dtype.itemsize == 1 else masks != 0)  # the pick reads bytes
    out = np.empty(masks.shape[0], dtype=np.int64)
    uniforms = rng.random(masks.shape[0])
    if masks.shape[0] >= PARALLEL_ROWS:
        _THREAD_CHOICE.run(masks.shape[0], lambda: _sample_masked(masks, uniforms, out),
                           lambda: _sample_masked_parallel(masks, uniforms, out))  # fmt: skip
    else:
        _sample_masked(masks, uniforms, out)
    return out


class RandomAgent(Agent):
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(check_seed(seed))

    def reset(self, seed: int | None = None) -> None:
        if check_seed(seed) is not None:
            self.rng = np.random.default_rng(seed)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return sample_masked(action_masks, self.rng)
