"""Pig, a whole game in one file outside the package: the "Add your own game" example (README.md beside it).

Roll a die as often as you like; a 1 loses the turn's total, holding banks it; the first to ``target`` wins.
Importing this module registers ``pig`` with the contract (``dicearena.envs.common.contract.register_game``) and its
agent with the policy registry (``dicearena.agents.registry.register_agents``); nothing in the package names it,
and the conformance suite (``tests/test_conformance.py``) runs on it like on every game.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit
from pydantic import Field

from dicearena.agents.base import Agent
from dicearena.agents.registry import register_agents
from dicearena.envs.common.config import GameConfig
from dicearena.envs.common.contract import (
    CHANCE,
    NOBODY,
    PLAYING,
    TERMINATED,
    TRUNCATED,
    GameSpec,
    Sizes,
    register_game,
)
from dicearena.envs.common.dice_outcomes import BAD_FACE_WORDS

MAX_PLAYERS = 4
ROLL, HOLD = 0, 1
# state slots
NUM_PLAYERS, TARGET, MAX_TURNS, SHAPING = 0, 1, 2, 3  # the header
PHASE, CURRENT, TURN_TOTAL, TURN, LAST_FACE, SCORES = 4, 5, 6, 7, 8, 9
STATE_SIZE = SCORES + MAX_PLAYERS
P_CHANCE, P_DECIDE, P_WON, P_TRUNCATED = 0, 1, 2, 3


class PigConfig(GameConfig):
    num_players: int = Field(2, ge=2, le=MAX_PLAYERS)
    target: int = Field(30, ge=2, le=1000, description="points that win")
    max_turns: int = Field(200, ge=1, le=100_000, description="turns before the game stops (reward 0)")
    shaping: bool = Field(False, description="each step pays the change of (own score - best other) / target")


def sizes(config: PigConfig) -> Sizes:
    return Sizes(config.num_players, STATE_SIZE, config.num_players + 8, 2, 1, 1)


def header(config: PigConfig) -> np.ndarray:
    return np.array([config.num_players, config.target, config.max_turns, int(config.shaping)], dtype=np.int32)


@njit(cache=True)
def init_state(state, head):
    state[:] = 0
    state[:4] = head[:4]
    state[PHASE] = P_CHANCE
    state[LAST_FACE] = -1


@njit(cache=True)
def to_act(state):
    phase = state[PHASE]
    return state[CURRENT] if phase == P_DECIDE else CHANCE if phase == P_CHANCE else NOBODY


@njit(cache=True)
def legal_mask(state, seat, mask):
    mask[:] = 0
    if state[PHASE] == P_DECIDE and seat == state[CURRENT]:
        mask[ROLL] = 1
        mask[HOLD] = 1


@njit(cache=True)
def is_legal(state, seat, action):
    return state[PHASE] == P_DECIDE and seat == state[CURRENT] and (action == ROLL or action == HOLD)


@njit(cache=True)
def _next_turn(state):
    state[TURN] += 1
    state[TURN_TOTAL] = 0
    if state[TURN] >= state[MAX_TURNS]:
        state[PHASE] = P_TRUNCATED
        return
    state[CURRENT] = (state[CURRENT] + 1) % state[NUM_PLAYERS]
    state[PHASE] = P_CHANCE


@njit(cache=True)
def apply_action(state, seat, action):
    if action == ROLL:
        state[PHASE] = P_CHANCE
        return
    state[SCORES + seat] += state[TURN_TOTAL]
    if state[SCORES + seat] >= state[TARGET]:
        state[PHASE] = P_WON
        return
    _next_turn(state)


@njit(cache=True)
def status(state):
    phase = state[PHASE]
    return TERMINATED if phase == P_WON else TRUNCATED if phase == P_TRUNCATED else PLAYING


@njit(cache=True)
def rewards(state, out):
    out[:] = 0.0
    if state[PHASE] == P_WON:
        for s in range(state[NUM_PLAYERS]):
            out[s] = 1.0 if s == state[CURRENT] else -1.0


@njit(cache=True)
def observe(state, seat, out):
    n = state[NUM_PLAYERS]
    target = float(state[TARGET])
    out[:] = 0.0
    for k in range(n):
        out[k] = state[SCORES + (seat + k) % n] / target
    out[n] = state[TURN_TOTAL] / target
    if state[LAST_FACE] >= 0:
        out[n + 1 + state[LAST_FACE]] = 1.0
    out[n + 7] = 1.0 if state[PHASE] == P_DECIDE and state[CURRENT] == seat else 0.0


@njit(cache=True)
def chance_words(state):
    return 1 if state[PHASE] == P_CHANCE else 0


@njit(cache=True)
def draw_outcome(state, words, outcome):
    outcome[0] = words[0] % 6


@njit(cache=True)
def check_outcome(state, outcome):
    return 0 if 0 <= outcome[0] < 6 else 1


@njit(cache=True)
def apply_outcome(state, outcome):
    face = outcome[0]
    state[LAST_FACE] = face
    if face == 0:  # a 1: the turn's total is lost
        _next_turn(state)
    else:
        state[TURN_TOTAL] += face + 1
        state[PHASE] = P_DECIDE


@njit(cache=True)
def enumerate_outcomes(state, outcomes, probs):
    for f in range(6):
        outcomes[f, 0] = f
        probs[f] = 1.0 / 6.0
    return 6


@njit(cache=True)
def shaping_potentials(state, out):
    """(own score - the best other score) / target per seat with ``shaping``, else 0 (the contract's shaping)."""
    out[:] = 0.0
    if state[SHAPING] == 0:
        return
    n = state[NUM_PLAYERS]
    for s in range(n):
        best = 0
        for o in range(n):
            if o != s and state[SCORES + o] > best:
                best = state[SCORES + o]
        out[s] = (state[SCORES + s] - best) / state[TARGET]


def _ansi(config: PigConfig, state: np.ndarray) -> str:
    scores = ", ".join(f"player_{s}: {state[SCORES + s]}" for s in range(config.num_players))
    return f"Pig to {config.target} | {scores} | player_{state[CURRENT]} has {state[TURN_TOTAL]} this turn"


def _rgb(config: PigConfig, state: np.ndarray) -> np.ndarray:
    image = np.full((40, 40 * config.num_players, 3), 255, dtype=np.uint8)
    for s in range(config.num_players):
        height = int(40 * min(1.0, state[SCORES + s] / config.target))
        image[40 - height :, 40 * s : 40 * s + 30] = (200, 60, 60)
    return image


def _describe(config: PigConfig | None, state: np.ndarray | None, action: int) -> str:
    """``roll`` / ``hold``; with a state at a decision, the turn's total at stake."""
    if action not in (ROLL, HOLD):
        return f"action {action} (out of range 0..1)"
    if state is None or state[PHASE] != P_DECIDE:
        return ("roll", "hold")[action]
    total = int(state[TURN_TOTAL])
    return f"roll (risking {total})" if action == ROLL else f"hold (bank {total})"


def _explain(config: PigConfig, state: np.ndarray, seat: int, action: int) -> str:
    if state[PHASE] != P_DECIDE:
        return "the game is not waiting for a decision"
    return f"it is player_{state[CURRENT]}'s turn" if seat != state[CURRENT] else "Pig's actions are 0 roll, 1 hold"


PIG = register_game(
    GameSpec(
        id="pig",
        title="Pig",
        config=PigConfig,
        engine=sys.modules[__name__],
        describe_action=_describe,
        explain_illegal=_explain,
        explain_outcome=lambda config, code: BAD_FACE_WORDS,
        render_ansi=_ansi,
        render_rgb=_rgb,
        observation_bounds=lambda config: (0.0, float("inf")),  # a turn's total is unbounded
        max_chance_outcomes=lambda config: 6,  # one die
        every_chance_enumerable=True,
    )
)


class HoldAt(Agent):
    """Hold once the turn's total reaches ``threshold`` (the classic heuristic), reading the observation."""

    def __init__(self, threshold: int = 20, target: int = 30) -> None:
        self.threshold, self.target = threshold, target

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        players = observations.shape[1] - 8
        turn_total = observations[:, players] * self.target
        return np.where(turn_total >= self.threshold, HOLD, ROLL).astype(np.int64)


register_agents("pig", {"pig_hold_at_20": HoldAt})  # its agents, for make_agent and the recipes
