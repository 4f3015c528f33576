"""Seat a solitaire-trained policy at a multi-player table: it sees the table as its own solitaire game.

The multi-player observation starts with exactly the solitaire observation (throw, gains, then the
observer's own sheet); the opponents' sheets follow. A policy trained on solitaire therefore plays a seat
from that prefix alone, ignoring the opponents, as a solitaire player would.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicearena.agents.base import Agent
from dicearena.envs.extra.engine import observation_size

__all__ = ["SolitairePolicyAtTable", "table_agent"]


class SolitairePolicyAtTable(Agent):
    def __init__(self, solitaire_agent: Agent) -> None:
        self.solitaire_agent = solitaire_agent
        self.name = solitaire_agent.name

    def reset(self, seed: int | None = None) -> None:
        self.solitaire_agent.reset(seed)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs = np.atleast_2d(np.asarray(observations))
        return self.solitaire_agent.act_batch(obs[:, : observation_size(1)], action_masks)


def table_agent(kind: str, agent: Agent, config: Any) -> Agent | None:
    """A policy trained on one sheet (solitaire) plays its own sheet at a table; any other agent as it is."""
    space = getattr(agent, "observation_space", None)
    players = config["num_players"] if isinstance(config, dict) else config.num_players
    if kind == "sb3" and space is not None and space.shape == (observation_size(1),) and players > 1:
        return SolitairePolicyAtTable(agent)
    return agent
