"""Easy Come, Easy Go, PettingZoo classic style: ``from dicearena.envs import easy_come_easy_go_v0``;
``env``/``raw_env`` (AEC).

Chance never reaches the agents: it is resolved inside ``reset`` and ``step``. By default it is the contract's
seeded chance (``dicearena.envs.common.chance.SeededChance``), the stream the batched engine draws, so with the same
seed a
1-game batch plays the same game. ``dice`` may be any source with ``roll(k)`` (``dicearena.envs.common.dice``), e.g. a
rulebook example's exact dice: the env asks it for one ``roll(k)`` per chance event, in engine order.
"""

from dicearena.envs.common.classic import classic_envs
from dicearena.envs.easy_come_easy_go.game import EASY_COME_EASY_GO
from dicearena.envs.easy_come_easy_go.game import describe_action as _describe

__all__ = ["describe_action", "env", "raw_env"]

env, raw_env = classic_envs(EASY_COME_EASY_GO, __name__)


def describe_action(action: int) -> str:
    """Human wording of an action id, e.g. ``collect prize 3 (7 exactly)`` or ``freeze dice 1, 2``."""
    return _describe(None, action)
