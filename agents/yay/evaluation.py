"""Scoring Yay! agents with the one evaluation loop (``agents.play``): win shares at mixed 2-, 3- and 4-player
tables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.base import Agent
from agents.play import play_games
from agents.stats import table_win_shares

__all__ = ["mixed_table_win_rates"]


def mixed_table_win_rates(
    agents: Mapping[str, Agent],
    num_players: int,
    games: int,
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Each game seats agents drawn uniformly (with replacement) from the pool; the game's winners (most uncrossed
    numbers, then the higher sum) share the win. Columns add each agent's mean uncrossed numbers and sum."""
    from envs.yay.engine import final_standings

    names = list(agents)
    pool = [agents[n] for n in names]
    seat_agents = np.random.default_rng(seed).integers(0, len(pool), size=(games, num_players))
    result = play_games("yay", seat_agents, pool, dict(config or {}) | {"num_players": num_players}, seed)
    standings = final_standings(result["final_states"], num_players)  # the winners are the engine's (+1)
    return table_win_shares(names, seat_agents, result["final_rewards"], result["seconds"],
                            {"mean_numbers": standings[..., 0], "mean_sum": standings[..., 1]})  # fmt: skip
