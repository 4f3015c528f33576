"""Scoring Extra! agents with the batched engine: solitaire mean scores, and win rates in mixed tables."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agents.base import Agent
from agents.slots import GameSlots
from agents.stats import mean_ci, table_win_shares

__all__ = ["play_extra", "solitaire_scores", "mixed_table_win_rates"]


def play_extra(
    seat_agents: np.ndarray,
    pool: Sequence[Agent],
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
    batch_size: int = 1024,
) -> dict[str, np.ndarray | float]:
    """Play ``len(seat_agents)`` games; ``seat_agents[g, s]`` = index into ``pool`` of game g's seat s.

    Games run ``batch_size`` at a time; each agent acts once per step on all (game, seat) rows it owns that
    must decide. Returns final scores (G, P) and the wall time.
    """
    from envs.extra.batched import BatchedExtra

    seat_agents = np.asarray(seat_agents, dtype=np.int64)
    num_games, num_players = seat_agents.shape
    batch = min(batch_size, num_games)
    engine = BatchedExtra(batch, config=dict(config or {}) | {"num_players": num_players}, seed=seed)
    for i, agent in enumerate(pool):
        agent.reset(seed=seed + 1000 * (i + 1))
    obs, masks, _ = engine.reset(seed=seed)
    slots = GameSlots(num_games, batch)
    scores = np.zeros((num_games, num_players), dtype=np.int64)
    started = time.perf_counter()
    while not slots.finished:
        actions = np.full((batch, num_players), -1, dtype=np.int64)
        owners = slots.seatings(seat_agents)  # (batch, P); spare slots idle harmlessly
        acting = masks.any(axis=-1)
        for i, agent in enumerate(pool):
            rows, seats = np.nonzero((owners == i) & acting)
            if rows.size:
                actions[rows, seats] = agent.act_batch(obs[rows, seats], masks[rows, seats])
        obs, masks, _, _, _, info = engine.step(actions)
        for slot, final in zip(info["ended"], info["final_scores"], strict=True):
            game = slots.end(slot)
            if game >= 0:
                scores[game] = final
    return {"scores": scores, "seconds": time.perf_counter() - started}


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
    """Each game seats agents drawn uniformly (with replacement) from the pool; a share of the highest score wins.

    An agent's win rate = its wins / its seats taken, where a k-way tie for the best score gives each 1/k:
    with every seat filled by equals, every rate is 1 / num_players.
    """
    names = list(agents)
    pool = [agents[n] for n in names]
    seat_agents = np.random.default_rng(seed).integers(0, len(pool), size=(games, num_players))
    result = play_extra(seat_agents, pool, config, seed)
    scores = result["scores"]
    return table_win_shares(names, seat_agents, scores, result["seconds"], {"mean_score": scores})
