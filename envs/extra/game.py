"""Extra! on the game contract: its spec (words, renderers, agents), which the generic faces and every tool read;
the rules stay in ``engine.py``. Extra! is simultaneous: every seat still playing decides on the same throw."""

from __future__ import annotations

import numpy as np

from dicearena.envs.common.chance import DiceChance
from dicearena.envs.common.contract import GameSpec, register_game

from . import engine as E
from .config import ExtraConfig
from .render import render_ansi, render_rgb

__all__ = ["ACTION_HELP", "EXTRA", "describe_action", "explain_illegal", "seat_info", "table_info"]

ACTION_HELP = (
    f"actions are 0..{E.NUM_ACTIONS - 1}: 9 * fifth die (0..4) + 3 * pairing (0..2) + EXTRA column (0..2); "
    "pairing 0 = (1st,2nd)(3rd,4th), 1 = (1st,3rd)(2nd,4th), 2 = (1st,4th)(2nd,3rd) of the other four dice"
)


def describe_action(config: ExtraConfig | None, state: np.ndarray | None, action: int) -> str:
    """Human wording of an action id, e.g. ``pairs dice 0+1, 2+4; fifth die 3 -> EXTRA column 1``; with a state at a
    throw, the dice's values and the pair sums too (``pairs 3+1=4 and 2+4=6 (dice 0+1, 2+3); fifth die 4 (a 1) ->
    EXTRA column 0``), since that is what a player compares."""
    if not 0 <= action < E.NUM_ACTIONS:
        return f"action {action} (out of range 0..{E.NUM_ACTIONS - 1})"
    e, p, c = E.decode_action(action)
    a, b, x, y = (int(i) for i in E.PAIRINGS[e, p])
    if state is None or state[E.PHASE] != E.PHASE_DECIDE:
        return f"pairs dice {a}+{b}, {x}+{y}; fifth die {e} -> EXTRA column {c}"
    dice = state[E.DICE : E.DICE + E.NUM_DICE].tolist()
    return (
        f"pairs {dice[a]}+{dice[b]}={dice[a] + dice[b]} and {dice[x]}+{dice[y]}={dice[x] + dice[y]} "
        f"(dice {a}+{b}, {x}+{y}); fifth die {e} (a {dice[e]}) -> EXTRA column {c}"
    )


def explain_illegal(config: ExtraConfig | None, state: np.ndarray, seat: int, action: int) -> str:
    """Why ``action`` is not allowed for ``seat`` now, in the rules' words."""
    base = E.PLAYERS + seat * E.PLAYER_SIZE
    if state[base + E.P_DONE]:
        return f"player_{seat} has finished and makes no further decisions"
    if not E.must_act(state, seat):
        return f"player_{seat} has already decided on this throw"
    dice = state[E.DICE : E.DICE + E.NUM_DICE].tolist()
    numbers = state[base + E.P_NUMBER : base + E.P_NUMBER + E.NUM_COLUMNS].tolist()
    e, _, c = E.decode_action(action)
    rule = int(E.extra_rule(state, seat, e))
    if rule == E.RULE_NOT_ALLOWED:
        return f"the throw holds one of the EXTRA numbers {numbers}, so the fifth die must be one of those"
    if rule == E.RULE_LUCKY:
        return f"the throw holds none of the EXTRA numbers {numbers}: no EXTRA check, the column must be 0"
    if rule == E.RULE_ANY_EMPTY:
        empty = [j for j in range(E.NUM_COLUMNS) if numbers[j] == 0]
        return f"{dice[e]} is a new EXTRA number and goes into an empty column {empty}, not column {c}"
    return f"{dice[e]} is the EXTRA number of column {rule}, so the column must be {rule}"


def table_info(config: ExtraConfig | None, state: np.ndarray) -> dict:
    """What every agent's info holds: the round and the throw."""
    return {"round": int(state[E.ROUND]), "dice": state[E.DICE : E.DICE + E.NUM_DICE].tolist()}


def seat_info(config: ExtraConfig | None, state: np.ndarray, seat: int) -> dict:
    """What one agent's info adds: its score, EXTRA numbers, whether it has finished, its last applied choice."""
    base = E.PLAYERS + seat * E.PLAYER_SIZE
    return {
        "score": int(E.score(state, seat)),
        "extra_numbers": state[base + E.P_NUMBER : base + E.P_NUMBER + E.NUM_COLUMNS].tolist(),
        "finished": bool(state[base + E.P_DONE]),
        "last_action": int(state[base + E.P_LAST]),
    }


def _bounds(config: ExtraConfig) -> tuple[float, float]:
    bound = E.observation_bound(config.sheet.penalty, config.sheet.points)
    return -bound, bound


EXTRA = register_game(
    GameSpec(
        id="extra",
        title="Extra!",
        dynamics="simultaneous",
        config=ExtraConfig,
        engine=E,
        describe_action=describe_action,
        explain_illegal=explain_illegal,
        explain_outcome=lambda config, code: DiceChance.REFUSED,
        render_ansi=lambda config, state: render_ansi(state),
        render_rgb=lambda config, state: render_rgb(state),
        classic="dicearena.envs.extra_v0",
        action_help=lambda config: ACTION_HELP,
        info=table_info,
        dice=lambda config, dice: DiceChance(dice, E.NUM_FACES, E.NUM_DICE, "Extra!"),
        seat_info=seat_info,
        render_fps=1,
        observation_bounds=_bounds,
        bench_targets={"batched": 200.0},
        max_chance_outcomes=lambda config: E.NUM_THROWS,  # the distinct throws of five dice
        every_chance_enumerable=True,
        gym_envs={"ExtraSolitaire-v0": "dicearena.envs.extra.solitaire_task:ExtraSolitaireEnv"},
    )
)
