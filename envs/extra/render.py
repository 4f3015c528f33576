"""Text and picture renderings of an Extra! state (read-only views of the engine state)."""

from __future__ import annotations

import numpy as np
from PIL import ImageDraw

from dicearena.envs.common.render import (
    PLAYER_COLOURS,
    TITLE_HEIGHT,
    Title,
    draw_die,
    draw_title,
    font,
    new_canvas,
    text_centered,
    to_array,
)

from . import engine as E

__all__ = ["render_ansi", "render_rgb", "title"]

_INK = (30, 30, 30)
_MINUS = (236, 200, 196)
_ZERO = (225, 225, 225)
_FACTOR = (255, 255, 255)
_LAST_BOX = (173, 216, 240)  # the light-blue last box of an EXTRA column
_CHECK = (20, 20, 20)
_FINISHED = (120, 120, 120)


def _seat(state: np.ndarray, seat: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, bool]:
    base = E.PLAYERS + seat * E.PLAYER_SIZE
    rows = state[base + E.P_ROWS : base + E.P_ROWS + E.NUM_ROWS]
    numbers = state[base + E.P_NUMBER : base + E.P_NUMBER + E.NUM_COLUMNS]
    checks = state[base + E.P_CHECKS : base + E.P_CHECKS + E.NUM_COLUMNS]
    return base, rows, numbers, checks, bool(state[base + E.P_DONE])


def _winners(state: np.ndarray) -> list[int]:
    """The seats that win an ended game (the engine's rule)."""
    return [s for s in range(int(state[E.NUM_PLAYERS])) if E.wins(state, s)]


def _status(state: np.ndarray) -> str:
    n = int(state[E.NUM_PLAYERS])
    phase = state[E.PHASE]
    if phase == E.PHASE_OVER:
        if n == 1:
            total = int(E.score(state, 0))
            return f"game over after {state[E.ROUND]} rounds: {total} points, {'won' if _winners(state) else 'lost'}"
        names = ", ".join(f"player_{s}" for s in _winners(state))
        return f"game over after {state[E.ROUND]} rounds: {names} win{'s' if ',' not in names else ''}"
    if phase == E.PHASE_ROLL:
        return f"round {state[E.ROUND] + 1}: throw pending"
    deciding = [f"player_{s}" for s in range(n) if E.must_act(state, s)]
    dice = " ".join(str(int(v)) for v in state[E.DICE : E.DICE + E.NUM_DICE])
    return f"round {state[E.ROUND]}, throw {dice}: {', '.join(deciding) or 'nobody'} to decide"


def render_ansi(state: np.ndarray) -> str:
    """Each sheet as text: per row the minus zone (X/-), the 0 box, factors x1..x5 (X/.), points and value."""
    n = int(state[E.NUM_PLAYERS])
    lines = [f"Extra! ({n} player{'s' if n > 1 else ''}) | {_status(state)}"]
    widest = int(max(state[E.MINUS : E.MINUS + E.NUM_ROWS]))
    for seat in range(n):
        _, rows, numbers, checks, done = _seat(state, seat)
        flag = "finished" if done else ("to decide" if E.must_act(state, seat) else "playing")
        lines.append(f"player_{seat}: score {int(E.score(state, seat))}, {flag}")
        lines.append(f"  sum {'minus':<{widest}} 0 x12345  pts  value")
        for r in range(E.NUM_ROWS):
            minus = int(state[E.MINUS + r])
            k = int(rows[r])
            zone = ("X" * min(k, minus) + "-" * (minus - min(k, minus))).ljust(widest)
            zero = "X" if k > minus else "o"
            factors = "".join("X" if k > minus + 1 + f else "." for f in range(E.NUM_FACTORS))
            value = int(E.row_score(state, r, k))
            lines.append(f"  {r + E.MIN_SUM:>3} {zone} {zero} {factors} {int(state[E.POINTS + r]):>4} {value:>6}")
        cols = []
        for j in range(E.NUM_COLUMNS):
            length = int(state[E.COLUMN_LENGTH + j])
            label = str(int(numbers[j])) if numbers[j] else " "
            cols.append(f"[{label}] {'X' * int(checks[j])}{'.' * (length - int(checks[j]))}")
        lines.append(f"  EXTRA {'   '.join(cols)}")
    return "\n".join(lines)


_BOX = 17
_GAP = 2
_PANEL_W = 470
_PANEL_H = 300
_HEADER = TITLE_HEIGHT + 72  # the title lines, then the throw


def _draw_sheet(draw: ImageDraw.ImageDraw, state: np.ndarray, seat: int, x0: int, y0: int) -> None:
    """One player's sheet: rows of boxes (minus, 0, x1..x5) with checks, points, value; the EXTRA chart."""
    _, rows, numbers, checks, done = _seat(state, seat)
    colour = PLAYER_COLOURS[seat]
    to_decide = E.must_act(state, seat)
    draw.rectangle((x0, y0, x0 + _PANEL_W - 10, y0 + _PANEL_H - 10), outline=colour, width=3)
    draw.rectangle((x0, y0, x0 + _PANEL_W - 10, y0 + 24), fill=colour)
    flag = "FINISHED" if done else ("to decide" if to_decide else "playing")
    draw.text((x0 + 8, y0 + 5), f"player_{seat}   score {int(E.score(state, seat))}   {flag}", fill=_INK, font=font(14))

    widest = int(max(state[E.MINUS : E.MINUS + E.NUM_ROWS]))
    left = x0 + 34
    top = y0 + 48
    step = _BOX + _GAP
    for f in range(E.NUM_FACTORS + 1):
        label = "0" if f == 0 else f"x{f}"
        text_centered(draw, (left + (widest + f) * step + _BOX / 2, top - 10), label, 11, _INK)
    for r in range(E.NUM_ROWS):
        y = top + r * step
        minus = int(state[E.MINUS + r])
        k = int(rows[r])
        text_centered(draw, (x0 + 18, y + _BOX / 2), str(r + E.MIN_SUM), 13, _INK)
        for b in range(minus + 1 + E.NUM_FACTORS):
            slot = widest - minus + b  # right-align the minus zone so the 0 boxes line up
            bx = left + slot * step
            fill = _MINUS if b < minus else (_ZERO if b == minus else _FACTOR)
            draw.rectangle((bx, y, bx + _BOX, y + _BOX), fill=fill, outline=(90, 90, 90))
            if b < k:
                draw.line((bx + 3, y + 3, bx + _BOX - 3, y + _BOX - 3), fill=_CHECK, width=2)
                draw.line((bx + 3, y + _BOX - 3, bx + _BOX - 3, y + 3), fill=_CHECK, width=2)
        px = left + (widest + 1 + E.NUM_FACTORS) * step + 6
        draw.text((px, y + 2), f"{int(state[E.POINTS + r]):>3}", fill=_FINISHED, font=font(12))
        draw.text((px + 32, y + 2), f"{int(E.row_score(state, r, k)):>5}", fill=_INK, font=font(12))

    # EXTRA chart: three columns, number on top, the last (light-blue) box at the bottom.
    cx0 = x0 + _PANEL_W - 10 - 3 * (_BOX + 8) - 8
    text_centered(draw, (cx0 + 1.5 * (_BOX + 8), y0 + 36), "EXTRA", 12, _INK)
    for j in range(E.NUM_COLUMNS):
        cx = cx0 + j * (_BOX + 8)
        draw.rectangle((cx, y0 + 46, cx + _BOX, y0 + 46 + _BOX), fill=(255, 250, 220), outline=(90, 90, 90))
        if numbers[j]:
            text_centered(draw, (cx + _BOX / 2, y0 + 46 + _BOX / 2), str(int(numbers[j])), 13, _INK)
        length = int(state[E.COLUMN_LENGTH + j])
        box = min(_BOX, (_PANEL_H - 90) // max(length, 1) - 2)
        for b in range(length):
            by = y0 + 70 + b * (box + 2)
            fill = _LAST_BOX if b == length - 1 else _FACTOR
            draw.rectangle((cx, by, cx + _BOX, by + box), fill=fill, outline=(90, 90, 90))
            if b < checks[j]:
                draw.line((cx + 3, by + 3, cx + _BOX - 3, by + box - 3), fill=_CHECK, width=2)
                draw.line((cx + 3, by + box - 3, cx + _BOX - 3, by + 3), fill=_CHECK, width=2)


def title(state: np.ndarray) -> Title:
    """The picture's title lines: game, turn (the round), mover (who decides: every seat still playing decides on
    the same throw), phase (``dicearena.envs.common.render.Title``)."""
    n, phase, rounds = int(state[E.NUM_PLAYERS]), int(state[E.PHASE]), int(state[E.ROUND])
    game = "Extra!" if n > 1 else "Extra! (solitaire)"
    if phase == E.PHASE_OVER:
        winners = _winners(state)
        if n == 1:
            mover = f"{int(E.score(state, 0))} points: {'won' if winners else 'lost'}"
        else:
            mover = f"{', '.join(f'player_{s}' for s in winners)} win{'s' if len(winners) == 1 else ''}"
        return Title(game, f"game over after {rounds} rounds", mover, "phase: over",
                     winners[0] if len(winners) == 1 and n > 1 else None)  # fmt: skip
    if phase == E.PHASE_ROLL:
        return Title(game, f"round {rounds + 1}", "nobody: the dice are thrown", "phase: throw (chance)")
    deciding = [s for s in range(n) if E.must_act(state, s)]
    names = ", ".join(f"player_{s}" for s in deciding) or "nobody"
    dice = " ".join(str(int(v)) for v in state[E.DICE : E.DICE + E.NUM_DICE])
    return Title(game, f"round {rounds}", f"{names} to decide", f"phase: split the throw {dice}",
                 deciding[0] if len(deciding) == 1 else None)  # fmt: skip


def render_rgb(state: np.ndarray) -> np.ndarray:
    """A uint8 picture: the title lines (game, round, who decides, phase), the throw as pips, then every player's
    sheet (two per line). Its size depends only on the number of players."""
    n = int(state[E.NUM_PLAYERS])
    per_line = 1 if n == 1 else 2
    lines = (n + per_line - 1) // per_line
    width = per_line * _PANEL_W + 10
    height = _HEADER + lines * _PANEL_H
    image, draw = new_canvas(width, height)
    draw_title(draw, (0, 0, width, TITLE_HEIGHT), title(state))
    if state[E.ROUND] > 0:
        size, gap = 52, 14
        left = (width - (E.NUM_DICE * size + (E.NUM_DICE - 1) * gap)) // 2
        for i in range(E.NUM_DICE):
            draw_die(draw, left + i * (size + gap), TITLE_HEIGHT + 10, size, int(state[E.DICE + i]))
    for seat in range(n):
        x0 = 10 + (seat % per_line) * _PANEL_W
        y0 = _HEADER + (seat // per_line) * _PANEL_H
        _draw_sheet(draw, state, seat, x0, y0)
    return to_array(image)
