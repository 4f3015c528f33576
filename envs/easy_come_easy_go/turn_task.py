"""The turn task: one solitary turn of Easy Come, Easy Go, reward = the value of the prize collected (its freeze /
re-roll decision, rules "Task environments"): a one-player contract game (``turn_engine.py``) on the generic one-seat
faces; ``EasyComeEasyGoTurnVecEnv`` is the SB3 twin of ``EasyComeEasyGoTurnGames``. Its renderers (``ansi``,
``rgb_array``) show the decision: the dice (frozen ones marked), the roll number and each prize's value, the prizes
the dice satisfy marked; at the end, the prize collected."""

from __future__ import annotations

from typing import Any

import numpy as np

from dicearena.envs.common.chance import DiceChance
from dicearena.envs.common.contract import GameSpec, register_task
from dicearena.envs.common.render import draw_banner, draw_die, font, new_canvas, text_centered, to_array
from dicearena.envs.common.task_envs import task_envs
from dicearena.envs.common.vec_twins import sb3_names

from . import engine as E
from . import turn_engine as T
from .game import ACTION_HELP, explain_illegal
from .game import describe_action as _game_words
from .render import _FROZEN_FACE, _FROZEN_OUTLINE, _INK, _SATISFIED
from .turn_config import TurnTaskConfig, UniformIntValues

__all__ = ["NO_PRIZE", "TURN", "EasyComeEasyGoTurnEnv", "EasyComeEasyGoTurnGames", "TurnTaskConfig", "UniformIntValues",
           "render_ansi", "render_rgb"]

NO_PRIZE = -1  # info["prize"] of a turn that ended with every die frozen (as the game's LAST_PRIZE says "none")


def _info(config: TurnTaskConfig, state: np.ndarray) -> dict[str, Any]:
    """``prize_values`` of the episode; at its end ``prize``, the prize collected (``NO_PRIZE``, -1: none): an int
    on every end, so Gymnasium's vector envs can merge the infos of their envs key by key."""
    values = state[T.VALUES : T.VALUES + 2 * E.NUM_PRIZES].copy().view(np.float64)  # (T.prize_values, inlined)
    over = {"prize": int(state[E.LAST_PRIZE])} if state[E.PHASE] == E.PHASE_OVER else {}
    return {"prize_values": values, **over}


# --- Rendering: what the decision is about (the game's renderer draws a table of players, which a turn has not)


def _satisfied(state: np.ndarray) -> int:
    """The prizes the dice satisfy now (a bitmask; 0 unless the player is deciding)."""
    return int(E.satisfied_prizes(state)) if state[E.PHASE] == E.PHASE_DECIDE else 0


def _collected(state: np.ndarray) -> int:
    """The prize the turn collected, ``NO_PRIZE`` while it goes on or if it collected none."""
    return int(state[E.LAST_PRIZE]) if state[E.PHASE] == E.PHASE_OVER else NO_PRIZE


def _status(state: np.ndarray) -> str:
    """The decision, or how the turn ended."""
    rolls, prize = int(state[E.ROLLS]), _collected(state)
    if state[E.PHASE] == E.PHASE_OVER:
        if prize == NO_PRIZE:
            return f"Turn over after {rolls} rolls: every die frozen, no prize, reward 0"
        return f"Turn over: prize {prize} ({E.PRIZE_NAMES[prize]}) collected, reward {T.prize_values(state)[prize]:g}"
    if state[E.PHASE] == E.PHASE_DECIDE:
        return f"Roll {rolls} of at most 4: collect a satisfied prize, or freeze dice and re-roll"
    return "A fresh turn: the dice are about to be rolled"


def _best(state: np.ndarray) -> str:
    """The best value collectable now, while deciding."""
    if state[E.PHASE] != E.PHASE_DECIDE:
        return ""
    satisfied, values = _satisfied(state), T.prize_values(state)
    hits = [p for p in range(E.NUM_PRIZES) if (satisfied >> p) & 1]
    if not hits:
        return "Nothing to collect now: freeze and re-roll"
    best = max(hits, key=lambda p: values[p])
    return f"Best collectable now: {values[best]:g} (prize {best})"


def render_ansi(config: TurnTaskConfig | None, state: np.ndarray) -> str:
    """The turn as text: the decision (or the result), the dice ([x] = frozen), each prize's value (satisfied and
    collected ones marked), the best value collectable now."""
    lines = [f"Easy Come, Easy Go turn task | {_status(state)}"]
    if state[E.ROLLS] > 0:
        faces = [f"[{int(state[E.DICE + i])}]" if (state[E.FROZEN] >> i) & 1 else f" {int(state[E.DICE + i])} "
                 for i in range(E.NUM_DICE)]  # fmt: skip
        label = "Last dice" if state[E.PHASE] == E.PHASE_OVER else "Dice"
        lines.append(f"{label}: {' '.join(faces)}   ([x] = frozen)")
    satisfied, values, prize = _satisfied(state), T.prize_values(state), _collected(state)
    lines.append("Prizes and their values:")
    for p in range(E.NUM_PRIZES):
        mark = "  <- collected" if p == prize else "  <- satisfied by the dice" if (satisfied >> p) & 1 else ""
        lines.append(f"  {p} {E.PRIZE_NAMES[p]:<24} {values[p]:>10g}{mark}")
    best = _best(state)
    return "\n".join([*lines, best] if best else lines)


def render_rgb(config: TurnTaskConfig | None, state: np.ndarray) -> np.ndarray:
    """A (420, 600, 3) uint8 picture: the decision (or the result), the four dice (frozen ones blue, as the game
    draws them), the roll number and the best value collectable now, and the nine prizes with their values (a green
    border: the dice satisfy it; filled green: collected)."""
    width, height = 600, 420
    image, draw = new_canvas(width, height)
    over, prize = state[E.PHASE] == E.PHASE_OVER, _collected(state)
    banner = ((170, 220, 170) if prize != NO_PRIZE else (214, 208, 196)) if over else (226, 221, 206)
    draw_banner(draw, width, _status(state), banner, size=15)

    size, gap, left, top = 60, 16, 24, 56
    for i in range(E.NUM_DICE):
        x = left + i * (size + gap)
        if state[E.ROLLS] == 0:
            draw.rounded_rectangle((x, top, x + size, top + size), radius=9, outline=(170, 170, 170), width=2)
            continue
        frozen, face = bool((state[E.FROZEN] >> i) & 1), int(state[E.DICE + i])
        colours = (_FROZEN_FACE, _FROZEN_OUTLINE) if frozen else ((255, 255, 255), (70, 70, 70))
        draw_die(draw, x, top, size, face, face=colours[0], outline=colours[1], outline_width=4 if frozen else 2)
        text_centered(draw, (x + size / 2, top + size + 13), f"{face}  FROZEN" if frozen else f"{face}", 12,
                      _FROZEN_OUTLINE if frozen else _INK)  # fmt: skip
    info_x = left + E.NUM_DICE * (size + gap) + 8
    rolls = int(state[E.ROLLS])
    draw.text((info_x, top + 2), f"roll {rolls} of at most 4" if rolls else "no roll yet", fill=_INK, font=font(16))
    frozen_count = bin(int(state[E.FROZEN])).count("1")
    draw.text((info_x, top + 26), f"{frozen_count} of 4 dice frozen", fill=_INK, font=font(14))
    draw.text((info_x, top + 48), _best(state), fill=_SATISFIED, font=font(13))

    satisfied, values = _satisfied(state), T.prize_values(state)
    row_h, y0 = 28, 148
    for p in range(E.NUM_PRIZES):
        y = y0 + p * row_h
        hit, got = bool((satisfied >> p) & 1), p == prize
        fill = (170, 220, 170) if got else (232, 244, 230) if hit else (255, 255, 255)
        outline = _SATISFIED if hit or got else (150, 150, 150)
        draw.rounded_rectangle((left, y, width - left, y + row_h - 4), radius=5, fill=fill, outline=outline,
                               width=3 if hit else 1)  # fmt: skip
        middle = y + (row_h - 4) / 2
        draw.text((left + 10, middle), f"{p}  {E.PRIZE_NAMES[p]}", fill=_INK, font=font(14), anchor="lm")
        mark = "collected" if got else "satisfied" if hit else ""
        draw.text((width - left - 130, middle), mark, fill=_SATISFIED, font=font(13), anchor="lm")
        draw.text((width - left - 10, middle), f"{values[p]:g}", fill=_INK, font=font(15), anchor="rm")
    return to_array(image)


def describe_action(config: TurnTaskConfig | None, state: np.ndarray | None, action: int) -> str:
    """The game's words (``game.describe_action``: the turn's state holds the game's); with a state at a decision, a
    prize's value in this episode too, since the values are what the task is about."""
    words = _game_words(None, state, action)
    if state is None or state[E.PHASE] != E.PHASE_DECIDE or not 0 <= action < E.NUM_PRIZES:
        return words
    return f"{words}, worth {T.prize_values(state)[action]:g}"


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
        render_ansi=render_ansi,
        render_rgb=render_rgb,
        dice=lambda config, dice: DiceChance(dice, E.NUM_FACES, E.NUM_DICE, "the turn task"),
        max_chance_outcomes=lambda config: E.NUM_FACES**E.NUM_DICE,  # rolls; drawn prize values are sampled
    ),
    __name__,
)


EasyComeEasyGoTurnEnv, EasyComeEasyGoTurnGames = task_envs(
    TURN, __name__, "EasyComeEasyGoTurn",
    """One turn: roll, then collect a satisfied prize (ends, reward = its value) or freeze and re-roll; infos hold
    ``action_mask``, ``prize_values`` and at the end ``prize`` (``NO_PRIZE``, -1: none). ``dice`` (e.g.
    ``ScriptedDice``, one ``roll(k)`` per roll) replaces the seeded dice (drawn values stay seeded). Render modes
    ``"ansi"`` and ``"rgb_array"``.""",
    """N turns in one batched engine behind SB3's ``VecEnv`` protocol, finished turns restarting: obs (N, 86),
    ``action_masks()`` (N, 24), ``prize_values`` (N, 9); a finished turn's info has ``terminal_observation``,
    ``episode``, ``prize_values`` and ``prize`` (-1: none).""",
    {"prize_values": T.prize_values},
)
__getattr__ = sb3_names(__name__, EasyComeEasyGoTurnGames)  # EasyComeEasyGoTurnVecEnv
