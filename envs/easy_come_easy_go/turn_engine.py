"""The turn task's engine: one solitary turn of Easy Come, Easy Go as a one-player game on the contract.

The turn is played by the game's own rules (``engine.py``: dice, freezes, prizes), from a fresh turn with every
prize in the centre until a prize is collected or the last die frozen. What the task adds is here: the prize values
in the state (drawn as the episode's first chance event when the config draws them), the reward (the value of the
prize collected, ``rewards``) and the observation. The generic faces serve it (``turn_task.py``).

State: ``engine.py``'s (slots 0..39), then
  VALUES 40..57   the 9 prize values, float64 bits (int32 pairs, 8-byte aligned)
  SCALE 58..59    value_scale, float64 bits (observations show values / value_scale)
  DRAWN 60        1: values drawn uniformly from the integers LOW 61 .. HIGH 62 at each episode's start
  PENDING 63      1 while those values are still to be drawn (then ``chance_words`` is 9, one word per prize)

Observation (float32, TURN_OBS_SIZE = 86):
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

from dicearena.envs.common.contract import PLAYING, TERMINATED, Sizes, float64_bits
from dicearena.envs.common.dice_outcomes import bad_faces, draw_faces

from . import engine as E
from .engine import DICE, FROZEN, NUM_DICE, NUM_FACES, NUM_PRIZES, PRIZE_TABLE, ROLLS, VARIANT, satisfied_prizes

VALUES = E.STATE_SIZE  # 40: even, so the float64 slots stay 8-byte aligned
SCALE = VALUES + 2 * NUM_PRIZES
DRAWN = SCALE + 2
LOW = DRAWN + 1
HIGH = LOW + 1
PENDING = HIGH + 1
STATE_SIZE = PENDING + 1  # 64, even

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
ACTION_FEATURES = (*range(T_COLLECTABLE, T_COLLECTABLE + NUM_PRIZES), *range(T_LOOKAHEAD + 1, T_LOOKAHEAD + 16))
"""Per action, the slot that estimates it: collecting prize p, its collectable value; freeze action 8+m, its one-roll
lookahead (the turn recipes' ``policy_kwargs.action_features``, ``dicearena.agents.action_features``)."""

OUTCOME_VALUES = 2  # check_outcome: a drawn prize value outside low..high (1: a die's face outside 0..5)


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
    """The observation of a turn (``engine.py``'s slots) under ``scaled_values`` = prize values / value_scale."""
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
    if state[ROLLS] > 0:  # (0 only before the first roll, which no decision sees)
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
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    faces = np.zeros(NUM_DICE, dtype=np.int64)
    for b in range(dice.shape[0]):
        E.init_turn_state(state, variant)
        state[FROZEN] = frozen[b]
        state[ROLLS] = rolls[b] - 1
        j = 0
        for i in range(NUM_DICE):
            state[DICE + i] = dice[b, i]
            if not (frozen[b] >> i) & 1:
                faces[j] = dice[b, i]
                j += 1
        E.apply_chance(state, faces)
        encode_turn_observation(state, scaled_values[b], obs[b])
        E.legal_mask(state, 0, masks[b])


def prize_values(state: np.ndarray) -> np.ndarray:
    """The prize values of the episode in ``state`` (a copy; all 0 before a drawn episode's values are drawn); of
    every state in a (B, S) batch: (B, 9)."""
    return state[..., VALUES : VALUES + 2 * NUM_PRIZES].copy().view(np.float64)  # (a C-order copy: viewable)


# --- The game contract (dicearena.envs.common.contract): engine.py's decision rules, the task's start, end and chance


def sizes(config) -> Sizes:
    """One player; a chance event is a roll (4 words, one per die) or, when values are drawn, the values (9)."""
    n = NUM_PRIZES if config.value_distribution is not None else NUM_DICE
    return Sizes(1, STATE_SIZE, TURN_OBS_SIZE, E.NUM_ACTIONS, n, n)


def header(config) -> np.ndarray:
    """The variant, whether and from which integers values are drawn, then the fixed values and value_scale."""
    dist = config.value_distribution
    low, high = (dist.low, dist.high) if dist is not None else (0, 0)
    values = [0.0] * NUM_PRIZES if dist is not None else config.prize_values
    knobs = np.array([int(config.four_of_a_kind_is_two_pairs), int(dist is not None), low, high], dtype=np.int32)
    return np.concatenate([knobs, float64_bits(*values, config.value_scale)])


@njit(cache=True, inline="always")
def init_state(state: np.ndarray, head: np.ndarray) -> None:
    """A fresh turn about to roll (``engine.init_turn_state``), its values drawn first if the config draws them."""
    E.init_turn_state(state, head[0])
    state[DRAWN] = head[1]
    state[LOW] = head[2]
    state[HIGH] = head[3]
    state[VALUES:DRAWN] = head[4 : 4 + DRAWN - VALUES]
    state[PENDING] = head[1]


to_act = E.to_act
legal_mask = E.legal_mask
is_legal = E.is_legal
apply_action = E.apply_action  # collecting a prize or freezing the last die ends the turn (PHASE_OVER)


@njit(cache=True, inline="always")
def status(state: np.ndarray) -> int:
    return TERMINATED if state[E.PHASE] == E.PHASE_OVER else PLAYING


@njit(cache=True, inline="always")
def rewards(state: np.ndarray, out: np.ndarray) -> None:
    """The value of the prize the turn collected (0 for none, and while the turn goes on)."""
    prize = state[E.LAST_PRIZE]
    over = state[E.PHASE] == E.PHASE_OVER
    out[0] = state[VALUES : VALUES + 2 * NUM_PRIZES].view(np.float64)[prize] if over and prize >= 0 else 0.0


@njit(cache=True, inline="always")
def observe(state: np.ndarray, seat: int, out: np.ndarray) -> None:
    values = state[VALUES : VALUES + 2 * NUM_PRIZES].view(np.float64)
    scale = state[SCALE : SCALE + 2].view(np.float64)[0]
    scaled = np.empty(NUM_PRIZES, dtype=np.float64)
    for p in range(NUM_PRIZES):
        scaled[p] = values[p] / scale
    encode_turn_observation(state, scaled, out)


@njit(cache=True, inline="always")
def dice_needed(state: np.ndarray) -> int:
    """Dice the pending chance event rolls (0 while the values are drawn): what a dice source answers."""
    return 0 if state[PENDING] else E.dice_needed(state)


@njit(cache=True, inline="always")
def chance_words(state: np.ndarray) -> int:
    return NUM_PRIZES if state[PENDING] else E.dice_needed(state)


@njit(cache=True, inline="always")
def draw_outcome(state: np.ndarray, words: np.ndarray, outcome: np.ndarray) -> None:
    """Values: ``low + word mod (high - low + 1)`` per prize (a bias below 2**-32); rolls: fair dice."""
    if state[PENDING]:
        span = state[HIGH] - state[LOW] + 1
        for p in range(NUM_PRIZES):
            outcome[p] = state[LOW] + words[p] % span
    else:
        draw_faces(E.dice_needed(state), words, outcome)


@njit(cache=True, inline="always")
def check_outcome(state: np.ndarray, outcome: np.ndarray) -> int:
    if state[PENDING]:
        for p in range(NUM_PRIZES):
            if outcome[p] < state[LOW] or outcome[p] > state[HIGH]:
                return OUTCOME_VALUES
        return 0
    return 1 if bad_faces(E.dice_needed(state), outcome) else 0


@njit(cache=True, inline="always")
def apply_outcome(state: np.ndarray, outcome: np.ndarray) -> None:
    if state[PENDING]:
        values = state[VALUES : VALUES + 2 * NUM_PRIZES].view(np.float64)
        for p in range(NUM_PRIZES):
            values[p] = outcome[p]
        state[PENDING] = 0
    else:
        E.apply_chance(state, outcome)


@njit(cache=True)
def enumerate_outcomes(state: np.ndarray, outcomes: np.ndarray, probs: np.ndarray) -> int:
    """Every roll of the dice to roll (``engine.enumerate_outcomes``); drawn values are not enumerated (-1)."""
    if state[PENDING]:
        return -1
    return E.enumerate_outcomes(state, outcomes, probs)
