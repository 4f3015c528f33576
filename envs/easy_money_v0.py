"""Ea$y Money, PettingZoo classic style: ``from dicearena.envs import easy_money_v0``; ``env``/``raw_env`` (AEC).

Chance never reaches the agents: dice, shuffles and the Final Lottery are resolved inside ``reset`` and ``step``.
By default it is the contract's seeded chance (``dicearena.envs.common.chance.SeededChance``), the stream the batched
engine draws, so with the same seed a 1-game batch plays the same game. ``chance=`` injects outcomes
(``dicearena.envs.common.chance.ScriptedChance``: the engine's outcome vectors, envs/easy_money/README.md), checked by
the engine's ``check_outcome``.

``describe_action(config, state, action)`` words an action id, with the signature every game's spec shares (with an
engine state, e.g. ``env.state()``, it names what only the state knows, such as the dice thrown).
"""

from dicearena.envs.common.classic import classic_envs
from dicearena.envs.easy_money.engine import describe_action
from dicearena.envs.easy_money.game import EASY_MONEY

__all__ = ["describe_action", "env", "raw_env"]

env, raw_env = classic_envs(EASY_MONEY, __name__)
