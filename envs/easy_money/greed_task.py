"""The Greed stop task: one Greed sequence of Ea$y Money against a named player's cash M; reward = units collected.

It isolates the game's stop-or-roll decision (rules/easy_money.md, "Task environments"): a one-player game on the
contract (the engine in ``greed.py``, beside the rule it shares with the game) served by the generic one-seat faces
with no opponents (``dicearena.envs.common.game_seat``): ``GreedStopEnv`` one Gymnasium env
(``dicearena/GreedStop-v0``),
``GreedStopGames`` N sequences stepped in numba behind SB3's ``VecEnv`` protocol (``GreedStopVecEnv`` is its SB3
twin, importing stable-baselines3 when first used). Actions: 0 stop, 1 roll again. Observation (5 floats, money
/ (high + 6) clipped to [-1, 1]): the total, M, M - total, "a decision", "the last roll was a 1". Its renderers
(``ansi``, ``rgb_array``) show the decision: the last roll, the running total against the named player's cash and
what stopping collects; at the end, what was collected.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicearena.envs.common.contract import GameSpec, register_task
from dicearena.envs.common.dice_outcomes import BAD_FACE_WORDS
from dicearena.envs.common.render import draw_banner, draw_die, font, new_canvas, text_centered, to_array
from dicearena.envs.common.task_envs import task_envs
from dicearena.envs.common.vec_twins import sb3_names

from . import greed as G
from .greed import GreedTaskConfig

__all__ = ["GREED_TASK_SPEC", "GreedStopEnv", "GreedStopGames", "GreedTaskConfig", "describe_action", "render_ansi",
           "render_rgb"]

_WORDS = {G.GREED_STOP: "stop and collect", G.GREED_ROLL: "roll again"}
_REFUSED = {G.BAD_CASH: "the named player's cash is outside the configured range",
            G.BAD_FACE: BAD_FACE_WORDS,
            G.BAD_FIRST_FACE: "an episode's first roll is a face 1..5 (pips 2..6: it starts at the first decision)"}


def describe_action(config: GreedTaskConfig | None, state: Any, action: int) -> str:
    """``stop and collect`` / ``roll again``; with a state at the decision, what stopping collects and the total."""
    if action not in _WORDS:
        return f"action {action} (out of range 0..1)"
    if state is None or state[G.PHASE] != G.P_DECIDE:
        return _WORDS[action]
    total = int(state[G.TOTAL])
    if action == G.GREED_ROLL:
        return f"roll again (total {total}; a 1 loses it)"
    cash = int(state[G.CASH])
    return f"stop and collect {_PAYOUT(total, cash)} (total {total}, the named player holds {cash})"


def _max_outcomes(config: GreedTaskConfig) -> int:
    """The start's (M, first face) pairs, or a roll's six faces."""
    low, high = config.cash_range
    return max((high - low + 1) * (G.NUM_FACES - 1), G.NUM_FACES)


def _explain(config: GreedTaskConfig, state: Any, seat: int, action: int) -> str:
    return "the sequence is over" if state[G.PHASE] == G.P_OVER else "Greed's actions are 0 stop, 1 roll again"


def _info(config: GreedTaskConfig, state: Any) -> dict[str, Any]:
    """The named player's cash, the running total and the rolls so far; at the end the units collected."""
    info = {"named_cash": int(state[G.CASH]), "total": int(state[G.TOTAL]), "rolls": int(state[G.ROLLS])}
    if state[G.PHASE] == G.P_OVER:
        info["collected"] = int(state[G.COLLECTED])
    return info


# --- Rendering: what the decision is about (the game's renderer draws the whole table, which the task has not)

_INK = (30, 30, 30)
_PAYOUT = getattr(G.greed_payout, "py_func", G.greed_payout)  # the rule's Python function (no compile to draw)


def _status(state: Any) -> str:
    """The decision, or how the sequence ended."""
    total, cash, rolls = int(state[G.TOTAL]), int(state[G.CASH]), int(state[G.ROLLS])
    if state[G.PHASE] == G.P_OVER:
        if state[G.LAST_FACE] == 0:  # a 1: the sequence ends with nothing (a stop follows a face 2..6)
            return f"Rolled a 1 on roll {rolls}: bust, nothing collected"
        if state[G.COLLECTED] > 0:
            return f"Stopped at {total}: the named player (cash {cash}) paid {int(state[G.COLLECTED])}"
        return f"Stopped at {total}, over the named player's cash {cash}: nothing collected"
    if state[G.PHASE] == G.P_DECIDE:
        return f"Total {total} after {rolls} roll{'s' * (rolls != 1)}: stop and collect, or roll again?"
    return "A new sequence: the first roll is about to be made"


def _stop_words(state: Any) -> str:
    """What stopping now would collect (while deciding)."""
    if state[G.PHASE] != G.P_DECIDE:
        return ""
    total, cash = int(state[G.TOTAL]), int(state[G.CASH])
    paid = _PAYOUT(total, cash)
    why = f" (the total is over the cash {cash})" if total > cash else ""
    return f"Stopping now collects {paid}{why}; rolling again busts on a 1"


def render_ansi(config: GreedTaskConfig | None, state: Any) -> str:
    """The sequence as text: the decision (or result), the last roll, the running total, the named player's cash M,
    the room left under M and what stopping now collects."""
    face = int(state[G.LAST_FACE])
    lines = [f"Ea$y Money Greed task | {_status(state)}",
             f"Last roll: {face + 1 if face >= 0 else '-'}   Rolls: {int(state[G.ROLLS])}",
             f"Running total: {int(state[G.TOTAL])}   Named player's cash M: {int(state[G.CASH])}   "
             f"Room under M: {int(state[G.CASH]) - int(state[G.TOTAL])}"]  # fmt: skip
    stop = _stop_words(state)
    return "\n".join([*lines, stop] if stop else lines)


def render_rgb(config: GreedTaskConfig | None, state: Any) -> np.ndarray:
    """A (300, 520, 3) uint8 picture: the decision (or the result), the last roll as a die, the running total and
    the named player's cash M as numbers and as a bar (the total in blue, red once it is over M; M marked), and
    what stopping now collects."""
    width, height = 520, 300
    image, draw = new_canvas(width, height)
    total, cash, face = int(state[G.TOTAL]), int(state[G.CASH]), int(state[G.LAST_FACE])
    over = state[G.PHASE] == G.P_OVER
    banner = ((170, 220, 170) if state[G.COLLECTED] > 0 else (214, 208, 196)) if over else (226, 221, 206)
    draw_banner(draw, width, _status(state), banner, size=15)

    size, left, top = 84, 24, 60
    if face >= 0:
        bust = face == 0
        draw_die(draw, left, top, size, face + 1, face=(250, 214, 210) if bust else (255, 255, 255),
                 outline=(190, 40, 40) if bust else (70, 70, 70), outline_width=4 if bust else 2)  # fmt: skip
    else:
        draw.rounded_rectangle((left, top, left + size, top + size), radius=11, outline=(170, 170, 170), width=2)
    text_centered(draw, (left + size / 2, top + size + 14), "last roll", 13, _INK)

    x = left + size + 28
    draw.text((x, top), f"Running total: {total}", fill=_INK, font=font(22))
    draw.text((x, top + 34), f"Named player's cash M: {cash}", fill=_INK, font=font(18))
    draw.text((x, top + 62), f"Room under M: {cash - total}   Rolls: {int(state[G.ROLLS])}", fill=_INK, font=font(15))

    bar_l, bar_r, bar_t, bar_b = left, width - left, 196, 222
    scale = max(cash, total, 1) + 6
    draw.rectangle((bar_l, bar_t, bar_r, bar_b), fill=(255, 255, 255), outline=(90, 90, 90))
    fill_to = bar_l + (bar_r - bar_l) * total / scale
    draw.rectangle((bar_l, bar_t, fill_to, bar_b), fill=(230, 97, 92) if total > cash else (86, 156, 230))
    m = bar_l + (bar_r - bar_l) * cash / scale
    draw.line((m, bar_t - 8, m, bar_b + 8), fill=_INK, width=3)
    text_centered(draw, (min(max(m, bar_l + 30), bar_r - 30), bar_b + 18), f"M = {cash}", 13, _INK)
    text_centered(draw, (width / 2, height - 22), _stop_words(state), 14, _INK)
    return to_array(image)


GREED_TASK_SPEC = register_task(
    GameSpec(
        id="easy_money_greed",
        title="Ea$y Money Greed task",
        config=GreedTaskConfig,
        engine=G,
        describe_action=describe_action,
        explain_illegal=_explain,
        explain_outcome=lambda config, code: _REFUSED.get(code, f"outcome refused (code {code})"),
        action_help=lambda config: "actions are 0 stop and collect, 1 roll again",
        info=_info,
        render_ansi=render_ansi,
        render_rgb=render_rgb,
        observation_bounds=lambda config: (-1.0, 1.0),
        max_chance_outcomes=_max_outcomes,
        every_chance_enumerable=True,
    ),
    __name__,
)


GreedStopEnv, GreedStopGames = task_envs(
    GREED_TASK_SPEC, __name__, "GreedStop",
    """One Greed decision sequence: the first roll (2..6: a 1 would leave no decision) is made, then stop (ends,
    reward = the total if the named player can pay it, else 0) or roll again (a 1 ends with nothing). Infos hold
    ``action_mask``, ``named_cash``, ``total``, ``rolls``, and at the end ``collected``. ``chance=``
    (``dicearena.envs.common.chance.ScriptedChance``: the start ``[M, face]`` with face 1..5, then ``[face]`` per roll,
    faces 0..5) replaces the seeded chance. Render modes ``"ansi"`` and ``"rgb_array"``.""",
    """N Greed sequences in one batched engine behind SB3's ``VecEnv`` protocol, finished ones restarting: obs
    (N, 5), ``action_masks()`` (N, 2); a finished sequence's info has ``terminal_observation`` and ``episode``.""",
)
__getattr__ = sb3_names(__name__, GreedStopGames)  # GreedStopVecEnv
