"""Yay!, PettingZoo classic style: ``from dicearena.envs import yay_v0``; ``env``/``raw_env`` (AEC).

Chance never reaches the agents: the start rolls and every throw (faces and where the dice land) are resolved
inside ``reset`` and ``step``. By default chance is the contract's seeded chance
(``dicearena.envs.common.chance.SeededChance``), the stream the batched engine draws, so with the same seed a 1-game
batch plays the same game. ``dice`` may be a throw source with ``roll(3)`` and ``land(die_size, rows, cols)``
(``dicearena.envs.yay.chance``: e.g. ``ScriptedThrows`` for a rule's example); its outcomes are checked by the engine.

``describe_action(config, state, action)`` words an action id, with the signature every game's spec shares (with an
engine state, e.g. ``env.state()``, it names what only the state knows, such as the dice thrown).
"""

from dicearena.envs.common.classic import classic_envs
from dicearena.envs.yay.game import EVENT_NAMES, YAY, describe_action

__all__ = ["EVENT_NAMES", "describe_action", "env", "raw_env"]

env, raw_env = classic_envs(YAY, __name__)
