"""Scoring Extra! agents with the one evaluation loop (``dicearena.agents.evaluation.play``): solitaire mean scores,
and win rates in mixed tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numba import njit

from dicearena.agents.base import Agent
from dicearena.agents.evaluation.benchmarks import mixed_tables
from dicearena.agents.evaluation.play import play_games
from dicearena.agents.evaluation.stats import mean_ci
from dicearena.envs.extra import engine as E

__all__ = ["play_extra", "solitaire_scores", "mixed_table_win_rates"]


@njit(cache=True)
def _scores(states, out):
    for k in range(states.shape[0]):
        for s in range(out.shape[1]):
            out[k, s] = E.score(states[k], s)


def final_scores(states: np.ndarray, num_players: int) -> np.ndarray:
    """(k, P) scores of k engine states (the engine's ``score``)."""
    out = np.zeros((states.shape[0], num_players), dtype=np.int64)
    _scores(np.ascontiguousarray(states, dtype=np.int32), out)
    return out


def play_extra(
    seat_agents: np.ndarray,
    pool: Sequence[Agent],
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
    batch_size: int = 1024,
) -> dict[str, np.ndarray | float]:
    """Play ``len(seat_agents)`` games; ``seat_agents[g, s]`` = index into ``pool`` of game g's seat s.

    ``dicearena.agents.evaluation.play.play_games``: games run ``batch_size`` at a time; each agent acts once per step
    on all (game, seat) rows it owns that must decide. Returns final scores (G, P) and the wall time.
    """
    game = {key: value for key, value in (config or {}).items() if key != "num_players"}  # the seatings say
    result = play_games("extra", seat_agents, pool, game, seed, batch_size)
    return {"scores": final_scores(result["final_states"], np.shape(seat_agents)[1]), "seconds": result["seconds"]}


def solitaire_scores(
    agents: Mapping[str, Agent], games: int, config: Mapping[str, Any] | None = None, seed: int = 0
) -> list[dict[str, Any]]:
    """Mean solitaire score of each agent with a 95% interval (same dice seed for every agent)."""
    rows = []
    for name, agent in agents.items():
        result = play_extra(np.zeros((games, 1), dtype=np.int64), [agent], config, seed)
        scores = result["scores"][:, 0]
        mean, half = mean_ci(scores)
        rows.append(
            {
                "agent": name,
                "mean_score": mean,
                "ci95": half,
                "games": games,
                "nonnegative_rate": float((scores >= 0).mean()),
                "games_per_second": games / result["seconds"],
            }
        )
    return rows


def mixed_table_win_rates(
    agents: Mapping[str, Agent],
    num_players: int,
    games: int,
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Each game seats agents drawn uniformly (with replacement) from the pool; a share of the highest score wins
    (``dicearena.agents.evaluation.benchmarks.mixed_tables``): a k-way tie for the best score gives each 1/k, so with
    every seat filled
    by equals, every rate is 1 / num_players. Rows add each agent's mean score."""

    return mixed_tables("extra", dict(agents), num_players, games, dict(config or {}), seed)
