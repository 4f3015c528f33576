"""Text and picture renderings of an Easy Come, Easy Go state (read-only views of the engine state)."""

from __future__ import annotations

import numpy as np

from dicearena.envs.common.render import (
    PLAYER_COLOURS,
    TITLE_HEIGHT,
    Title,
    draw_die,
    draw_legend,
    draw_title,
    font,
    new_canvas,
    text_centered,
    to_array,
)

from . import engine as E

__all__ = ["render_ansi", "render_rgb", "title"]

_CENTRE_CARD = (226, 221, 206)
_FROZEN_FACE = (188, 212, 250)
_FROZEN_OUTLINE = (27, 64, 150)
_SATISFIED = (28, 140, 60)
_INK = (30, 30, 30)


def _holder(owner: int) -> str:
    return "centre" if owner == E.CENTRE else f"player_{owner}"


def _status(state: np.ndarray) -> str:
    """Whose turn, or how the game ended."""
    phase = state[E.PHASE]
    if phase == E.PHASE_OVER:
        if state[E.WINNER] >= 0:
            return f"player_{state[E.WINNER]} wins (held 3+ prizes at the start of their turn)"
        return f"truncated after {state[E.MAX_TURNS]} turns: no winner"
    if phase == E.PHASE_SETUP:
        contenders = [f"player_{s}" for s in range(state[E.NUM_PLAYERS]) if (state[E.SETUP_CONTENDERS] >> s) & 1]
        return f"roll-off for the first turn among {', '.join(contenders)}"
    roll = state[E.ROLLS] + (phase == E.PHASE_ROLL)
    return f"turn {state[E.TURN]} of {state[E.MAX_TURNS]}: player_{state[E.CURRENT]} to act, roll {roll} of at most 4"


def _last_turn(state: np.ndarray) -> str:
    player = state[E.LAST_PLAYER]
    if player < 0:
        return "Last turn: none yet"
    prize = state[E.LAST_PRIZE]
    if prize < 0:
        return f"Last turn: player_{player} froze every die, no prize"
    source = "the centre" if state[E.LAST_FROM] == E.CENTRE else f"player_{state[E.LAST_FROM]}"
    return f"Last turn: player_{player} collected prize {prize} ({E.PRIZE_NAMES[prize]}) from {source}"


def _satisfied(state: np.ndarray) -> int:
    return int(E.satisfied_prizes(state)) if state[E.PHASE] == E.PHASE_DECIDE else 0


def render_ansi(state: np.ndarray) -> str:
    """The whole table as text: status, dice ([x] = frozen), the nine prizes and holders, last turn."""
    n = int(state[E.NUM_PLAYERS])
    lines = [f"Easy Come, Easy Go ({n} players) | {_status(state)}"]
    if state[E.ROLLS] > 0:
        faces = []
        for i in range(E.NUM_DICE):
            v = int(state[E.DICE + i])
            faces.append(f"[{v}]" if (state[E.FROZEN] >> i) & 1 else f" {v} ")
        label = "Last dice:" if state[E.PHASE] == E.PHASE_OVER else "Dice:"
        lines.append(f"{label} {' '.join(faces)}   ([x] = frozen)")
    satisfied = _satisfied(state)
    lines.append("Prizes:")
    for p in range(E.NUM_PRIZES):
        mark = "  <- satisfied by the dice" if (satisfied >> p) & 1 else ""
        lines.append(f"  {p} {E.PRIZE_NAMES[p]:<24} {_holder(int(state[E.OWNER + p]))}{mark}")
    held = ", ".join(f"player_{s} {int(E.prizes_held(state, s))}" for s in range(n))
    lines.append(f"Prizes held: {held}")
    lines.append(_last_turn(state))
    return "\n".join(lines)


def title(state: np.ndarray) -> Title:
    """The picture's title lines: game, turn, mover, phase (``dicearena.envs.common.render.Title``)."""
    phase, turn = int(state[E.PHASE]), int(state[E.TURN])
    game = "Easy Come, Easy Go"
    if phase == E.PHASE_OVER:
        winner = int(state[E.WINNER])
        if winner >= 0:
            return Title(game, f"game over in turn {turn}", f"player_{winner} wins", "phase: over", winner)
        return Title(game, f"stopped after {int(state[E.MAX_TURNS])} turns", "no winner", "phase: over")
    if phase == E.PHASE_SETUP:
        roller = int(state[E.SETUP_ROLLER])
        return Title(game, "before the first turn", f"player_{roller} rolls off",
                     "phase: roll-off for the first turn (chance)")  # fmt: skip
    seat, rolls = int(state[E.CURRENT]), int(state[E.ROLLS])
    if phase == E.PHASE_ROLL:
        what = f"phase: roll {rolls + 1} of at most 4 (chance)"
    else:
        what = f"phase: collect a prize or freeze dice (roll {rolls} of at most 4)"
    return Title(game, f"turn {turn} of {int(state[E.MAX_TURNS])}", f"player_{seat} to act", what, seat)


def render_rgb(state: np.ndarray) -> np.ndarray:
    """A (460, 720, 3) uint8 picture: the title lines (game, turn, mover, phase), dice as pips (frozen ones blue),
    each player's colour and prizes held, prize cards coloured by holder, the last turn."""
    width, height = 720, 460
    image, draw = new_canvas(width, height)
    n = int(state[E.NUM_PLAYERS])
    over = state[E.PHASE] == E.PHASE_OVER

    draw_title(draw, (0, 0, width, TITLE_HEIGHT), title(state))

    # Dice row.
    size, gap, left, top = 72, 22, 24, 62
    for i in range(E.NUM_DICE):
        x = left + i * (size + gap)
        frozen = bool((state[E.FROZEN] >> i) & 1)
        if state[E.ROLLS] > 0:
            face, outline = (_FROZEN_FACE, _FROZEN_OUTLINE) if frozen else ((255, 255, 255), (70, 70, 70))
            draw_die(
                draw, x, top, size, int(state[E.DICE + i]), face=face, outline=outline, outline_width=4 if frozen else 2
            )
            label = f"{int(state[E.DICE + i])}  FROZEN" if frozen else f"{int(state[E.DICE + i])}"
            text_centered(draw, (x + size / 2, top + size + 14), label, 13, _FROZEN_OUTLINE if frozen else _INK)
        else:
            draw.rounded_rectangle((x, top, x + size, top + size), radius=10, outline=(170, 170, 170), width=2)

    # Players legend: colour, prizes held, who acts.
    rows = []
    for s in range(n):
        marker = " <- to act" if not over and s == state[E.CURRENT] and state[E.PHASE] != E.PHASE_SETUP else ""
        marker = " WINNER" if over and s == state[E.WINNER] else marker
        held = int(E.prizes_held(state, s))
        rows.append(f"player_{s}: {held} prize{'' if held == 1 else 's'}{marker}")
    lx = left + 4 * (size + gap) + 20
    draw_legend(draw, lx, 50, rows, width - lx - 8)

    # Prize cards, 3 x 3, coloured by holder; a green border when the dice satisfy the prize now.
    satisfied = _satisfied(state)
    card_w, card_h, cx0, cy0, cgap = 220, 74, 24, 176, 8
    for p in range(E.NUM_PRIZES):
        x = cx0 + (p % 3) * (card_w + cgap)
        y = cy0 + (p // 3) * (card_h + cgap)
        owner = int(state[E.OWNER + p])
        fill = _CENTRE_CARD if owner == E.CENTRE else PLAYER_COLOURS[owner]
        hit = (satisfied >> p) & 1
        draw.rounded_rectangle(
            (x, y, x + card_w, y + card_h),
            radius=8,
            fill=fill,
            outline=_SATISFIED if hit else (90, 90, 90),
            width=5 if hit else 1,
        )
        text_centered(draw, (x + card_w / 2, y + 22), f"{p}: {E.PRIZE_NAMES[p]}", 15, _INK)
        text_centered(draw, (x + card_w / 2, y + 50), _holder(owner), 13, _INK)

    draw.text((24, height - 32), _last_turn(state), fill=_INK, font=font(15))
    return to_array(image)
