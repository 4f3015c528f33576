"""SB3 ``VecEnv`` plumbing shared by the games' vectorised task envs (one batched core holds N games).

Why: sb3-contrib's ``MaskablePPO`` asks a VecEnv for ``env_method("action_masks")``; SB3 asks for per-game
attributes. Every vectorised task answers the same way, so the answers live here once.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

__all__ = ["MaskedVecEnv"]


class MaskedVecEnv(VecEnv):
    """SB3 ``VecEnv`` plumbing for N games living in one batched core.

    Subclasses implement ``reset``, ``step_wait`` and ``_masks()`` ((N, A) 0/1), and may extend
    ``_game_attr(name, i)`` with per-game attributes; ``_GAME_METHODS`` lists what ``env_method`` may call.
    """

    _GAME_METHODS: tuple[str, ...] = ("action_masks",)
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
            f"{', '.join(('action_masks', 'render_mode', 'spec', *self._SHARED_ATTRS))}"
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
