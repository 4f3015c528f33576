"""Pieces every game's batched engine and vectorised task env share (no rules here).

- ``MAX_BATCH`` / ``check_num_envs``: the batch-size contract of every batched engine; ``check_threads``: its
  thread count's.
- ``read_only``: the read-only view of engine states the batched faces hand out.
- ``LegalDiscrete``: a ``Discrete`` whose blind ``sample()`` draws a legal action, so generic tools (Gymnasium's
  and SB3's env checkers, quick random rollouts) never hit the engines' illegal-action errors.
The SB3 ``VecEnv`` protocol is in ``vec_games.py``; ``vec_env.py`` holds the SB3 subclasses (it alone imports
stable-baselines3).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

__all__ = ["MAX_BATCH", "LegalDiscrete", "check_num_envs", "check_threads", "max_threads", "read_only"]

MAX_BATCH = 65536


def check_num_envs(num_envs: Any) -> int:
    """``num_envs`` as an int in 1..MAX_BATCH, or a TypeError / ValueError saying what is allowed."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer):
        raise TypeError(f"num_envs must be an int in 1..{MAX_BATCH}, got {type(num_envs).__name__}")
    if not 1 <= num_envs <= MAX_BATCH:
        raise ValueError(f"num_envs must be in 1..{MAX_BATCH}, got {num_envs}")
    return int(num_envs)


def max_threads() -> int:
    """The most threads a batched engine can use: numba's pool (every core unless ``NUMBA_NUM_THREADS`` says less)."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


def check_threads(threads: Any) -> int:
    """``threads`` as an int in 1..``max_threads()`` (``None``: all of them), or a TypeError / ValueError saying
    what is allowed."""
    most = max_threads()
    if threads is None:
        return most
    if isinstance(threads, bool) or not isinstance(threads, int | np.integer):
        raise TypeError(f"threads must be an int in 1..{most} or None (all cores), got {type(threads).__name__}")
    if not 1 <= threads <= most:
        raise ValueError(f"threads must be in 1..{most} (numba's thread pool on this machine) or None, got {threads}")
    return int(threads)


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (callers may look at engine states, never change them behind its back)."""
    view = array.view()
    view.flags.writeable = False
    return view


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask draws a *legal* action for the decision the next ``step``
    meets, so generic tools (Gymnasium's and SB3's env checkers, quick random rollouts) never hit the engines'
    illegal-action errors (an error that changes nothing, by our conventions).

    That decision is the env's current one (``mask_source()``; all zero, episode over or not started: the
    ``fallback`` mask, default every action), unless a reset comes first. Gymnasium pairs ``action_space.seed(s)``
    with ``env.reset(seed=s)`` in either order, and its ``check_env`` seeds the space and samples *before*
    ``reset(seed=s)``, then steps that sample in the seeded game. So with ``env`` given, after ``seed(s)`` the next
    blind sample is drawn from the actions legal both now and at the first decision of the game ``reset(seed=s)``
    starts (played on a deep copy of ``env``), or from the latter's alone if no action is legal in both. The env
    calls ``game_started`` in ``reset``, which ends that look-ahead.
    """

    def __init__(
        self, n: int, mask_source: Callable[[], np.ndarray], fallback: np.ndarray | None = None,
        seed: int | None = None, env: Any = None,
    ) -> None:  # fmt: skip
        self._env = None  # a seed given here announces no game
        super().__init__(n, seed=seed)
        self._mask_source = mask_source
        self._fallback = np.ones(n, dtype=np.int8) if fallback is None else np.asarray(fallback, dtype=np.int8)
        self._env = env
        self._announced: int | None = None  # a seed(s) since the env's last reset: reset(seed=s) may come next

    def seed(self, seed: int | None = None) -> int:
        used = super().seed(seed)
        self._announced = seed if seed is not None and self._env is not None else None
        return used

    def game_started(self, seed: int | None) -> None:
        """The env started a game (``reset(seed=seed)``): a seed also seeds the space, so the rollout is
        reproducible; blind samples follow this game from now on."""
        if seed is not None:
            super().seed(seed)
        self._announced = None

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> np.int64:
        if mask is None and probability is None:
            mask = self._current_mask()
            if self._announced is not None:
                seeded, self._announced = self._first_mask(self._announced), None
                both = mask & seeded
                mask = both if both.any() else seeded
        return super().sample(mask=mask, probability=probability)

    def _current_mask(self) -> np.ndarray:
        mask = np.asarray(self._mask_source(), dtype=np.int8)
        return mask if mask.any() else self._fallback

    def _first_mask(self, seed: int) -> np.ndarray:
        """The mask at the first decision of the game ``env.reset(seed=seed)`` starts, on a copy (``env`` untouched)."""
        probe = copy.deepcopy(self._env)
        probe.reset(seed=seed)
        return probe.action_space._current_mask()
