"""Confidence intervals for evaluation tables (normal approximation; Wilson for win rates), and win shares at
mixed tables (every game's table win-share rule, written once)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["mean_ci", "rate_difference_z", "table_win_shares", "wilson_ci", "win_shares"]

Z95 = 1.959963984540054


def mean_ci(samples: np.ndarray) -> tuple[float, float]:
    """Mean and 95% half-width of the mean."""
    samples = np.asarray(samples, dtype=np.float64)
    if samples.size == 0:
        raise ValueError("mean_ci needs at least one sample")
    if samples.size == 1:
        return float(samples[0]), math.inf
    return float(samples.mean()), float(Z95 * samples.std(ddof=1) / math.sqrt(samples.size))


def rate_difference_z(rate: float, n: int, other: float, other_n: int) -> float:
    """The two-proportion z statistic of ``rate`` over ``n`` trials against ``other`` over ``other_n`` (pooled):
    beyond +-1.96 the two differ by more than sampling explains at 95%. Why: a fresh measurement is compared with
    the one a shipped agent's card records, each with its own count of games."""
    pooled = (rate * n + other * other_n) / (n + other_n)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / n + 1 / other_n))
    return 0.0 if spread == 0 else (rate - other) / spread


def wilson_ci(successes: float, n: int) -> tuple[float, float, float]:
    """Rate with its 95% Wilson interval (low, high); sound near 0 and 1 where the normal one is not."""
    if n <= 0:
        raise ValueError("wilson_ci needs n >= 1")
    p = successes / n
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    return p, centre - half, centre + half


def win_shares(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each seat's share of each game's win (G, P): 1/k to each of the k seats tied for the best ``keys`` (higher is
    better), and which seats those are."""
    best = keys == keys.max(axis=1, keepdims=True)
    return best / best.sum(axis=1, keepdims=True), best


def table_win_shares(
    names: list[str], seat_agents: np.ndarray, keys: np.ndarray, seconds: float, per_seat: dict[str, np.ndarray]
) -> list[dict[str, Any]]:
    """Each agent's win share at mixed tables: its wins / the seats it took, a k-way tie for the best ``keys``
    (G, P; higher is better) giving each 1/k, so with every seat filled by equals every rate is 1 / P.

    ``seat_agents[g, s]`` indexes ``names``; ``per_seat`` adds the mean over an agent's seats of each (G, P) array.
    """
    num_games, num_players = seat_agents.shape
    share, _ = win_shares(keys)
    rows = []
    for i, name in enumerate(names):
        seats = seat_agents == i
        n = int(seats.sum())
        if n == 0:
            continue
        rate, low, high = wilson_ci(float(share[seats].sum()), n)
        rows.append({"agent": name, "players": num_players, "win_rate": rate, "ci_low": low, "ci_high": high,
                     "seats": n, **{k: float(v[seats].mean()) for k, v in per_seat.items()},
                     "games_per_second": num_games / seconds})  # fmt: skip
    return rows
