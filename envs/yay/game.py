"""Yay! on the game contract: its spec (words, renderers, agents), which the generic faces and every tool
read; the rules stay in ``engine.py``."""

from __future__ import annotations

import numpy as np

from dicearena.envs.common.contract import GameSpec, register_game
from dicearena.envs.common.dice_outcomes import BAD_FACE_WORDS

from . import engine as E
from .chance import throw_chance
from .config import YayConfig
from .render import render_ansi, render_rgb, standings

__all__ = [
    "EVENT_NAMES", "YAY", "action_help", "describe_action", "explain_illegal", "explain_outcome", "illegal_reason",
    "seat_info",
]  # fmt: skip

# What ended the last turn, as ``infos[agent]["last_event"]`` words it.
EVENT_NAMES = {
    E.EVENT_NONE: None,
    E.EVENT_WROTE: "wrote",
    E.EVENT_BLOCKED: "blocked",
    E.EVENT_CROSSED: "crossed_off",
    E.EVENT_NOT_HIGHER: "not_higher",
    E.EVENT_ALL_FILLED: "all_filled",
}


def action_help(rows: int, cols: int) -> str:
    """What the action ids of a ``rows x cols`` sheet are (for out-of-range errors)."""
    n = rows * cols
    return (
        f"actions are 0..{3 * n}: 0..{n - 1} write the total at square s, {n}..{2 * n - 1} block square s - {n}, "
        f"{2 * n}..{3 * n - 1} cross off own number at square s - {2 * n}, {3 * n} throw again "
        f"(square s = row * {cols} + col)"
    )


def _square_words(action: int, rows: int, cols: int) -> str:
    """Wording of an in-range action id on a ``rows x cols`` sheet, e.g. ``write at row 2, col 5``."""
    squares = rows * cols
    if action == 3 * squares:
        return "throw again"
    verb = ("write at", "block", "cross off own number at")[action // squares]
    s = action % squares
    return f"{verb} row {s // cols}, col {s % cols}"


_VALUE_OF = getattr(E.value_of, "py_func", E.value_of)  # the rule's Python function (no compile to word a move)


def describe_action(config: YayConfig | None, state: np.ndarray | None, action: int) -> str:
    """Human wording of an action id, e.g. ``write at row 2, col 5``. The sheet's size comes from the state, else
    the config, else the default 8x8. With a state at a decision the words name the total written (``write 12 at row
    2, col 5``), the total the next throw must beat, or the number crossed off, what a player choosing needs."""
    if state is not None:
        rows, cols = int(state[E.ROWS]), int(state[E.COLS])
    else:
        rows, cols = (8, 8) if config is None else (config.rows, config.cols)
    squares = rows * cols
    if not 0 <= action <= 3 * squares:
        return f"action {action} (out of range 0..{3 * squares})"
    words = _square_words(action, rows, cols)
    if state is None or state[E.PHASE] not in (E.PHASE_DECIDE, E.PHASE_CROSS):
        return words
    kind, s = divmod(action, squares)
    if action == 3 * squares:
        return f"throw again (the next throw must beat {int(state[E.TOTAL])})"
    if kind == 0:
        return f"write {int(state[E.TOTAL])} at row {s // cols}, col {s % cols}"
    if kind == 2 and state[E.BOARD + s] > E.BLOCKED:
        return f"cross off own {_VALUE_OF(int(state[E.BOARD + s]))} at row {s // cols}, col {s % cols}"
    return words


def illegal_reason(state: np.ndarray, action: int) -> str:
    """Why the player to move may not play the in-range ``action`` now, in the rules' words."""
    squares = int(state[E.ROWS] * state[E.COLS])
    kind, s = divmod(action, squares)
    if state[E.PHASE] == E.PHASE_CROSS:
        return "a throw that was not higher forces crossing off one of your own uncrossed numbers"
    if action == 3 * squares:
        return "the first throw counts: no throwing again in a player's first turn"
    if kind == 2:
        return "crossing off happens only after a throw that was not higher"
    if not state[E.TOUCHED + s]:
        return "no die touches that square"
    if state[E.BOARD + s] != E.EMPTY:
        return "that square is already filled"
    if kind == 0:
        return f"the total {int(state[E.TOTAL])} is not higher than every uncrossed opponent number beside it"
    return "blocking is allowed only when no touched square allows writing"


def explain_illegal(config: YayConfig | None, state: np.ndarray, seat: int, action: int) -> str:
    """Why ``action`` is not allowed for ``seat`` now (the spec's form of ``illegal_reason``)."""
    if state[E.PHASE] not in (E.PHASE_DECIDE, E.PHASE_CROSS):
        return "the game is not waiting for a decision"
    if seat != state[E.CURRENT]:
        return f"it is player_{int(state[E.CURRENT])}'s turn"
    if not 0 <= action <= 3 * int(state[E.ROWS] * state[E.COLS]):
        return f"actions are 0..{3 * int(state[E.ROWS] * state[E.COLS])}"
    return illegal_reason(state, action)


_OUTCOME_WORDS = {
    E.OUTCOME_BAD_FACE: BAD_FACE_WORDS,
    E.OUTCOME_BAD_FLAG: "a throw's touched flags (after the 3 faces, one per square, row-major) are 0 or 1",
    E.OUTCOME_NOTHING_TOUCHED: "a throw lands on the sheet, so it touches at least one square",
}


def explain_outcome(config: YayConfig | None, code: int) -> str:
    """Why an injected outcome (3 faces 0..5, then at a throw the touched flags) was refused."""
    return _OUTCOME_WORDS.get(code, f"outcome refused (code {code})")


def seat_info(config: YayConfig | None, state: np.ndarray) -> dict:
    """What every agent's AEC info holds: the last throw's pips and total, the previous total, turns played,
    standings (uncrossed numbers and their sum per seat), what ended the last turn and whose turn that was.
    Sequences are tuples, so the per-agent copies of one info share nothing mutable."""
    last = int(E.last_turn_seat(state))
    return {
        "dice": tuple(state[E.DICE : E.DICE + E.NUM_DICE].tolist()),
        "total": int(state[E.TOTAL]),
        "previous_total": int(state[E.PREVIOUS]),
        "turn": int(state[E.TURN]),
        "standings": tuple(standings(state)),
        "last_event": EVENT_NAMES[int(state[E.LAST_EVENT])],
        "last_event_player": f"player_{last}" if last >= 0 else None,
    }


YAY = register_game(
    GameSpec(
        id="yay",
        title="Yay!",
        config=YayConfig,
        engine=E,
        describe_action=describe_action,
        explain_illegal=explain_illegal,
        explain_outcome=explain_outcome,
        render_ansi=lambda config, state: render_ansi(state),
        render_rgb=lambda config, state: render_rgb(state),
        classic="dicearena.envs.yay_v0",
        action_help=lambda config: action_help(config.rows, config.cols),
        info=seat_info,
        dice=throw_chance,
        seat_info=lambda config, state, seat: {"turn_passed": bool(state[E.PASSED + seat])},
        bench_targets={"env": 1.0, "batched": 200.0},  # issue 25: every batched engine at 200x
    )
)
