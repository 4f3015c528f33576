"""Seat a solitaire-trained policy at a multi-player table: it sees the table as its own solitaire game.

The multi-player observation starts with exactly the solitaire observation (throw, gains, then the
observer's own sheet); the opponents' sheets follow. A policy trained on solitaire therefore plays a seat
from that prefix alone, ignoring the opponents, as a solitaire player would.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from envs.extra.engine import observation_size

__all__ = ["SolitairePolicyAtTable"]


class SolitairePolicyAtTable(Agent):
    def __init__(self, solitaire_agent: Agent) -> None:
        self.solitaire_agent = solitaire_agent
        self.name = solitaire_agent.name

    def reset(self, seed: int | None = None) -> None:
        self.solitaire_agent.reset(seed)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs = np.atleast_2d(np.asarray(observations))
        return self.solitaire_agent.act_batch(obs[:, : observation_size(1)], action_masks)
