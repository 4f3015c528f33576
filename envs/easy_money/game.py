"""Ea$y Money on the game contract: its spec (words, renderers, agents), which the generic faces and every tool
read; the rules stay in ``engine.py``."""

from __future__ import annotations

from typing import Any

import numpy as np

from dicearena.envs.common.contract import GameSpec, register_game

from . import engine as E
from .config import EasyMoneyConfig
from .render import render_ansi, render_rgb

__all__ = ["EASY_MONEY", "table_info"]


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
        bench_targets={"env": 1.0, "batched": 100.0},
        gym_envs={"GreedStop-v0": "dicearena.envs.easy_money.greed_task:GreedStopEnv"},
    )
)
