"""Yay! in evaluation recipes: which trained models can sit at a table, and what a table reports per seat."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent

__all__ = ["seat_stats", "table_agent"]


def table_agent(kind: str, agent: Agent, config: Any) -> Agent | None:
    """A trained model reads one table size's observations only: elsewhere it does not sit (None)."""
    from envs.common.contract import game_spec

    space = getattr(agent, "observation_space", None)
    size = game_spec("yay").sizes(game_spec("yay").config.model_validate(config)).observation
    if space is not None and space.shape != (size,):
        print(f"note: {agent.name!r} plays no {config['num_players']}-player table: trained on observations of "
              f"{space.shape[0]} floats, these have {size}")  # fmt: skip
        return None
    return agent


def seat_stats(final_states: np.ndarray, num_players: int) -> dict[str, np.ndarray]:
    """Each seat's uncrossed numbers and their sum (the standings: most numbers wins, the sum breaks ties)."""
    from envs.yay.engine import final_standings

    standings = final_standings(final_states, num_players)
    return {"mean_numbers": standings[..., 0], "mean_sum": standings[..., 1]}
