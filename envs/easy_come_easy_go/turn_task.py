"""The turn task: one solitary turn of Easy Come, Easy Go, reward = the value of the prize collected (its freeze /
re-roll decision, rules "Task environments"): a one-player contract game (``turn_engine.py``) on the generic one-seat
faces; ``EasyComeEasyGoTurnVecEnv`` is the SB3 twin of ``EasyComeEasyGoTurnGames``."""

from __future__ import annotations

from typing import Any

import numpy as np

from dicearena.envs.common.chance import DiceChance
from dicearena.envs.common.contract import GameSpec, register_task
from dicearena.envs.common.task_envs import task_envs
from dicearena.envs.common.vec_games import sb3_names

from . import engine as E
from . import turn_engine as T
from .game import ACTION_HELP, describe_action, explain_illegal
from .turn_config import TurnTaskConfig, UniformIntValues

__all__ = ["TURN", "EasyComeEasyGoTurnEnv", "EasyComeEasyGoTurnGames", "TurnTaskConfig", "UniformIntValues"]


def _info(config: TurnTaskConfig, state: np.ndarray) -> dict[str, Any]:
    """``prize_values`` of the episode; at its end ``prize``, the prize collected (None: none)."""
    values = state[T.VALUES : T.VALUES + 2 * E.NUM_PRIZES].copy().view(np.float64)  # (T.prize_values, inlined)
    prize = int(state[E.LAST_PRIZE])
    over = {"prize": None if prize < 0 else prize} if state[E.PHASE] == E.PHASE_OVER else {}
    return {"prize_values": values, **over}


_REFUSED = {1: DiceChance.REFUSED, T.OUTCOME_VALUES: "a drawn value is outside low..high"}

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


EasyComeEasyGoTurnEnv, EasyComeEasyGoTurnGames = task_envs(
    TURN, __name__, "EasyComeEasyGoTurn",
    """One turn: roll, then collect a satisfied prize (ends, reward = its value) or freeze and re-roll; infos hold
    ``action_mask``, ``prize_values`` and at the end ``prize``. ``dice`` (e.g. ``ScriptedDice``, one ``roll(k)`` per
    roll) replaces the seeded dice (drawn values stay seeded).""",
    """N turns in one batched engine behind SB3's ``VecEnv`` protocol, finished turns restarting: obs (N, 86),
    ``action_masks()`` (N, 24), ``prize_values`` (N, 9); a finished turn's info has ``terminal_observation``,
    ``episode``, ``prize_values`` and ``prize``.""",
    {"prize_values": T.prize_values},
)
__getattr__ = sb3_names(__name__, EasyComeEasyGoTurnGames)  # EasyComeEasyGoTurnVecEnv
