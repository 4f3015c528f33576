"""SB3 ``VecEnv`` plumbing shared by the games' vectorised task envs (one batched core holds N games).

Why: sb3-contrib's ``MaskablePPO`` asks a VecEnv for ``env_method("action_masks")``; SB3 asks for per-game
attributes. Every vectorised task answers the same way, so the answers live here once.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from .batching import read_only

__all__ = ["BatchedTaskVecEnv", "CoreVecEnv", "MaskedVecEnv"]


class MaskedVecEnv(VecEnv):
    """SB3 ``VecEnv`` plumbing for N games living in one batched core.

    Subclasses implement ``reset``, ``step_wait`` and ``_masks()`` ((N, A) 0/1), and may extend
    ``_game_attr(name, i)`` with the per-game attributes they list in ``_GAME_ATTRS``; ``_GAME_METHODS`` lists
    what ``env_method`` may call.
    """

    _GAME_METHODS: tuple[str, ...] = ("action_masks",)
    _GAME_ATTRS: tuple[str, ...] = ()
    _SHARED_ATTRS: tuple[str, ...] = ("config", "observation_space", "action_space", "metadata")
    _actions: np.ndarray | None = None

    def _masks(self) -> np.ndarray:
        raise NotImplementedError

    def action_masks(self) -> np.ndarray:
        """(N, A) bool legal actions of every game (sb3-contrib MaskablePPO convention)."""
        return self._masks().astype(bool)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Seed the shared chance stream at the next ``reset()`` (SB3 convention: seeds seed + i per game)."""
        return list(super().seed(seed))

    def close(self) -> None:
        """Nothing to release."""

    def _game_attr(self, name: str, i: int) -> Any:
        if name == "action_masks":
            return partial(self._game_mask, i)
        if name in ("render_mode", "spec"):
            return None
        if name in self._SHARED_ATTRS:
            return getattr(self, name)
        raise AttributeError(
            f"the games of {type(self).__name__} have no attribute {name!r}; available: "
            f"{', '.join(('action_masks', *self._GAME_ATTRS, 'render_mode', 'spec', *self._SHARED_ATTRS))}"
        )

    def _game_mask(self, i: int) -> np.ndarray:
        return self._masks()[i].astype(bool)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [self._game_attr(attr_name, i) for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"cannot set {attr_name!r}: the games of {type(self).__name__} are set only by config")

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **kwargs: Any) -> list:
        if method_name not in self._GAME_METHODS:
            raise AttributeError(
                f"the games of {type(self).__name__} have no method {method_name!r}; available: {self._GAME_METHODS}"
            )
        if method_name == "action_masks" and indices is None:
            return list(self.action_masks())
        return [self._game_attr(method_name, i)(*method_args, **kwargs) for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


class CoreVecEnv(MaskedVecEnv):
    """N games in one batched core, seen from one seat (``_seat``): SB3 reset and episode bookkeeping.

    The core (a game's batch core) provides ``num_envs``, ``reset(seed)``, ``step(actions, ...)`` -> the indices of
    the games that ended (already restarted), and arrays ``states``, ``rewards`` (N, P), ``done`` (N,),
    ``final_obs`` (N, P, D), ``final_states``. Subclasses give ``_obs()``, ``_masks()``, ``_final_infos(ended)``
    (their own keys of each ended game's info) and ``step_wait``.
    """

    _seat = 0

    def _init_core(self, core: Any, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        self._core = core
        self.render_mode = None
        self._lengths = np.zeros(core.num_envs, dtype=np.int64)  # the seat's decisions so far, per episode
        self._returns = np.zeros(core.num_envs, dtype=np.float64)  # episode returns so far (shaped rewards)
        self._t0 = time.time()
        super().__init__(core.num_envs, observation_space, action_space)

    def _obs(self) -> np.ndarray:
        raise NotImplementedError

    def _final_infos(self, ended: np.ndarray) -> list[dict[str, Any]]:
        raise NotImplementedError

    @property
    def engine_states(self) -> np.ndarray:
        """The engine states (N, STATE_SIZE), read-only view."""
        return read_only(self._core.states)

    def _reset_core(self) -> int | None:
        """Start all N games with the seed set by ``seed()`` (used once: later resets continue the stream)."""
        seed = self._seeds[0]
        self._core.reset(seed)
        self._reset_seeds()
        self._lengths[:] = 0
        self._returns[:] = 0.0
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return seed

    def _close_episodes(self, ended: np.ndarray, infos: list[dict[str, Any]]) -> None:
        """SB3's end-of-episode infos for the games in ``ended`` (their ``_returns`` / ``_lengths`` complete)."""
        elapsed = round(time.time() - self._t0, 6)
        for i, extra in zip(ended.tolist(), self._final_infos(ended), strict=True):
            infos[i] = {
                "terminal_observation": self._core.final_obs[i, self._seat].copy(),
                "TimeLimit.truncated": False,
                **extra,
                "episode": {"r": float(self._returns[i]), "l": int(self._lengths[i]), "t": elapsed},
            }
        self._lengths[ended] = 0
        self._returns[ended] = 0.0


class BatchedTaskVecEnv(CoreVecEnv):
    """A single-seat task's N games (seat 0 is the task's player): auto-reset, one core step per step."""

    def reset(self) -> np.ndarray:
        """Start all N games; a seed set by ``seed()`` is used here once (later resets continue the stream)."""
        self._reset_core()
        return self._obs().copy()

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions, self._actions = self._actions, None
        core = self._core
        ended = core.step(actions)
        self._lengths += 1
        rewards = core.rewards[:, 0].copy()
        self._returns += rewards
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self._close_episodes(ended, infos)
        return self._obs().copy(), rewards, core.done != 0, infos
