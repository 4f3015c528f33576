"""Scoring Yay! agents with the batched engine: win shares at mixed 2-, 3- and 4-player tables."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agents.base import Agent
from agents.slots import GameSlots
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
    Returns ``standings`` (G, P, 2: uncrossed numbers and their sum), ``outcomes`` (G, P: the engine's final reward,
    +1 for each winner), ``truncated`` (G,) and the wall time.
    """
    from envs.yay.batched import BatchedYay, final_outcomes

    seat_agents = np.asarray(seat_agents, dtype=np.int64)
    num_games, num_players = seat_agents.shape
    batch = min(batch_size, num_games)
    engine = BatchedYay(batch, config=dict(config or {}) | {"num_players": num_players}, seed=seed)
    for i, agent in enumerate(pool):
        agent.reset(seed=seed + 1000 * (i + 1))
    obs, masks, info = engine.reset(seed=seed)
    slots = GameSlots(num_games, batch)
    standings = np.zeros((num_games, num_players, 2), dtype=np.int64)
    outcomes = np.zeros((num_games, num_players), dtype=np.float64)
    truncated = np.zeros(num_games, dtype=bool)
    started = time.perf_counter()
    while not slots.finished:
        counted = slots.counted()  # spare slots wait instead of playing games nobody counts
        movers = slots.seatings(seat_agents)[np.arange(batch), info["current_player"]]
        owners = np.where(counted, movers, -1)
        actions = np.zeros(batch, dtype=np.int64)
        for i, agent in enumerate(pool):
            rows = np.flatnonzero(owners == i)
            if rows.size:
                actions[rows] = agent.act_batch(obs[rows], masks[rows])
        obs, masks, _, _, step_truncated, info = engine.step(actions, counted)
        finals = final_outcomes(info["final_state"], num_players)
        for k, slot in enumerate(info["ended"].tolist()):
            game = slots.end(slot)
            if game >= 0:
                standings[game] = info["final_standings"][k]
                outcomes[game] = finals[k]
                truncated[game] = step_truncated[slot]
    return {"standings": standings, "outcomes": outcomes, "truncated": truncated,
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
    standings = result["standings"]  # the winners are the engine's (+1), so no ranking rule is repeated here
    return table_win_shares(names, seat_agents, result["outcomes"], result["seconds"],
                            {"mean_numbers": standings[..., 0], "mean_sum": standings[..., 1]})  # fmt: skip
