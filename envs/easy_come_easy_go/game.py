"""Easy Come, Easy Go on the game contract: its spec (words, renderers, agents), which the generic faces and every tool
read; the rules stay in ``engine.py``."""

from __future__ import annotations

import numpy as np

from dicearena.envs.common.chance import DiceChance
from dicearena.envs.common.contract import GameSpec, register_game

from . import engine as E
from .config import EasyComeEasyGoConfig
from .render import render_ansi, render_rgb

__all__ = ["ACTION_HELP", "EASY_COME_EASY_GO", "describe_action", "explain_illegal", "seat_info", "seat_never_decides"]

ACTION_HELP = (
    f"actions are 0..{E.NUM_ACTIONS - 1}: 0-8 collect that prize, 9-23 freeze dice subset (action - 8, bit i = die i)"
)


def describe_action(config: EasyComeEasyGoConfig | None, state: np.ndarray | None, action: int) -> str:
    """Human wording of an action id, e.g. ``collect prize 3 (7 exactly)`` or ``freeze dice 1, 2``. With a state at a
    decision it also names the pips of the dice frozen and whom a prize is taken from (what a player choosing needs);
    without one (``state`` None) only what the id itself says."""
    if not 0 <= action < E.NUM_ACTIONS:
        return f"action {action} (out of range 0..{E.NUM_ACTIONS - 1})"
    deciding = state is not None and state[E.PHASE] == E.PHASE_DECIDE
    if action < E.NUM_PRIZES:
        words = f"collect prize {action} ({E.PRIZE_NAMES[action]})"
        if not deciding:
            return words
        holder = int(state[E.OWNER + action])  # (the mover's own prize is not legal to collect: no "taking" then)
        return f"{words}, taking it from player_{holder}" if holder not in (E.CENTRE, state[E.CURRENT]) else words
    subset = action - E.FREEZE_OFFSET
    dice = [i for i in range(E.NUM_DICE) if (subset >> i) & 1]
    words = f"freeze {'die' if len(dice) == 1 else 'dice'} {', '.join(map(str, dice))}"
    if not deciding:
        return words
    return f"{words} (showing {', '.join(str(int(state[E.DICE + i])) for i in dice)})"


def explain_illegal(config: EasyComeEasyGoConfig | None, state: np.ndarray, seat: int, action: int) -> str:
    """Why ``action`` is not allowed for ``seat`` now, in the rules' words."""
    if state[E.PHASE] != E.PHASE_DECIDE:
        return "the game is not waiting for a decision"
    if seat != state[E.CURRENT]:
        return f"it is player_{state[E.CURRENT]}'s turn"
    if action < E.NUM_PRIZES:
        if state[E.OWNER + action] == seat:
            return f"player_{seat} already holds it"
        return f"the dice {state[E.DICE : E.DICE + E.NUM_DICE].tolist()} do not satisfy it"
    frozen = [bool((state[E.FROZEN] >> i) & 1) for i in range(E.NUM_DICE)]
    return f"it includes a die already frozen (frozen: {frozen})"


def seat_never_decides(config: EasyComeEasyGoConfig, seat: int) -> str | None:
    """Why ``seat`` never has a turn under ``config``, or None: turns go round from the first player, so with a fixed
    ``first_player`` a seat whose first turn comes after ``max_turns`` never decides (the roll-off may pick any)."""
    if config.first_player is None:
        return None
    first_turn = (seat - config.first_player) % config.num_players + 1
    if first_turn <= config.max_turns:
        return None
    return (f"'max_turns' {config.max_turns} ends every game before seat {seat}'s first turn: with 'first_player' "
            f"{config.first_player} seat {seat} first plays turn {first_turn} (set max_turns >= {first_turn}, or "
            "first_player None)")  # fmt: skip


_FROZEN = tuple(tuple(bool((m >> i) & 1) for i in range(E.NUM_DICE)) for m in range(1 << E.NUM_DICE))


def seat_info(config: EasyComeEasyGoConfig | None, state: np.ndarray) -> dict:
    """What an AEC agent's info holds: the dice on the table (None once the game is over, as the observation
    shows none), frozen dice, rolls, the turn, the last turn's player and prize, and the winner. (Built at every
    AEC step: written for speed.)"""
    s = state.tolist()
    if s[E.PHASE] == E.PHASE_DECIDE:
        dice, frozen, rolls = s[E.DICE : E.DICE + E.NUM_DICE], list(_FROZEN[s[E.FROZEN]]), s[E.ROLLS]
    else:
        dice, frozen, rolls = None, None, 0
    return {"dice": dice, "frozen": frozen, "rolls": rolls, "turn": s[E.TURN], "last_player": s[E.LAST_PLAYER],
            "last_prize": s[E.LAST_PRIZE], "winner": s[E.WINNER]}  # fmt: skip


EASY_COME_EASY_GO = register_game(
    GameSpec(
        id="easy_come_easy_go",
        title="Easy Come, Easy Go",
        config=EasyComeEasyGoConfig,
        engine=E,
        describe_action=describe_action,
        explain_illegal=explain_illegal,
        explain_outcome=lambda config, code: DiceChance.REFUSED,
        render_ansi=lambda config, state: render_ansi(state),
        render_rgb=lambda config, state: render_rgb(state),
        classic="dicearena.envs.easy_come_easy_go_v0",
        action_help=lambda config: ACTION_HELP,
        info=seat_info,
        seat_never_decides=seat_never_decides,
        dice=lambda config, dice: DiceChance(dice, E.NUM_FACES, E.NUM_DICE, "Easy Come, Easy Go"),
        bench_targets={"env": 1.5, "batched": 200.0},
        max_chance_outcomes=lambda config: E.NUM_FACES**E.NUM_DICE,  # a roll of all four dice
        every_chance_enumerable=True,
        gym_envs={"EasyComeEasyGoTurn-v0": "dicearena.envs.easy_come_easy_go.turn_task:EasyComeEasyGoTurnEnv"},
    )
)
