"""Text and picture renderings of a Yay! state (read-only views of the engine state)."""

from __future__ import annotations

import numpy as np

from dicearena.envs.common.render import PLAYER_COLOURS, draw_die, new_canvas, text_centered, to_array

from . import engine as E

__all__ = ["render_ansi", "render_rgb", "standings"]

_INK = (30, 30, 30)
_GRID = (150, 150, 150)
_BLOCKED = (90, 90, 90)
_TOUCHED = (255, 236, 150)
_CROSSED = (160, 160, 160)

_EVENTS = {
    E.EVENT_NONE: "",
    E.EVENT_WROTE: "wrote",
    E.EVENT_BLOCKED: "blocked",
    E.EVENT_CROSSED: "crossed off an own number (throw not higher)",
    E.EVENT_NOT_HIGHER: "threw no higher, had nothing to cross off",
    E.EVENT_ALL_FILLED: "dice touched only filled squares: turn passed",
}


def standings(state: np.ndarray) -> list[tuple[int, int]]:
    """(uncrossed numbers, their sum) per seat: what decides the game."""
    return [(int(E.own_live_count(state, s)), int(E.own_live_sum(state, s))) for s in range(int(state[E.NUM_PLAYERS]))]


def _status(state: np.ndarray) -> str:
    phase, seat = int(state[E.PHASE]), int(state[E.CURRENT])
    if phase == E.PHASE_OVER:
        if state[E.TRUNCATED]:
            return f"stopped after {int(state[E.MAX_TURNS])} turns"
        seats = range(int(state[E.NUM_PLAYERS]))
        results = [f"player_{s} {'wins' if E.final_reward(state, s) > 0 else 'loses'}" for s in seats]
        return "game over: " + ", ".join(results)
    if phase == E.PHASE_START:
        return f"start rolls: player_{seat} rolls"
    dice = state[E.DICE : E.DICE + E.NUM_DICE].tolist()
    text = f"turn {int(state[E.TURN]) + 1}: player_{seat} threw {dice} = {int(state[E.TOTAL])}"
    if state[E.PREVIOUS]:
        text += f" (previous throw {int(state[E.PREVIOUS])})"
    if phase == E.PHASE_CROSS:
        text += ": not higher, must cross off an own number"
    return text


def render_ansi(state: np.ndarray) -> str:
    """The sheet: ``12a`` = 12 by player_0, ``(9b)`` crossed off, ``##`` blocked, ``*`` a touched empty square."""
    rows, cols = int(state[E.ROWS]), int(state[E.COLS])
    lines = [_status(state)]
    show_touch = state[E.PHASE] in (E.PHASE_DECIDE, E.PHASE_CROSS)
    for r in range(rows):
        cells = []
        for c in range(cols):
            s = r * cols + c
            code = int(state[E.BOARD + s])
            if code == E.EMPTY:
                cell = "*" if show_touch and state[E.TOUCHED + s] else "."
            elif code == E.BLOCKED:
                cell = "##"
            else:
                cell = f"{E.value_of(code)}{chr(ord('a') + E.owner(code))}"
                if E.is_crossed(code):
                    cell = f"({cell})"
            cells.append(f"{cell:>6}")
        lines.append("".join(cells))
    lines.append(
        "numbers (sum): "
        + ", ".join(f"player_{s} [{chr(ord('a') + s)}] {n} ({t})" for s, (n, t) in enumerate(standings(state)))
    )
    event = _EVENTS.get(int(state[E.LAST_EVENT]), "")
    if event and state[E.TURN] > 0:
        lines.append(f"last turn: {event}")
    return "\n".join(lines)


def render_rgb(state: np.ndarray) -> np.ndarray:
    """The sheet as a picture: numbers in the writer's colour (grey when crossed off), touched squares yellow."""
    rows, cols = int(state[E.ROWS]), int(state[E.COLS])
    cell, margin, header = 48, 16, 64
    image, draw = new_canvas(2 * margin + cols * cell, header + 2 * margin + rows * cell)
    show_touch = state[E.PHASE] in (E.PHASE_DECIDE, E.PHASE_CROSS)
    for i, face in enumerate(state[E.DICE : E.DICE + E.NUM_DICE].tolist()):
        draw_die(draw, margin + i * 44, 12, 36, int(face))
    text_centered(draw, (margin + 3 * 44 + 60, 30), f"= {int(state[E.TOTAL])}", 22, _INK)
    for r in range(rows):
        for c in range(cols):
            s = r * cols + c
            x, y = margin + c * cell, header + margin + r * cell
            code = int(state[E.BOARD + s])
            fill = _BLOCKED if code == E.BLOCKED else (_TOUCHED if show_touch and state[E.TOUCHED + s] else None)
            draw.rectangle((x, y, x + cell, y + cell), fill=fill, outline=_GRID)
            if code > E.BLOCKED:
                colour = _CROSSED if E.is_crossed(code) else PLAYER_COLOURS[E.owner(code)]
                text_centered(draw, (x + cell / 2, y + cell / 2), str(E.value_of(code)), 24, colour)
                if E.is_crossed(code):
                    draw.line((x + 6, y + cell - 6, x + cell - 6, y + 6), fill=_INK, width=2)
    return to_array(image)
