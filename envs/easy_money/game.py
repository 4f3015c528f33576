"""Ea$y Money on the game contract: its spec (words, renderers, agents), which the generic faces and every tool
read; the rules stay in ``engine.py``."""

from __future__ import annotations

from typing import Any

import numpy as np

from dicearena.envs.common.contract import GameSpec, register_game

from . import engine as E
from .config import EasyMoneyConfig
from .render import render_ansi, render_rgb

__all__ = ["EASY_MONEY", "seat_never_decides", "table_info"]


def table_info(config: EasyMoneyConfig | None, state: np.ndarray) -> dict[str, Any]:
    """What every agent's AEC info holds: the money in full view (cash and stake per seat, pot, pile), the pawn,
    the phase, whose turn, and the last event (what it was, whom it concerned, how much it moved). Tuples, so the
    per-agent copies share nothing mutable."""
    n = int(state[E.NUM_PLAYERS])
    g = state[E.PHASE : E.LAST_AMOUNT + 1].tolist()  # the game slots only (the header is most of the state)
    last = g[E.LAST_SEAT - E.PHASE]
    return {
        "phase": E.PHASE_NAMES[g[0]],
        "turn": g[E.TURN - E.PHASE],
        "mover": f"player_{g[E.CURRENT - E.PHASE]}",
        "pawn": g[E.PAWN - E.PHASE],
        "cash": tuple(g[E.CASH - E.PHASE : E.CASH - E.PHASE + n]),
        "stakes": tuple(g[E.STAKE - E.PHASE : E.STAKE - E.PHASE + n]),
        "tickets": tuple(g[E.TICKETS_HELD - E.PHASE : E.TICKETS_HELD - E.PHASE + n]),
        "pot": g[E.POT - E.PHASE],
        "pile": g[E.PILE - E.PHASE],
        "last_event": E.EVENT_NAMES[g[E.LAST_EVENT - E.PHASE]],
        "last_event_player": f"player_{last}" if last >= 0 else None,
        "last_amount": g[E.LAST_AMOUNT - E.PHASE],
    }


def seat_never_decides(config: EasyMoneyConfig, seat: int) -> str | None:
    """Why ``seat`` never decides under ``config``, or None. Every seat with money stakes before each turn, so only a
    game where nobody starts with money (``start_wads`` all 0) and that ends after the fixed ``first_player``'s
    single turn (money comes to another seat at the earliest by that turn's Lottery, which ends it) leaves the other
    seats without a decision."""
    fixed = config.first_player
    if fixed is None or seat == fixed or config.start_money > 0 or config.max_turns > 1:
        return None
    return (f"'max_turns' 1 with 'first_player' {fixed} and 'start_wads' all 0 ends every game before seat {seat} "
            f"decides (nobody has money to stake or bet, and seat {fixed}'s turn is the only one): set max_turns >= 2, "
            "start_wads or first_player None")  # fmt: skip


EASY_MONEY = register_game(
    GameSpec(
        id="easy_money",
        title="Ea$y Money",
        config=EasyMoneyConfig,
        engine=E,
        describe_action=E.describe_action,
        explain_illegal=E.explain_illegal,
        explain_outcome=E.explain_outcome,
        render_ansi=render_ansi,
        render_rgb=render_rgb,
        action_help=E.action_help,
        info=table_info,
        seat_never_decides=seat_never_decides,
        bench_targets={"env": 1.0, "batched": 200.0},  # issue 25: every batched engine at 200x
        # rolls of up to three dice, and the roll-off's one die per player; shuffles are sampled
        max_chance_outcomes=lambda config: E.NUM_FACES ** max(int(E.PHASE_DICE.max()), config.num_players),
        gym_envs={"GreedStop-v0": "dicearena.envs.easy_money.greed_task:GreedStopEnv"},
    )
)
