"""A contract game's PettingZoo classic-style module (``env``, ``raw_env``, and ``parallel_env`` for simultaneous
games), made from its spec.

Why: PettingZoo users write ``from dicearena.envs import yay_v0; yay_v0.env(dice=...)``. The classes are the generic
faces bound to one game, with the game's own ``dice=`` keyword (``GameSpec.dice``); made here once instead of a module
of boilerplate per game. Each class is named as its module's attribute, so instances pickle and copy.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from .contract import GameSpec
from .game_aec import GameAEC
from .game_parallel import GameParallel
from .table import wrap_classic

__all__ = ["classic_envs"]


def classic_envs(spec: GameSpec, module: str) -> tuple[Any, ...]:
    """``(env, raw_env)``, plus ``parallel_env`` for a simultaneous game, for the module named ``module``."""

    def bound(name: str, face: type, what: str) -> type:
        def __init__(self: Any, config: Any = None, dice: Any = None, render_mode: str | None = None,
                     chance: Any = None, **config_overrides: Any) -> None:  # fmt: skip
            face.__init__(self, spec, config, chance, render_mode, dice, **config_overrides)

        doc = (f"{spec.title}{what}; agents ``player_0..``; ``dice=``: the game's dice interface, ``chance=``: a "
               "contract chance source (see the game's README).")  # fmt: skip
        return type(name, (face,), {"__init__": __init__, "__module__": module, "__qualname__": name, "__doc__": doc})

    raw_env = bound("raw_env", GameAEC, "")

    def env(**kwargs: Any) -> AECEnv:
        """The wrapped env (PettingZoo classic style): an illegal move ends the game with -1 for the mover."""
        return wrap_classic(raw_env(**kwargs))

    env.__module__ = module
    if spec.dynamics != "simultaneous":
        return env, raw_env
    return env, raw_env, bound("parallel_env", GameParallel, " with simultaneous decisions")
