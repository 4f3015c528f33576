"""A task's Gymnasium env and its SB3-style vec env, made from its spec (a one-player contract game).

Why: every task env is the generic one-seat faces (``game_seat.SeatEnv`` / ``SeatGames``) bound to one task with no
opponents; made here once instead of two boilerplate classes per task. ``state_attrs`` expose what a task keeps in
its state (e.g. the turn task's prize values) as attributes of the vec env, over every game (and per game for SB3's
``get_attr``). Each class is named as its module's attribute, so instances pickle and copy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .contract import GameSpec
from .game_seat import SeatEnv, SeatGames

__all__ = ["task_envs"]


def task_envs(spec: GameSpec, module: str, name: str, env_doc: str, games_doc: str,
              state_attrs: dict[str, Callable[[np.ndarray], Any]] | None = None) -> tuple[type, type]:  # fmt: skip
    """``(<name>Env, <name>Games)`` for the module named ``module``: ``Env(config, dice=, chance=, render_mode=)``,
    ``Games(num_envs, config, seed=, threads=)``; the SB3 twin ``<name>VecEnv`` comes from ``vec_twins.sb3_names``."""
    attrs = dict(state_attrs or {})

    def env_init(self: Any, config: Any = None, dice: Any = None, chance: Any = None, render_mode: str | None = None,
                 **config_overrides: Any) -> None:  # fmt: skip
        SeatEnv.__init__(self, spec, config=config, chance=chance, dice=dice, render_mode=render_mode,
                         **config_overrides)  # fmt: skip

    def games_init(self: Any, num_envs: int, config: Any = None, seed: int | None = None, threads: int | None = None,
                   **config_overrides: Any) -> None:  # fmt: skip
        SeatGames.__init__(self, spec, num_envs, None, config, seed=seed, threads=threads, **config_overrides)

    def game_attr(self: Any, attr: str, i: int) -> Any:
        return attrs[attr](self.core.batch.states[i]) if attr in attrs else SeatGames._game_attr(self, attr, i)

    def state_attr(read: Callable[[np.ndarray], Any]) -> property:
        return property(lambda self: read(self.core.batch.states), doc="of every game's current episode")

    env = type(f"{name}Env", (SeatEnv,), {"__init__": env_init, "__module__": module, "__doc__": env_doc,
                                          "__qualname__": f"{name}Env"})  # fmt: skip
    games_body: dict[str, Any] = {"__init__": games_init, "__module__": module, "__doc__": games_doc,
                                  "__qualname__": f"{name}Games", "_game_attr": game_attr,
                                  "_GAME_ATTRS": (*SeatGames._GAME_ATTRS, *attrs)}  # fmt: skip
    games_body |= {attr: state_attr(read) for attr, read in attrs.items()}
    return env, type(f"{name}Games", (SeatGames,), games_body)
