"""Observation of the turn task (one solitary turn, prize values shown): shared by every face of it.

Layout (float32, TURN_OBS_SIZE = 71):
  0..23   one-hot face of each die (die i, face f at 6i+f)
  24..27  die i frozen this turn
  28..31  one-hot roll number (1st..4th)
  32..40  prizes the dice satisfy now
  41..49  each prize's value / value_scale
  50..58  value collectable now: satisfied * value / value_scale
  59..64  how many of the four dice show face f, / 4
  65..70  how many frozen dice show face f, / 4
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .engine import DICE, FROZEN, NUM_DICE, NUM_FACES, NUM_PRIZES, ROLLS, satisfied_prizes

T_DICE = 0
T_FROZEN = 24
T_ROLL = 28
T_SATISFIED = 32
T_VALUES = 41
T_COLLECTABLE = 50
T_FACE_COUNTS = 59
T_FROZEN_FACE_COUNTS = 65
TURN_OBS_SIZE = 71


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
