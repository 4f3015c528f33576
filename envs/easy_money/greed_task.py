"""The Greed stop task: one Greed sequence of Ea$y Money against a named player's cash M; reward = units collected.

It isolates the game's stop-or-roll decision (rules/easy_money.md, "Task environments"): a one-player game on the
contract (the engine in ``greed.py``, beside the rule it shares with the game) served by the generic one-seat faces
with no opponents (``dicearena.envs.common.game_seat``): ``GreedStopEnv`` one Gymnasium env
(``dicearena/GreedStop-v0``),
``GreedStopGames`` N sequences stepped in numba behind SB3's ``VecEnv`` protocol (``GreedStopVecEnv`` is its SB3
twin, importing stable-baselines3 when first used). Actions: 0 stop, 1 roll again. Observation (5 floats, money
/ (high + 6) clipped to [-1, 1]): the total, M, M - total, "a decision", "the last roll was a 1".
"""

from __future__ import annotations

from typing import Any

from dicearena.envs.common.contract import GameSpec, register_task
from dicearena.envs.common.dice_outcomes import BAD_FACE_WORDS
from dicearena.envs.common.task_envs import task_envs
from dicearena.envs.common.vec_games import sb3_names

from . import greed as G
from .greed import GreedTaskConfig

__all__ = ["GREED_TASK_SPEC", "GreedStopEnv", "GreedStopGames", "GreedTaskConfig"]

_WORDS = {G.GREED_STOP: "stop and collect", G.GREED_ROLL: "roll again"}
_REFUSED = {G.BAD_CASH: "the named player's cash is outside the configured range",
            G.BAD_FACE: BAD_FACE_WORDS,
            G.BAD_FIRST_FACE: "an episode's first roll is a face 1..5 (pips 2..6: it starts at the first decision)"}


def _explain(config: GreedTaskConfig, state: Any, seat: int, action: int) -> str:
    return "the sequence is over" if state[G.PHASE] == G.P_OVER else "Greed's actions are 0 stop, 1 roll again"


def _info(config: GreedTaskConfig, state: Any) -> dict[str, Any]:
    """The named player's cash, the running total and the rolls so far; at the end the units collected."""
    info = {"named_cash": int(state[G.CASH]), "total": int(state[G.TOTAL]), "rolls": int(state[G.ROLLS])}
    if state[G.PHASE] == G.P_OVER:
        info["collected"] = int(state[G.COLLECTED])
    return info


GREED_TASK_SPEC = register_task(
    GameSpec(
        id="easy_money_greed",
        title="Ea$y Money Greed task",
        config=GreedTaskConfig,
        engine=G,
        describe_action=lambda config, action: _WORDS.get(action, f"action {action}"),
        explain_illegal=_explain,
        explain_outcome=lambda config, code: _REFUSED.get(code, f"outcome refused (code {code})"),
        action_help=lambda config: "actions are 0 stop and collect, 1 roll again",
        info=_info,
        observation_bounds=lambda config: (-1.0, 1.0),
    ),
    __name__,
)


GreedStopEnv, GreedStopGames = task_envs(
    GREED_TASK_SPEC, __name__, "GreedStop",
    """One Greed decision sequence: the first roll (2..6: a 1 would leave no decision) is made, then stop (ends,
    reward = the total if the named player can pay it, else 0) or roll again (a 1 ends with nothing). Infos hold
    ``action_mask``, ``named_cash``, ``total``, ``rolls``, and at the end ``collected``. ``chance=``
    (``dicearena.envs.common.chance.ScriptedChance``: the start ``[M, face]`` with face 1..5, then ``[face]`` per roll,
    faces 0..5) replaces the seeded chance.""",
    """N Greed sequences in one batched engine behind SB3's ``VecEnv`` protocol, finished ones restarting: obs
    (N, 5), ``action_masks()`` (N, 2); a finished sequence's info has ``terminal_observation`` and ``episode``.""",
)
__getattr__ = sb3_names(__name__, GreedStopGames)  # GreedStopVecEnv
