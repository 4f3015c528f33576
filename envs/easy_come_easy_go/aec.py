"""PettingZoo AEC face of Easy Come, Easy Go: the generic contract env (``envs.common.game_aec``) with the
game's dice interface.

Chance never reaches the agents: it is resolved inside ``reset`` and ``step``. By default it is the contract's
seeded chance (``envs.common.chance.SeededChance``: one block of four random words per chance event), the stream
the batched engine (``envs.common.game_batch.BatchedGame``) draws, so with the same seed a 1-game batch plays the
same game. ``dice`` may be any source with ``roll(k)`` (``envs.common.dice``), e.g. a rulebook example's exact
dice: the env then asks it for one ``roll(k)`` per pending chance event, in engine order.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from envs.common.chance import DiceChance
from envs.common.dice import DiceSource
from envs.common.game_aec import GameAEC
from envs.common.table import wrap_classic

from . import engine as E
from .config import EasyComeEasyGoConfig
from .game import EASY_COME_EASY_GO
from .game import describe_action as _describe

__all__ = ["describe_action", "env", "raw_env"]


def describe_action(action: int) -> str:
    """Human wording of an action id, e.g. ``collect prize 3 (7 exactly)`` or ``freeze dice 1, 2``."""
    return _describe(None, action)


def env(**kwargs: Any) -> AECEnv:
    """The wrapped env (PettingZoo classic style): an illegal move ends the game with -1 for the mover."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(GameAEC):
    """Easy Come, Easy Go for 2-6 players; agents ``player_0..``; see README.md for every slot and id."""

    def __init__(
        self,
        config: EasyComeEasyGoConfig | dict[str, Any] | None = None,
        dice: DiceSource | None = None,
        render_mode: str | None = None,
        **config_overrides: Any,
    ) -> None:
        chance = None if dice is None else DiceChance(dice, E.NUM_FACES, E.NUM_DICE, EASY_COME_EASY_GO.title)
        super().__init__(EASY_COME_EASY_GO, config, chance, render_mode, **config_overrides)

    @property
    def dice(self) -> DiceSource | None:
        """The ``dice`` given (None: the contract's seeded chance)."""
        return getattr(self.chance, "dice", None)
