"""Duel, a tiny simultaneous game for the tests of games that end before a seat's first decision.

Each round a die is thrown and every seat decides at once: 1 fire (scores the die's pips) or 0 hold. After
``rounds`` rounds the top score wins (+1, the others -1; a shared top is a win for each). A 1 on the game's very
first throw is a misfire: the game ends then and there, a draw (all 0), before anybody has decided anything.

The spec (``DUEL``) is not registered: tests hand it to the faces directly, so no registry outside them changes.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit
from pydantic import Field

from dicearena.envs.common.config import GameConfig
from dicearena.envs.common.contract import CHANCE, NOBODY, PLAYING, SIMULTANEOUS, TERMINATED, GameSpec, Sizes

MAX_PLAYERS = 4
NUM_PLAYERS, ROUNDS = 0, 1  # the header
PHASE, ROUND, FACE, MISFIRE, CHOSEN, CHOICES = 2, 3, 4, 5, 6, 6 + MAX_PLAYERS
SCORES = CHOICES + MAX_PLAYERS
STATE_SIZE = SCORES + MAX_PLAYERS
P_CHANCE, P_DECIDE, P_OVER = 0, 1, 2


class DuelConfig(GameConfig):
    num_players: int = Field(2, ge=2, le=MAX_PLAYERS)
    rounds: int = Field(3, ge=1, le=100, description="rounds before the top score wins")


def sizes(config: DuelConfig) -> Sizes:
    return Sizes(config.num_players, STATE_SIZE, config.num_players + 7, 2, 1, 1)


def header(config: DuelConfig) -> np.ndarray:
    return np.array([config.num_players, config.rounds], dtype=np.int32)


@njit(cache=True)
def init_state(state, head):
    state[:] = 0
    state[:2] = head[:2]
    state[PHASE] = P_CHANCE


@njit(cache=True)
def to_act(state):
    phase = state[PHASE]
    return SIMULTANEOUS if phase == P_DECIDE else CHANCE if phase == P_CHANCE else NOBODY


@njit(cache=True)
def _must(state, seat):
    return state[PHASE] == P_DECIDE and seat < state[NUM_PLAYERS] and state[CHOSEN + seat] == 0


@njit(cache=True)
def acting(state, out):
    count = 0
    for seat in range(out.shape[0]):
        out[seat] = 1 if _must(state, seat) else 0
        count += out[seat]
    return count


@njit(cache=True)
def legal_mask(state, seat, mask):
    mask[:] = 0
    if _must(state, seat):
        mask[0] = 1
        mask[1] = 1


@njit(cache=True)
def is_legal(state, seat, action):
    return _must(state, seat) and (action == 0 or action == 1)


@njit(cache=True)
def apply_action(state, seat, action):
    state[CHOICES + seat] = action
    state[CHOSEN + seat] = 1
    n = state[NUM_PLAYERS]
    for s in range(n):
        if state[CHOSEN + s] == 0:
            return 0
    for s in range(n):
        if state[CHOICES + s] == 1:
            state[SCORES + s] += state[FACE] + 1
        state[CHOSEN + s] = 0
    state[ROUND] += 1
    state[PHASE] = P_OVER if state[ROUND] >= state[ROUNDS] else P_CHANCE
    return 1


@njit(cache=True)
def status(state):
    return TERMINATED if state[PHASE] == P_OVER else PLAYING


@njit(cache=True)
def rewards(state, out):
    out[:] = 0.0
    if state[PHASE] != P_OVER or state[MISFIRE]:
        return
    n = state[NUM_PLAYERS]
    best = 0
    for s in range(n):
        best = max(best, state[SCORES + s])
    for s in range(n):
        out[s] = 1.0 if state[SCORES + s] == best else -1.0


@njit(cache=True)
def step_rewards(state, out):
    rewards(state, out)  # paid at the end only


@njit(cache=True)
def seat_status(state, seat):
    return TERMINATED if state[PHASE] == P_OVER else PLAYING


@njit(cache=True)
def observe(state, seat, out):
    n = state[NUM_PLAYERS]
    out[:] = 0.0
    for k in range(n):
        out[k] = state[SCORES + (seat + k) % n] / 100.0
    if state[PHASE] == P_DECIDE:
        out[n + state[FACE]] = 1.0
    out[n + 6] = 1.0 if _must(state, seat) else 0.0


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
    state[FACE] = outcome[0]
    if outcome[0] == 0 and state[ROUND] == 0:  # a misfire: over before anybody decided
        state[MISFIRE] = 1
        state[PHASE] = P_OVER
    else:
        state[PHASE] = P_DECIDE


@njit(cache=True)
def enumerate_outcomes(state, outcomes, probs):
    for f in range(6):
        outcomes[f, 0] = f
        probs[f] = 1.0 / 6.0
    return 6


DUEL = GameSpec(id="duel", title="Duel", config=DuelConfig, engine=sys.modules[__name__], dynamics="simultaneous")
