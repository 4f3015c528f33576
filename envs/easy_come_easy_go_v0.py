"""Easy Come, Easy Go, PettingZoo classic style: ``from dicearena.envs import easy_come_easy_go_v0``;
``env``/``raw_env`` (AEC).

Chance never reaches the agents: it is resolved inside ``reset`` and ``step``. By default it is the contract's
seeded chance (``dicearena.envs.common.chance.SeededChance``), the stream the batched engine draws, so with the same
seed a
1-game batch plays the same game. ``dice`` may be any source with ``roll(k)`` (``dicearena.envs.common.dice``), e.g. a
rulebook example's exact dice: the env asks it for one ``roll(k)`` per chance event, in engine order.

``describe_action(config, state, action)`` words an action id, with the signature every game's spec shares (with an
engine state, e.g. ``env.state()``, it names what only the state knows, such as the dice thrown).
"""

from dicearena.envs.common.classic import classic_envs
from dicearena.envs.easy_come_easy_go.game import EASY_COME_EASY_GO, describe_action

__all__ = ["describe_action", "env", "raw_env"]

env, raw_env = classic_envs(EASY_COME_EASY_GO, __name__)
