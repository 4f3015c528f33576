"""The turn task: one solitary turn of Easy Come, Easy Go, reward = value of the prize collected.

It isolates the game's freeze/re-roll decision (see ../shared/rules, "Task environments"): a one-player game on the
contract (``turn_engine.py``, config ``turn_config.py``) served by the generic one-seat faces with no opponents
(``envs.common.game_seat``; ``EasyComeEasyGoTurnVecEnv``, the SB3 twin of ``EasyComeEasyGoTurnGames``, imports
stable-baselines3 when first used). A 1-game vec env plays the turns of the single env with the same seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.common.chance import DiceChance
from envs.common.contract import GameSpec, register_task
from envs.common.game_seat import SeatEnv, SeatGames
from envs.common.vec_games import sb3_names

from . import engine as E
from . import turn_engine as T
from .game import ACTION_HELP, describe_action, explain_illegal
from .turn_config import TurnTaskConfig, UniformIntValues

__all__ = ["TURN", "EasyComeEasyGoTurnEnv", "EasyComeEasyGoTurnGames", "TurnTaskConfig", "UniformIntValues"]


def _info(config: TurnTaskConfig, state: np.ndarray) -> dict[str, Any]:
    """``prize_values`` of the episode; at its end ``prize``, the prize collected (None: none)."""
    values = state[T.VALUES : T.VALUES + 2 * E.NUM_PRIZES].copy().view(np.float64)  # (T.prize_values, inlined)
    if state[E.PHASE] != E.PHASE_OVER:
        return {"prize_values": values}
    prize = int(state[E.LAST_PRIZE])
    return {"prize_values": values, "prize": None if prize < 0 else prize}


_REFUSED = {1: "a die shows a face 0..5 (the faces 1..6)", T.OUTCOME_VALUES: "a drawn value is outside low..high"}

TURN = register_task(
    GameSpec(
        id="easy_come_easy_go_turn",
        title="Easy Come, Easy Go turn task",
        config=TurnTaskConfig,
        engine=T,
        describe_action=describe_action,
        explain_illegal=explain_illegal,
        explain_outcome=lambda config, code: _REFUSED[code],
        action_help=lambda config: ACTION_HELP,
        info=_info,
        dice=lambda config, dice: DiceChance(dice, E.NUM_FACES, E.NUM_DICE, "the turn task"),
    ),
    __name__,
)


class EasyComeEasyGoTurnEnv(SeatEnv):
    """One turn: roll, then collect a satisfied prize (ends, reward = its value) or freeze and re-roll; infos hold
    ``action_mask``, ``prize_values`` and at the end ``prize``. ``dice`` (e.g. ``ScriptedDice``, one ``roll(k)`` per
    roll) replaces the seeded dice (drawn values stay seeded)."""

    def __init__(self, config: TurnTaskConfig | dict[str, Any] | None = None, dice: Any = None,
                 render_mode: str | None = None, **config_overrides: Any) -> None:  # fmt: skip
        super().__init__(TURN, config=config, dice=dice, render_mode=render_mode, **config_overrides)


class EasyComeEasyGoTurnGames(SeatGames):
    """N turns in one batched engine behind SB3's ``VecEnv`` protocol, finished turns restarting: obs (N, 86),
    ``action_masks()`` (N, 24); a finished turn's info has ``terminal_observation``, ``episode``, ``prize_values``
    and ``prize``."""

    _GAME_ATTRS = ("learner_seat", "prize_values")

    def __init__(self, num_envs: int, config: TurnTaskConfig | dict[str, Any] | None = None, seed: int | None = None,
                 **config_overrides: Any) -> None:  # fmt: skip
        super().__init__(TURN, num_envs, None, config, seed=seed, **config_overrides)

    @property
    def prize_values(self) -> np.ndarray:
        """(N, 9) values of each game's current episode."""
        return T.prize_values(self.core.batch.states)

    def _game_attr(self, name: str, i: int) -> Any:
        return T.prize_values(self.core.batch.states[i]) if name == "prize_values" else super()._game_attr(name, i)


__getattr__ = sb3_names(__name__, EasyComeEasyGoTurnGames)  # EasyComeEasyGoTurnVecEnv
