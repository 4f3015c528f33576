"""Easy Come, Easy Go on the game contract: its spec (words, renderers, agents) and its batched kernels.

Why here: the generic faces (``envs.common.game_aec``, ``game_batch``, ``game_seat``) and every tool read the
game from this one declaration; the rules stay in ``engine.py``.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from envs.common import batch_loops as L
from envs.common.contract import GameSpec, register_game

from . import engine as E
from .config import EasyComeEasyGoConfig
from .render import render_ansi, render_rgb

__all__ = ["EASY_COME_EASY_GO", "describe_action", "explain_illegal"]


def describe_action(config: EasyComeEasyGoConfig | None, action: int) -> str:
    """Human wording of an action id, e.g. ``collect prize 3 (7 exactly)`` or ``freeze dice 1, 2``."""
    if not 0 <= action < E.NUM_ACTIONS:
        return f"out of range 0..{E.NUM_ACTIONS - 1}"
    if action < E.NUM_PRIZES:
        return f"collect prize {action} ({E.PRIZE_NAMES[action]})"
    subset = action - E.FREEZE_OFFSET
    dice = ", ".join(str(i) for i in range(E.NUM_DICE) if (subset >> i) & 1)
    return f"freeze {'die' if subset & (subset - 1) == 0 else 'dice'} {dice}"


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


# --- batched kernels: the shared loops compiled (and cached) with this engine's functions


@njit(cache=True)
def batch_start(states, head):
    return L.start(states, head, E.init_state, E.chance_words)


@njit(cache=True)
def batch_act(states, actions, active, head, out_rewards, done, final_rewards, final_obs, final_states):
    return L.act(states, actions, active, head, out_rewards, done, final_rewards, final_obs, final_states, E.to_act,
                 E.is_legal, E.apply_action, E.status, E.rewards, E.observe, E.init_state, E.chance_words)  # fmt: skip


@njit(cache=True)
def batch_chance(states, words, outcome, head, out_rewards, done, final_rewards, final_obs, final_states):
    return L.chance(states, words, outcome, head, out_rewards, done, final_rewards, final_obs, final_states,
                    E.draw_outcome, E.apply_outcome, E.status, E.rewards, E.observe, E.init_state,
                    E.chance_words)  # fmt: skip


@njit(cache=True)
def batch_encode(states, obs, masks, seats):
    L.encode(states, obs, masks, seats, E.to_act, E.observe, E.legal_mask)


EASY_COME_EASY_GO = register_game(
    GameSpec(
        id="easy_come_easy_go",
        title="Easy Come, Easy Go",
        agent_prefix="eceg",
        agents={
            "eceg_myopic": "agents.easy_come_easy_go:MyopicAgent",
            "eceg_exact": "agents.easy_come_easy_go:ExactTurnAgent",
            "eceg_heuristic": "agents.easy_come_easy_go:FullGameHeuristicAgent",
        },
        config=EasyComeEasyGoConfig,
        engine=E,
        describe_action=describe_action,
        explain_illegal=explain_illegal,
        explain_outcome=lambda config, code: "a die shows a face 0..5 (the faces 1..6)",
        render_ansi=lambda config, state: render_ansi(state),
        render_rgb=lambda config, state: render_rgb(state),
        kernels=sys.modules[__name__].__name__,
        bench_targets={"env": 1.5, "batched": 200.0},
    )
)
