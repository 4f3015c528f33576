"""Observation of the turn task (one solitary turn, prize values shown): shared by every face of it.

Layout (float32, TURN_OBS_SIZE = 86):
  0..23   one-hot face of each die (die i, face f at 6i+f)
  24..27  die i frozen this turn
  28..31  one-hot roll number (1st..4th)
  32..40  prizes the dice satisfy now
  41..49  each prize's value / value_scale
  50..58  value collectable now: satisfied * value / value_scale
  59..64  how many of the four dice show face f, / 4
  65..70  how many frozen dice show face f, / 4
  71..85  one-roll lookahead of each freeze action 8+m (slot 70+m, m = 1..15): the expected best
          collectable value / value_scale after freezing subset m and re-rolling the rest once
          (0 where the freeze is illegal or leaves nothing to roll)

The lookahead slots are observation design: they hand the policy what the myopic heuristic computes, so
a learner starts from that baseline and spends its samples on what one re-roll cannot see.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .engine import (
    DICE,
    FROZEN,
    NUM_DICE,
    NUM_FACES,
    NUM_PRIZES,
    PRIZE_TABLE,
    ROLLS,
    STATE_SIZE,
    VARIANT,
    apply_chance,
    init_turn_state,
    legal_mask,
    satisfied_prizes,
)

T_DICE = 0
T_FROZEN = 24
T_ROLL = 28
T_SATISFIED = 32
T_VALUES = 41
T_COLLECTABLE = 50
T_FACE_COUNTS = 59
T_FROZEN_FACE_COUNTS = 65
T_LOOKAHEAD = 70  # + subset m (1..15)
TURN_OBS_SIZE = 86


@njit(cache=True)
def _lookahead(state: np.ndarray, scaled_values: np.ndarray, out: np.ndarray) -> None:
    """Expected best collectable value after each legal freeze and one re-roll (by enumeration)."""
    best = np.zeros(1 << NUM_PRIZES, dtype=np.float64)  # best value of each satisfied-prize bitmask
    for bits in range(1, 1 << NUM_PRIZES):
        low = bits & -bits
        p = 0
        while (1 << p) != low:
            p += 1
        best[bits] = max(best[bits & (bits - 1)], scaled_values[p])
    table = PRIZE_TABLE[state[VARIANT]]
    dice = np.empty(NUM_DICE, dtype=np.int64)
    frozen = state[FROZEN]
    for m in range(1, 1 << NUM_DICE):
        if m & frozen or (frozen | m) == (1 << NUM_DICE) - 1:
            continue
        kept = frozen | m
        for i in range(NUM_DICE):
            dice[i] = state[DICE + i] if (kept >> i) & 1 else 0
        outcomes = 0
        total = 0.0
        while True:  # odometer over the re-rolled dice
            code = ((dice[0] * NUM_FACES + dice[1]) * NUM_FACES + dice[2]) * NUM_FACES + dice[3]
            total += best[table[code]]
            outcomes += 1
            i = 0
            while i < NUM_DICE and ((kept >> i) & 1 or dice[i] == NUM_FACES - 1):
                if not (kept >> i) & 1:
                    dice[i] = 0
                i += 1
            if i == NUM_DICE:
                break
            dice[i] += 1
        out[T_LOOKAHEAD + m] = total / outcomes


@njit(cache=True, inline="always")
def encode_turn_observation(state: np.ndarray, scaled_values: np.ndarray, out: np.ndarray) -> None:
    """``scaled_values`` = prize values / value_scale (the task's largest possible value)."""
    out[:] = 0.0
    satisfied = satisfied_prizes(state)
    for i in range(NUM_DICE):
        face = state[DICE + i]
        frozen = (state[FROZEN] >> i) & 1
        out[T_DICE + NUM_FACES * i + face] = 1.0
        out[T_FROZEN + i] = frozen
        out[T_FACE_COUNTS + face] += 0.25
        if frozen:
            out[T_FROZEN_FACE_COUNTS + face] += 0.25
    out[T_ROLL + state[ROLLS] - 1] = 1.0
    for p in range(NUM_PRIZES):
        hit = (satisfied >> p) & 1
        out[T_SATISFIED + p] = hit
        out[T_VALUES + p] = scaled_values[p]
        out[T_COLLECTABLE + p] = hit * scaled_values[p]
    _lookahead(state, scaled_values, out)


@njit(cache=True)
def encode_turn_positions(
    dice: np.ndarray,
    frozen: np.ndarray,
    rolls: np.ndarray,
    scaled_values: np.ndarray,
    variant: int,
    obs: np.ndarray,
    masks: np.ndarray,
) -> None:
    """Turn-task observation and action mask of B decision positions (dice (B,4), frozen (B,), rolls (B,)).

    Each position is reached through the engine itself (a fresh turn, the frozen dice kept, the rest
    rolled), so solvers and adapters never restate what a position means.
    """
    state = np.zeros(STATE_SIZE, dtype=np.int32)
    faces = np.zeros(NUM_DICE, dtype=np.int64)
    for b in range(dice.shape[0]):
        init_turn_state(state, variant)
        state[FROZEN] = frozen[b]
        state[ROLLS] = rolls[b] - 1
        j = 0
        for i in range(NUM_DICE):
            state[DICE + i] = dice[b, i]
            if not (frozen[b] >> i) & 1:
                faces[j] = dice[b, i]
                j += 1
        apply_chance(state, faces)
        encode_turn_observation(state, scaled_values[b], obs[b])
        legal_mask(state, 0, masks[b])
