"""Scoring Yay! agents with the batched engine: win shares at mixed 2-, 3- and 4-player tables."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agents.base import Agent
from agents.stats import table_win_shares

__all__ = ["mixed_table_win_rates", "play_yay"]


def play_yay(
    seat_agents: np.ndarray,
    pool: Sequence[Agent],
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
    batch_size: int = 1024,
) -> dict[str, np.ndarray | float]:
    """Play ``len(seat_agents)`` games; ``seat_agents[g, s]`` = index into ``pool`` of game g's seat s.

    Games run ``batch_size`` at a time; each step every agent acts once on the games where its seat is to move.
    Returns ``standings`` (G, P, 2: uncrossed numbers and their sum), ``rewards`` (G, P), ``truncated`` (G,) and
    the wall time.
    """
    from envs.yay.batched import BatchedYay

    seat_agents = np.asarray(seat_agents, dtype=np.int64)
    num_games, num_players = seat_agents.shape
    batch = min(batch_size, num_games)
    engine = BatchedYay(batch, config=dict(config or {}) | {"num_players": num_players}, seed=seed)
    for i, agent in enumerate(pool):
        agent.reset(seed=seed + 1000 * (i + 1))
    obs, masks, info = engine.reset(seed=seed)
    slot_game = np.arange(batch)  # which of the G games each engine slot is playing
    next_game = batch
    standings = np.zeros((num_games, num_players, 2), dtype=np.int64)
    rewards = np.zeros((num_games, num_players), dtype=np.float64)
    truncated = np.zeros(num_games, dtype=bool)
    done = 0
    started = time.perf_counter()
    while done < num_games:
        counted = slot_game < num_games  # slots past the last game wait instead of playing games nobody counts
        owners = np.where(counted, seat_agents[np.minimum(slot_game, num_games - 1), info["current_player"]], -1)
        actions = np.zeros(batch, dtype=np.int64)
        for i, agent in enumerate(pool):
            rows = np.flatnonzero(owners == i)
            if rows.size:
                actions[rows] = agent.act_batch(obs[rows], masks[rows])
        obs, masks, step_rewards, _, step_truncated, info = engine.step(actions, counted)
        for k, slot in enumerate(info["ended"].tolist()):
            game = slot_game[slot]
            if game < num_games:
                standings[game] = info["final_standings"][k]
                rewards[game] = step_rewards[slot]
                truncated[game] = step_truncated[slot]
                done += 1
            slot_game[slot] = next_game
            next_game += 1
    return {"standings": standings, "rewards": rewards, "truncated": truncated,
            "seconds": time.perf_counter() - started}  # fmt: skip


def mixed_table_win_rates(
    agents: Mapping[str, Agent],
    num_players: int,
    games: int,
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Each game seats agents drawn uniformly (with replacement) from the pool; the game's winners (most uncrossed
    numbers, then the higher sum) share the win. Columns add each agent's mean uncrossed numbers and sum."""
    names = list(agents)
    pool = [agents[n] for n in names]
    seat_agents = np.random.default_rng(seed).integers(0, len(pool), size=(games, num_players))
    result = play_yay(seat_agents, pool, config, seed)
    standings = result["standings"]
    keys = np.where(result["truncated"][:, None], 0, standings[..., 0] * 2048 + standings[..., 1])
    return table_win_shares(names, seat_agents, keys, result["seconds"],
                            {"mean_numbers": standings[..., 0], "mean_sum": standings[..., 1]})  # fmt: skip
