"""PettingZoo faces of Extra!: the generic contract envs (``envs.common.game_aec``, ``game_parallel``) with the
game's dice interface.

AEC: the players still playing decide on each throw one after another, in seat order; the engine keeps the round
simultaneous (a choice is only recorded until every player has chosen). A player who checks a last EXTRA box is
terminated at once but stays in ``agents`` until the game ends, so that a ``"win"`` reward, known only when
everyone has finished, reaches them. Parallel: every player still playing decides at once; a finisher leaves
``agents`` in that step.

Chance: by default the contract's seeded chance (``envs.common.chance.SeededChance``: one block of five random
words per throw), the stream the batched engine (``envs.common.game_batch.BatchedGame``) draws, so with the same
seed a 1-game batch plays the same game. ``dice`` may be any source with ``roll(k)`` (``envs.common.dice``), e.g.
a rulebook example's exact dice: one ``roll(5)`` per throw.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from envs.common.chance import DiceChance
from envs.common.dice import DiceSource
from envs.common.game_aec import GameAEC
from envs.common.game_parallel import GameParallel
from envs.common.table import wrap_classic

from . import engine as E
from .config import ExtraConfig
from .game import EXTRA

__all__ = ["env", "parallel_env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The wrapped env (PettingZoo classic style): an illegal move ends the game with -1 for the mover."""
    return wrap_classic(raw_env(**kwargs))


class _Dice:
    """The ``dice=`` argument of both faces, as the contract's chance source."""

    def __init__(
        self, config: ExtraConfig | dict[str, Any] | None = None, dice: DiceSource | None = None,
        render_mode: str | None = None, **config_overrides: Any,
    ) -> None:  # fmt: skip
        chance = None if dice is None else DiceChance(dice, E.NUM_FACES, E.NUM_DICE, EXTRA.title)
        super().__init__(EXTRA, config, chance, render_mode, **config_overrides)  # type: ignore[call-arg]

    @property
    def dice(self) -> DiceSource | None:
        """The ``dice`` given (None: the contract's seeded chance)."""
        return getattr(self.chance, "dice", None)


class raw_env(_Dice, GameAEC):
    """Extra! for 1-6 players; agents ``player_0..``; see README.md for every slot and id."""


class parallel_env(_Dice, GameParallel):
    """Extra! for 1-6 players with simultaneous decisions; see README.md for every slot and id."""
