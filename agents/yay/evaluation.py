"""Scoring Yay! agents with the one evaluation loop (``dicearena.agents.evaluation.play``): win shares at mixed 2-, 3-
and 4-player tables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dicearena.agents.base import Agent
from dicearena.agents.evaluation.benchmarks import mixed_tables

__all__ = ["mixed_table_win_rates"]


def mixed_table_win_rates(
    agents: Mapping[str, Agent],
    num_players: int,
    games: int,
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Each game seats agents drawn uniformly (with replacement) from the pool; the game's winners (most uncrossed
    numbers, then the higher sum) share the win (``dicearena.agents.evaluation.benchmarks.mixed_tables``). Columns add
    each agent's mean uncrossed numbers and sum."""

    return mixed_tables("yay", dict(agents), num_players, games, dict(config or {}), seed)
