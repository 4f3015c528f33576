"""Greed, Ea$y Money's stop-or-roll decision: its rule (shared by the game's engine and the task), the exact values
of rolling on and of stopping (``greed_values``, the game's optional observation features) and the task's engine, a
one-player contract game (``dicearena.envs.common.contract``).

The rule (rules/easy_money.md, "Greed"): roll one die; a 1 ends the sequence with nothing; any other face adds
its pips to the running total, and the mover chooses to roll again or stop. On stop the named player pays the
total, unless it exceeds the named player's cash ``M``: then the mover gets nothing. The first roll is not a
choice.

The task (rules/easy_money.md, "Task environments"): one Greed decision sequence against a named player with cash
``M`` (fixed, or drawn uniformly from a range each episode); reward = units collected. An episode starts at the
first decision: its forced first roll is drawn from the faces 2..6, because a sequence whose first roll is a 1 has
no decision (it is worth 0 and teaches nothing), and a game that ended before anyone acted would be invisible to
the learner. Scores count those sequences (``dicearena.agents.easy_money.greed_solver``: the first roll is any face).
Chance events: the start (``M`` and the first roll, two words) and every further roll (one word).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from pydantic import Field, field_validator, model_validator

from dicearena.envs.common.config import GameConfig
from dicearena.envs.common.contract import CHANCE, NOBODY, PLAYING, TERMINATED, Sizes

__all__ = ["GREED_ROLL", "GREED_STOP", "GREED_STOP_FROM", "GreedTaskConfig", "greed_payout", "greed_roll",
           "greed_values"]

GREED_STOP, GREED_ROLL = 0, 1  # the task's action ids (the game's Greed decision uses the same two choices)
BUST = -1
NUM_FACES = 6
MAX_CASH = 100_000


@njit(cache=True, inline="always")
def greed_roll(total: int, face: int) -> int:
    """The running total after a roll of ``face`` (0..5 for pips 1..6), or ``BUST`` on a 1."""
    return BUST if face == 0 else total + face + 1


@njit(cache=True, inline="always")
def greed_payout(total: int, cash: int) -> int:
    """What stopping at ``total`` collects from a named player holding ``cash``."""
    return total if total <= cash else 0


def _stop_from() -> int:
    """The total from which stopping is optimal against any cash. Rolling from ``t`` is worth at most
    ``(k t + S) / 6`` (``k`` faces that do not bust, ``S`` their pips: every later total ``t'`` is worth at most
    ``t'``), which is at most ``t`` from ``t >= S / (6 - k)`` on; so, by induction down from the cash, a total ``t``
    from there up to the cash is worth exactly ``t`` (stop), and any total past the cash 0."""
    roll = getattr(greed_roll, "py_func", greed_roll)  # the Python function (itself under NUMBA_DISABLE_JIT=1)
    pips = [roll(0, face) for face in range(NUM_FACES)]
    kept = [p for p in pips if p != BUST]
    return -(-sum(kept) // (NUM_FACES - len(kept)))


GREED_STOP_FROM = _stop_from()  # 20: (2 + 3 + 4 + 5 + 6) / (6 - 5)


@njit(cache=True, inline="always")
def _worth(values: np.ndarray, total: int, cash: int) -> float:
    """The optimal value at a decision at ``total`` (``values`` holds the totals below ``GREED_STOP_FROM``)."""
    if total > cash:
        return 0.0
    return float(total) if total >= GREED_STOP_FROM else values[total]


@njit(cache=True, inline="always")
def _roll_on(values: np.ndarray, total: int, cash: int) -> float:
    """The expected value of one more roll from ``total``, optimal play after it (faces summed in order, as the
    solver does, so the two agree to the last bit)."""
    acc = 0.0
    for face in range(NUM_FACES):
        new = greed_roll(total, face)
        acc += 0.0 if new == BUST else _worth(values, new, cash)
    return acc / NUM_FACES


@njit(cache=True)
def greed_values(total: int, cash: int) -> tuple[float, float]:
    """(rolling on, stopping now): the exact expected units at a running ``total`` against a named player's
    ``cash``, play after a roll optimal. The solver's programme (``dicearena.agents.easy_money.greed_solver``) over the
    totals ``total + 1 .. min(cash, GREED_STOP_FROM - 1)`` only (at most 19 of them; ``_stop_from`` says why the
    rest are closed-form), so it is cheap enough for ``observe`` whatever the cash."""
    values = np.zeros(GREED_STOP_FROM)
    for t in range(min(cash, GREED_STOP_FROM - 1), total, -1):
        values[t] = max(float(greed_payout(t, cash)), _roll_on(values, t, cash))
    return _roll_on(values, total, cash), float(greed_payout(total, cash))


class GreedTaskConfig(GameConfig):
    """One Greed sequence against a named player's cash ``M``."""

    named_cash: int | tuple[int, int] = Field(
        (1, 40), description="M: a fixed int, or [low, high] drawn uniformly (inclusive) each episode"
    )

    @field_validator("named_cash", mode="before")
    @classmethod
    def _pair(cls, value: Any) -> Any:
        return tuple(value) if isinstance(value, list) else value  # YAML and JSON give lists

    @model_validator(mode="after")
    def _cash_range(self) -> GreedTaskConfig:
        low, high = self.cash_range
        if not 0 <= low <= high <= MAX_CASH:
            raise ValueError(f"'named_cash' must be an int or (low, high) with 0 <= low <= high <= {MAX_CASH}, "
                             f"got {self.named_cash!r}")  # fmt: skip
        return self

    @property
    def cash_range(self) -> tuple[int, int]:
        cash = self.named_cash
        return (cash, cash) if isinstance(cash, int) else (int(cash[0]), int(cash[1]))


# state slots: the header, then the sequence
LOW, HIGH = 0, 1  # the range M is drawn from
PHASE, CASH, TOTAL, LAST_FACE, COLLECTED, ROLLS = 2, 3, 4, 5, 6, 7
STATE_SIZE = 8
P_START, P_ROLL, P_DECIDE, P_OVER = 0, 1, 2, 3
OBSERVATION_SIZE = 5
# check_outcome codes
BAD_CASH, BAD_FACE, BAD_FIRST_FACE = 1, 2, 3


def sizes(config: GreedTaskConfig) -> Sizes:
    return Sizes(1, STATE_SIZE, OBSERVATION_SIZE, 2, 2, 2)


def header(config: GreedTaskConfig) -> np.ndarray:
    return np.array(config.cash_range, dtype=np.int32)


@njit(cache=True, inline="always")
def init_state(state, head):
    state[:] = 0
    state[LOW] = head[0]
    state[HIGH] = head[1]
    state[PHASE] = P_START
    state[LAST_FACE] = -1


@njit(cache=True, inline="always")
def to_act(state):
    phase = state[PHASE]
    return 0 if phase == P_DECIDE else NOBODY if phase == P_OVER else CHANCE


@njit(cache=True, inline="always")
def legal_mask(state, seat, mask):
    mask[:] = 0
    if state[PHASE] == P_DECIDE and seat == 0:
        mask[GREED_STOP] = 1
        mask[GREED_ROLL] = 1


@njit(cache=True, inline="always")
def is_legal(state, seat, action):
    return state[PHASE] == P_DECIDE and seat == 0 and (action == GREED_STOP or action == GREED_ROLL)


@njit(cache=True, inline="always")
def apply_action(state, seat, action):
    if action == GREED_ROLL:
        state[PHASE] = P_ROLL
    else:
        state[COLLECTED] = greed_payout(state[TOTAL], state[CASH])
        state[PHASE] = P_OVER


@njit(cache=True, inline="always")
def status(state):
    return TERMINATED if state[PHASE] == P_OVER else PLAYING


@njit(cache=True, inline="always")
def rewards(state, out):
    out[0] = float(state[COLLECTED]) if state[PHASE] == P_OVER else 0.0


@njit(cache=True, inline="always")
def observe(state, seat, out):
    """[total, M, M - total, at a decision, last face was a 1], money scaled by 1 / (high + 6) and clipped to
    [-1, 1] (a total past M + 6 plays like M + 6: nothing more can be collected)."""
    cap = state[HIGH] + NUM_FACES
    total = min(state[TOTAL], cap)
    out[0] = total / cap
    out[1] = state[CASH] / cap
    out[2] = (state[CASH] - total) / cap
    out[3] = 1.0 if state[PHASE] == P_DECIDE else 0.0
    out[4] = 1.0 if state[LAST_FACE] == 0 else 0.0


@njit(cache=True, inline="always")
def chance_words(state):
    phase = state[PHASE]
    return 2 if phase == P_START else 1 if phase == P_ROLL else 0


@njit(cache=True, inline="always")
def draw_outcome(state, words, outcome):
    """Start: [M, face]; a roll: [face, 0]."""
    if state[PHASE] == P_START:
        outcome[0] = state[LOW] + words[0] % (state[HIGH] - state[LOW] + 1)
        outcome[1] = 1 + words[1] % (NUM_FACES - 1)  # the first roll of an episode is 2..6 (module docstring)
    else:
        outcome[0] = words[0] % NUM_FACES
        outcome[1] = 0


@njit(cache=True, inline="always")
def check_outcome(state, outcome):
    if state[PHASE] == P_START:
        if outcome[0] < state[LOW] or outcome[0] > state[HIGH]:
            return BAD_CASH
        return BAD_FIRST_FACE if outcome[1] < 1 or outcome[1] >= NUM_FACES else 0
    return BAD_FACE if outcome[0] < 0 or outcome[0] >= NUM_FACES else 0


@njit(cache=True, inline="always")
def apply_outcome(state, outcome):
    if state[PHASE] == P_START:
        state[CASH] = outcome[0]
        face = outcome[1]
    else:
        face = outcome[0]
    state[LAST_FACE] = face
    state[ROLLS] += 1
    total = greed_roll(state[TOTAL], face)
    if total == BUST:
        state[TOTAL] = 0
        state[PHASE] = P_OVER
    else:
        state[TOTAL] = total
        state[PHASE] = P_DECIDE


@njit(cache=True)
def enumerate_outcomes(state, outcomes, probs):
    """Every outcome of the pending event with its probability (the start: each M in range, each face 2..6)."""
    outcomes[:] = 0
    if state[PHASE] == P_ROLL:
        for f in range(NUM_FACES):
            outcomes[f, 0] = f
            probs[f] = 1.0 / NUM_FACES
        return NUM_FACES
    if state[PHASE] != P_START:
        return 0
    span = state[HIGH] - state[LOW] + 1
    faces = NUM_FACES - 1  # the first roll is 2..6
    if span * faces > outcomes.shape[0]:
        return -1
    k = 0
    for m in range(state[LOW], state[HIGH] + 1):
        for f in range(1, NUM_FACES):
            outcomes[k, 0] = m
            outcomes[k, 1] = f
            probs[k] = 1.0 / (span * faces)
            k += 1
    return k
