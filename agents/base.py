"""The one protocol every agent follows: observation and action mask in, actions out.

Agents are batched at heart (evaluation runs thousands of games at once); a single observation is a
batch of one. Observations are the env faces' vectors, masks are 0/1 arrays over the Discrete actions.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

__all__ = ["Agent"]


class Agent(ABC):
    name: str = "agent"

    @abstractmethod
    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Actions for a batch: ``observations`` (B, D), ``action_masks`` (B, A) -> int64 (B,)."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """One action for one observation (e.g. from a PettingZoo ``env.last()``)."""
        obs = np.asarray(observation)[None]
        mask = np.asarray(action_mask)[None]
        if not mask.any():
            raise ValueError(f"{self.name}: the action mask is empty; there is no legal action to choose")
        return int(self.act_batch(obs, mask)[0])

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray | int:
        """Batched when given 2-D input, single otherwise."""
        if np.ndim(action_mask) == 2:
            return self.act_batch(np.asarray(observation), np.asarray(action_mask))
        return self.act(observation, action_mask)

    def reset(self, seed: int | None = None) -> None:  # noqa: B027
        """Forget per-game state and reseed any randomness; stateless agents ignore it."""
