"""The exact Greed solver: a dynamic programme over the running total and the named player's cash M.

Why exact: Greed's chance is one die, so the optimal stop rule and its value follow from Bellman's equation
over (total, M) alone (OpenSpiel's value iteration, for one small game). It scores learned policies exactly
too (``policy_value``), with no sampling noise. The rule itself comes from ``dicearena.envs.easy_money.greed``.

``V(t, M) = max(payout(t, M), sum over faces of V(roll(t, face), M) / 6)``, with ``V(bust) = 0``; once the total
exceeds M nothing more can be collected, so the table stops at ``t = M + 6``. The first roll is not a choice:
a sequence is worth ``E[V(roll(0, face), M)]``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from dicearena.envs.easy_money.greed import BUST, NUM_FACES, greed_payout, greed_roll

__all__ = ["greed_table", "policy_value", "sequence_value", "should_stop"]


@lru_cache(maxsize=4096)
def greed_table(cash: int) -> tuple[np.ndarray, np.ndarray]:
    """``(values, stop)`` over totals ``0..cash + 6``: the optimal value at a decision and whether stopping
    achieves it (ties stop: the same value with less variance). Read-only arrays."""
    if cash < 0:
        raise ValueError(f"the named player's cash must be >= 0, got {cash}")
    top = cash + NUM_FACES
    values = np.zeros(top + 1)
    stop = np.ones(top + 1, dtype=bool)
    for total in range(top, -1, -1):
        payout = greed_payout(total, cash)
        roll = sum(_after(values, total, face) for face in range(NUM_FACES)) / NUM_FACES
        values[total], stop[total] = max(payout, roll), payout >= roll
    values.flags.writeable = stop.flags.writeable = False
    return values, stop


def _after(values: np.ndarray, total: int, face: int) -> float:
    new = greed_roll(total, face)
    return 0.0 if new == BUST or new >= values.shape[0] else float(values[new])


def sequence_value(cash: int) -> float:
    """The expected units of one Greed sequence played optimally against cash ``cash`` (first roll forced)."""
    values, _ = greed_table(cash)
    return sum(_after(values, 0, face) for face in range(NUM_FACES)) / NUM_FACES


def should_stop(total: int, cash: int) -> bool:
    """The optimal decision at a running total against a named player's cash."""
    _, stop = greed_table(cash)
    return bool(stop[min(total, stop.shape[0] - 1)])


def policy_value(stop_probability: np.ndarray, cash: int) -> float:
    """The exact expected units of a stochastic policy against cash ``cash``: ``stop_probability[t]`` is its
    chance of stopping at total ``t`` (``t = 0..cash + 6``; totals beyond play like ``cash + 6``)."""
    top = cash + NUM_FACES
    p = np.asarray(stop_probability, dtype=np.float64)
    if p.shape != (top + 1,) or not ((p >= 0) & (p <= 1)).all():
        raise ValueError(f"stop_probability must be {top + 1} probabilities (totals 0..{top}), got shape {p.shape}")
    values = np.zeros(top + 1)
    for total in range(top, -1, -1):
        roll = sum(_after(values, total, face) for face in range(NUM_FACES)) / NUM_FACES
        values[total] = p[total] * greed_payout(total, cash) + (1 - p[total]) * roll
    return sum(_after(values, 0, face) for face in range(NUM_FACES)) / NUM_FACES
