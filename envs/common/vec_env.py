"""The SB3 adapters: every ``*Games`` class (``vec_games.py``, ``opponents.py``, the games' task modules) as a
real stable-baselines3 ``VecEnv`` subclass, its ``*VecEnv`` twin.

Why a module of its own: it imports stable-baselines3 (and so torch), which ``envs`` must not need. It is
imported only when a ``*VecEnv`` name is first looked up (``vec_twins.sb3_names``), so every Gymnasium id and
PettingZoo env works with the runtime dependencies alone.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from .vec_games import MaskedGames, twin_name

__all__ = ["MaskedVecEnv", "sb3_vec_env"]


def _sb3_init(self: VecEnv, num_envs: int, observation_space: spaces.Space, action_space: spaces.Space) -> None:
    VecEnv.__init__(self, num_envs, observation_space, action_space)


@cache
def sb3_vec_env(games: type[MaskedGames]) -> type[VecEnv]:
    """``FooGames`` as ``FooVecEnv``: a subclass of it and of its base's twin (so the twins keep the ``*Games``
    hierarchy: ``ExtraSolitaireVecEnv`` is a ``SeatVecEnv``), down to SB3's ``VecEnv``, whose
    ``__init__`` sets the common attributes. One class per ``games`` (cached), named in ``games``'s module,
    which serves it (``vec_twins.sb3_names``; ``MaskedVecEnv`` is this module's), so instances pickle."""
    if not issubclass(games, MaskedGames):
        raise TypeError(f"{games.__name__} is not a MaskedGames class")
    name = twin_name(games)
    module = __name__ if games is MaskedGames else games.__module__  # the base's twin is this module's MaskedVecEnv
    namespace: dict[str, Any] = {"__module__": module, "__qualname__": name, "__doc__": games.__doc__}
    if games is MaskedGames:
        namespace["_init_vec"] = _sb3_init
        base: type = VecEnv
    else:
        base = sb3_vec_env(games.__base__)
    return type(name, (games, base), namespace)


MaskedVecEnv = sb3_vec_env(MaskedGames)
