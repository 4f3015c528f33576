"""PettingZoo AEC face of Yay!: the generic contract env (``envs.common.game_aec``) with the game's throw interface.

Chance never reaches the agents: the start rolls and every throw (faces and where the dice land) are resolved
inside ``reset`` and ``step``, so an agent only ever sees decisions: write, block, throw again, or the cross-off a
throw that was not higher forces. By default chance is the contract's seeded chance
(``envs.common.chance.SeededChance``: one block of four random words per chance event), the stream the batched
engine (``envs.common.game_batch.BatchedGame``) draws, so with the same seed a 1-game batch plays the same game.
``dice`` may be a throw source with ``roll(3)`` and ``land(die_size, rows, cols)`` (``envs.yay.chance``: e.g.
``ScriptedThrows`` for a rule's example); its outcomes are checked by the engine's ``check_outcome``.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from envs.common.config import validate_config
from envs.common.game_aec import GameAEC
from envs.common.table import wrap_classic

from .chance import ThrowChance
from .config import YayConfig
from .game import EVENT_NAMES, YAY
from .game import action_words as describe_action

__all__ = ["EVENT_NAMES", "describe_action", "env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The wrapped env (PettingZoo classic style): an illegal move ends the game with -1 for the mover."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(GameAEC):
    """Yay! for 2-4 players; agents ``player_0..``; see README.md for every slot and id."""

    def __init__(
        self,
        config: YayConfig | dict[str, Any] | None = None,
        dice: Any = None,
        render_mode: str | None = None,
        **config_overrides: Any,
    ) -> None:
        """``dice``: a throw source (``roll(3)`` and ``land(die_size, rows, cols)``, see ``envs.yay.chance``)."""
        cfg = validate_config(YayConfig, config, **config_overrides)
        chance = None if dice is None else ThrowChance(dice, cfg.die_size)
        check_sheet = getattr(dice, "check_sheet", None)
        if callable(check_sheet):  # a scripted landing the sheet forbids fails here, not in the middle of a step
            check_sheet(cfg.die_size, cfg.rows, cfg.cols)
        super().__init__(YAY, cfg, chance, render_mode)

    @property
    def dice(self) -> Any:
        """The ``dice`` given (None: the contract's seeded chance)."""
        return getattr(self.chance, "dice", None)
