"""The one protocol every agent follows: observation and action mask in, actions out.

Agents are batched at heart (evaluation runs thousands of games at once); a single observation is a
batch of one. Observations are the env faces' vectors, masks are 0/1 arrays over the Discrete actions.

Planning agents (solvers, lookahead, rule-reading heuristics) set ``reads_state = True`` and implement
``act_states``: they read the engine states (the batched engine's read-only ``states``, a PettingZoo env's
``state()``) instead of decoding observation floats back into a game. Every runner in the suite hands each
agent what it reads (``dicearena.envs.common.seating.choose``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

__all__ = ["Agent", "StatePlanner"]


class Agent(ABC):
    name: str = "agent"
    reads_state: bool = False  # True: act_states(engine states, masks) is how it plays

    @abstractmethod
    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Actions for a batch: ``observations`` (B, D), ``action_masks`` (B, A) -> int64 (B,)."""

    def act_states(self, states: np.ndarray, action_masks: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Actions for a batch of engine states (B, S), deciding for ``seats`` (B,) (planning agents,
        ``reads_state = True``; in a sequential game the seat is the engine's ``to_act``)."""
        raise NotImplementedError(f"{self.name} plays from observations: call act_batch(observations, masks)")

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: np.ndarray | None = None,
            seat: int | None = None) -> int:  # fmt: skip
        """One action for one observation (e.g. from a PettingZoo ``env.last()``); a planning agent needs the
        engine ``state`` (a PettingZoo env's ``env.state()``) and the ``seat`` it decides for instead."""
        mask = np.asarray(action_mask)[None]
        if not mask.any():
            raise ValueError(f"{self.name}: the action mask is empty; there is no legal action to choose")
        if self.reads_state:
            if state is None or seat is None:
                raise ValueError(f"{self.name} plans on the engine state: pass state=env.state() and seat= to act()")
            return int(self.act_states(np.asarray(state)[None], mask, np.array([seat], dtype=np.int64))[0])
        return int(self.act_batch(np.asarray(observation)[None], mask)[0])

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray | int:
        """Batched when given 2-D input, single otherwise."""
        if np.ndim(action_mask) == 2:
            return self.act_batch(np.asarray(observation), np.asarray(action_mask))
        return self.act(observation, action_mask)

    def reset(self, seed: int | None = None) -> None:  # noqa: B027
        """Forget per-game state and reseed any randomness; stateless agents ignore it."""


class StatePlanner(Agent):
    """An agent that plans on engine states (``act_states``), never on observation floats: handed observations,
    it says how to call it instead."""

    reads_state = True
    game_title = "its game's"  # e.g. "Yay!": the error's words

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        raise TypeError(
            f"{self.name} plans on {self.game_title} engine states, not observations: call act_states(states, masks, "
            "seats) (the batched engine's states), or in PettingZoo act(obs, mask, state=env.state(), seat=<seat to "
            "act>)"
        )

