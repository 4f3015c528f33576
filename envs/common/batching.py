"""Pieces every game's batched engine and vectorised task env share (no rules here).

- ``MAX_BATCH`` / ``check_num_envs``: the batch-size contract of every batched engine.
- ``BatchedFace``: the Python face every batched engine shares (chance-source property, read-only states, the
  ``copy`` option) around a core object holding the buffers.
- ``LegalDiscrete``: a ``Discrete`` whose blind ``sample()`` follows the env's current mask, so generic tools
  (Gymnasium's and SB3's env checkers, quick random rollouts) never hit the engines' illegal-action errors.
The SB3 ``VecEnv`` plumbing is in ``vec_env.py`` (it imports stable-baselines3; this module does not).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

__all__ = ["MAX_BATCH", "BatchedFace", "LegalDiscrete", "check_num_envs", "read_only"]

MAX_BATCH = 65536


def check_num_envs(num_envs: Any) -> int:
    """``num_envs`` as an int in 1..MAX_BATCH, or a TypeError / ValueError saying what is allowed."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer):
        raise TypeError(f"num_envs must be an int in 1..{MAX_BATCH}, got {type(num_envs).__name__}")
    if not 1 <= num_envs <= MAX_BATCH:
        raise ValueError(f"num_envs must be in 1..{MAX_BATCH}, got {num_envs}")
    return int(num_envs)


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (callers may look at engine states, never change them behind its back)."""
    view = array.view()
    view.flags.writeable = False
    return view


class BatchedFace:
    """Base of the public batched engines: the parts that do not depend on the game.

    Subclasses set ``self._core`` (an object with ``rng`` and ``states``) and ``self.copy`` in ``__init__``.
    """

    _core: Any
    copy: bool

    @property
    def rng(self) -> Any:
        """The chance source: anything with ``integers(low, high, size)`` (a NumPy Generator by default)."""
        return self._core.rng

    @rng.setter
    def rng(self, source: Any) -> None:
        if not callable(getattr(source, "integers", None)):
            raise TypeError(f"rng must have an integers(low, high, size) method, got {type(source).__name__}")
        self._core.rng = source

    @property
    def states(self) -> np.ndarray:
        """The engine states (B, STATE_SIZE), read-only view (change them only through ``step``)."""
        return read_only(self._core.states)

    def _out(self, array: np.ndarray) -> np.ndarray:
        """``array`` copied, or the internal buffer itself with ``copy=False`` (overwritten by the next step)."""
        return array.copy() if self.copy else array


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
