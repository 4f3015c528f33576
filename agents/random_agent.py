"""Uniformly random legal actions; the baseline every benchmark and bot must beat."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from dicearena.agents.base import Agent
from dicearena.envs.common.batching import ThreadChoice
from dicearena.envs.common.rows import row
from dicearena.envs.common.table import check_seed

__all__ = ["RandomAgent", "sample_masked"]


SKIP = 8  # the pick skips legal-free blocks of this many actions (Yay!'s 193 actions: 60 -> 34 ns a row)


@njit(inline="always")
def _pick(mask: np.ndarray, uniform: float) -> int:
    """The ``int(uniform * n)``-th legal action of one mask row (n legal; -1 if none): the count is one vectorised
    pass; the search for the pick then skips whole blocks by their counts, since a byte-by-byte scan that stops at
    the pick mispredicts its branch at every legal action it passes. ``mask`` is a ``row`` view: a view numba
    reference-counts would cost an atomic increment and decrement of the whole array's count per row."""
    width = mask.shape[0]
    n = 0
    for a in range(width):
        n += mask[a] != 0
    pick = int(uniform * n)
    lo, whole = 0, width - width % SKIP
    while lo < whole:
        in_block = 0
        for a in range(SKIP):
            in_block += mask[lo + a] != 0
        if pick < in_block:
            break
        pick -= in_block
        lo += SKIP
    for a in range(lo, width):
        if mask[a] != 0:
            if pick == 0:
                return a
            pick -= 1
    return -1


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
    masks = np.ascontiguousarray(masks)
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
