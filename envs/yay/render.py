"""Text and picture renderings of a Yay! state (read-only views of the engine state)."""

from __future__ import annotations

import numpy as np

from dicearena.envs.common.render import (
    PLAYER_COLOURS,
    TITLE_HEIGHT,
    Title,
    draw_die,
    draw_legend,
    draw_title,
    fit_text,
    font,
    new_canvas,
    text_centered,
    to_array,
)

from . import engine as E

__all__ = ["layout", "render_ansi", "render_rgb", "standings", "title"]

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


_PHASES = {
    E.PHASE_START: "phase: start rolls (chance: who moves first)",
    E.PHASE_THROW: "phase: throw (chance: three dice land)",
    E.PHASE_DECIDE: "phase: write, block or throw again",
    E.PHASE_CROSS: "phase: not higher, cross off an own number",
    E.PHASE_OVER: "phase: over",
}


def _winners(state: np.ndarray) -> list[int]:
    return [s for s in range(int(state[E.NUM_PLAYERS])) if E.final_reward(state, s) > 0]


def title(state: np.ndarray) -> Title:
    """The picture's title lines: game, turn, mover, phase (``dicearena.envs.common.render.Title``)."""
    phase, seat, turn = int(state[E.PHASE]), int(state[E.CURRENT]), int(state[E.TURN])
    if phase == E.PHASE_OVER:
        if state[E.TRUNCATED]:
            return Title("Yay!", f"stopped after {turn} turns", "no winner", _PHASES[phase])
        winners = _winners(state)
        names = ", ".join(f"player_{w}" for w in winners)
        mover = f"{names} win{'s' if len(winners) == 1 else ''}"
        return Title("Yay!", f"game over after {turn} turns", mover, _PHASES[phase],
                     winners[0] if len(winners) == 1 else None)  # fmt: skip
    if phase == E.PHASE_START:
        return Title("Yay!", "before the first turn", f"player_{seat} rolls to start", _PHASES[phase], seat)
    return Title("Yay!", f"turn {turn + 1} of at most {int(state[E.MAX_TURNS])}", f"player_{seat} to move",
                 _PHASES[phase], seat)  # fmt: skip


_CELL, _MARGIN, _DICE_ROW, _LINE = 48, 16, 48, 20
_MIN_WIDTH = 440  # a small sheet still leaves the title and the standings room


def layout(rows: int, cols: int, num_players: int) -> dict[str, tuple[int, int, int, int]]:
    """The picture's regions (x0, y0, x1, y1) for a ``rows`` x ``cols`` sheet and ``num_players`` seats: ``title``,
    ``dice``, ``sheet``, ``legend`` (a line per seat: colour, standings, who moves) and ``last`` (the last turn).
    Fixed by the config, so every frame of a game has the same size (a video needs equal frames)."""
    width = max(2 * _MARGIN + cols * _CELL, _MIN_WIDTH)
    left = (width - cols * _CELL) // 2
    dice_top = TITLE_HEIGHT + 8
    sheet_top = dice_top + _DICE_ROW + 8
    sheet_bottom = sheet_top + rows * _CELL
    legend_top = sheet_bottom + 12
    last_top = legend_top + num_players * _LINE + 4
    return {
        "title": (0, 0, width, TITLE_HEIGHT),
        "dice": (_MARGIN, dice_top, width - _MARGIN, dice_top + _DICE_ROW),
        "sheet": (left, sheet_top, left + cols * _CELL, sheet_bottom),
        "legend": (_MARGIN, legend_top, width - _MARGIN, legend_top + num_players * _LINE),
        "last": (_MARGIN, last_top, width - _MARGIN, last_top + _LINE),
        "picture": (0, 0, width, last_top + _LINE + _MARGIN // 2),
    }


def _legend_rows(state: np.ndarray) -> list[str]:
    """Per seat: its letter, uncrossed numbers and their sum (what decides the game), and who moves or won."""
    phase, current = int(state[E.PHASE]), int(state[E.CURRENT])
    winners = _winners(state) if phase == E.PHASE_OVER and not state[E.TRUNCATED] else []
    rows = []
    for s, (count, total) in enumerate(standings(state)):
        mark = ""
        if phase == E.PHASE_OVER:
            mark = "  WINNER" if s in winners else ""
        elif s == current:
            mark = "  <- rolls to start" if phase == E.PHASE_START else "  <- to move"
        rows.append(f"player_{s} [{chr(ord('a') + s)}]: {count} number{'s' * (count != 1)}, sum {total}{mark}")
    return rows


def render_rgb(state: np.ndarray) -> np.ndarray:
    """The sheet as a picture, as the text view tells it: the title lines (game, turn, mover, phase), the throw,
    the sheet (numbers in the writer's colour, grey when crossed off; touched squares yellow), then a legend line
    per seat in that seat's colour with its standings and who moves, and the last turn."""
    rows, cols, n = int(state[E.ROWS]), int(state[E.COLS]), int(state[E.NUM_PLAYERS])
    box = layout(rows, cols, n)
    image, draw = new_canvas(box["picture"][2], box["picture"][3])
    width = box["picture"][2]
    draw_title(draw, box["title"], title(state))

    x0, y0, _, _ = box["dice"]
    if state[E.TOTAL] > 0 or state[E.PHASE] == E.PHASE_START:
        for i, face in enumerate(state[E.DICE : E.DICE + E.NUM_DICE].tolist()):
            draw_die(draw, x0 + i * 44, y0 + 6, 36, int(face))
        throw = f"= {int(state[E.TOTAL])}" if state[E.PHASE] != E.PHASE_START else "start roll"
        if state[E.PREVIOUS]:
            throw += f"   (previous throw {int(state[E.PREVIOUS])})"
        draw.text((x0 + 3 * 44 + 8, y0 + _DICE_ROW / 2), fit_text(throw, 20, width - x0 - 3 * 44 - 24), fill=_INK,
                  font=font(20), anchor="lm")  # fmt: skip

    show_touch = state[E.PHASE] in (E.PHASE_DECIDE, E.PHASE_CROSS)
    left, top, _, _ = box["sheet"]
    for r in range(rows):
        for c in range(cols):
            s = r * cols + c
            x, y = left + c * _CELL, top + r * _CELL
            code = int(state[E.BOARD + s])
            fill = _BLOCKED if code == E.BLOCKED else (_TOUCHED if show_touch and state[E.TOUCHED + s] else None)
            draw.rectangle((x, y, x + _CELL, y + _CELL), fill=fill, outline=_GRID)
            if code > E.BLOCKED:
                colour = _CROSSED if E.is_crossed(code) else PLAYER_COLOURS[E.owner(code)]
                text_centered(draw, (x + _CELL / 2, y + _CELL / 2), str(E.value_of(code)), 24, colour)
                if E.is_crossed(code):
                    draw.line((x + 6, y + _CELL - 6, x + _CELL - 6, y + 6), fill=_INK, width=2)

    lx, ly, lx1, _ = box["legend"]
    draw_legend(draw, lx, ly, _legend_rows(state), lx1 - lx, step=_LINE)
    event = _EVENTS.get(int(state[E.LAST_EVENT]), "")
    if event and state[E.TURN] > 0:
        seat = int(E.last_turn_seat(state))
        x, y, x1, _ = box["last"]
        draw.text((x, y), fit_text(f"last turn (player_{seat}): {event}", 14, x1 - x), fill=_INK, font=font(14))
    return to_array(image)
