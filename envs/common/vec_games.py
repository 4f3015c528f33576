"""N games in one batched core behind SB3's ``VecEnv`` protocol, without importing stable-baselines3.

Why: the vectorised task envs (and the Gymnasium envs built on them) are part of ``envs``, which needs only its
runtime dependencies. Each class here speaks SB3's ``VecEnv`` protocol (``reset``, ``step_async``/``step_wait``,
``seed``, ``get_attr``, ``env_method``, ``action_masks``) by duck typing; SB3 itself is needed only for its
``isinstance(env, VecEnv)`` checks, so each ``*Games`` class has a ``*VecEnv`` twin, a real ``VecEnv`` subclass
made by ``vec_env.sb3_vec_env`` when that name is first looked up (``vec_twins.sb3_names``).

sb3-contrib's ``MaskablePPO`` asks a VecEnv for ``env_method("action_masks")``; SB3 asks for per-game
attributes. Every vectorised task answers the same way, so the answers live here once.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .table import check_seed

__all__ = ["MaskedGames", "StepReturn", "twin_name"]

StepReturn = tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]  # SB3's VecEnvStepReturn


class MaskedGames:
    """SB3 ``VecEnv`` protocol for N games living in one batched core.

    Subclasses implement ``reset``, ``step_wait`` and ``_masks()`` ((N, A) 0/1), and may extend
    ``_game_attr(name, i)`` with the per-game attributes they list in ``_GAME_ATTRS``; ``_GAME_METHODS`` lists
    what ``env_method`` may call. ``seed``, ``step`` and the attributes set by ``_init_vec`` behave as SB3's
    ``VecEnv`` base class's do (whose ``__init__`` the ``*VecEnv`` twins run instead).
    """

    _GAME_METHODS: tuple[str, ...] = ("action_masks",)
    _GAME_ATTRS: tuple[str, ...] = ()
    _SHARED_ATTRS: tuple[str, ...] = ("config", "observation_space", "action_space", "metadata")
    _actions: np.ndarray | None = None
    num_envs: int

    def _init_vec(self, num_envs: int, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        self.num_envs = num_envs
        self.observation_space = observation_space
        self.action_space = action_space
        self.reset_infos: list[dict[str, Any]] = [{} for _ in range(num_envs)]
        self._seeds: list[int | None] = [None] * num_envs
        self._options: list[dict[str, Any]] = [{} for _ in range(num_envs)]
        self.render_mode = None
        self.metadata: dict[str, Any] = {"render_modes": []}

    def reset(self) -> np.ndarray:
        raise NotImplementedError

    def step_wait(self) -> StepReturn:
        raise NotImplementedError

    def _masks(self) -> np.ndarray:
        raise NotImplementedError

    def action_masks(self) -> np.ndarray:
        """(N, A) bool legal actions of every game (sb3-contrib MaskablePPO convention)."""
        return self._masks().astype(bool)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step(self, actions: np.ndarray) -> StepReturn:
        """``step_async`` then ``step_wait`` -> obs (N, D), rewards (N,), dones (N,), infos."""
        self.step_async(actions)
        return self.step_wait()

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Seed the shared chance stream at the next ``reset()`` (SB3 convention: seeds seed + i per game; ``None``
        draws a fresh seed; a bad seed is an error and changes nothing)."""
        seed = check_seed(seed)
        if seed is None:
            seed = int(np.random.randint(0, np.iinfo(np.uint32).max, dtype=np.uint32))
        self._seeds = [seed + i for i in range(self.num_envs)]
        return list(self._seeds)

    def _reset_seeds(self) -> None:
        self._seeds = [None] * self.num_envs

    def close(self) -> None:
        """Nothing to release."""

    def _get_indices(self, indices: Any) -> Iterable[int]:
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else indices

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


def twin_name(games: type[MaskedGames]) -> str:
    """``FooGames`` -> ``FooVecEnv``, the name of its SB3 twin."""
    return games.__name__.removesuffix("Games") + "VecEnv"
