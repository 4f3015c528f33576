"""Pieces every game's batched engine and vectorised task env share (no rules here).

- ``MAX_BATCH`` / ``check_num_envs``: the batch-size contract of every batched engine.
- ``LegalDiscrete``: a ``Discrete`` whose blind ``sample()`` follows the env's current mask, so generic tools
  (Gymnasium's and SB3's env checkers, quick random rollouts) never hit the engines' illegal-action errors.
The SB3 ``VecEnv`` plumbing is in ``vec_env.py`` (it imports stable-baselines3; this module does not).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

__all__ = ["MAX_BATCH", "LegalDiscrete", "check_num_envs"]

MAX_BATCH = 65536


def check_num_envs(num_envs: Any) -> int:
    """``num_envs`` as an int in 1..MAX_BATCH, or a TypeError / ValueError saying what is allowed."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer):
        raise TypeError(f"num_envs must be an int in 1..{MAX_BATCH}, got {type(num_envs).__name__}")
    if not 1 <= num_envs <= MAX_BATCH:
        raise ValueError(f"num_envs must be in 1..{MAX_BATCH}, got {num_envs}")
    return int(num_envs)


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask draws a *legal* action of the env's current state.

    ``mask_source()`` returns the current 0/1 mask; when it is all zero (episode over or not started) the
    ``fallback`` mask is used (default: every action).
    """

    def __init__(
        self, n: int, mask_source: Callable[[], np.ndarray], fallback: np.ndarray | None = None, seed: int | None = None
    ) -> None:
        super().__init__(n, seed=seed)
        self._mask_source = mask_source
        self._fallback = np.ones(n, dtype=np.int8) if fallback is None else np.asarray(fallback, dtype=np.int8)

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> np.int64:
        if mask is None and probability is None:
            mask = np.asarray(self._mask_source(), dtype=np.int8)
            if not mask.any():
                mask = self._fallback
        return super().sample(mask=mask, probability=probability)
