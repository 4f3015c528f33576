"""PettingZoo Parallel face of Extra!: every player still playing decides on the same throw at once.

``step(actions)`` takes one action for each agent in ``agents`` (no more, no fewer), checks them all before
changing anything, writes them on the sheets together and throws the dice for the next round.

A player who checks a last EXTRA box is terminated in that step and leaves ``agents``. Rewards: with
``reward="score"`` the finisher's final score / 100 comes in the step it finishes (its sheet is final then).
With ``reward="win"`` the outcome exists only when the last player finishes, so the final step's ``rewards``
holds +1/-1 for every player, including those who left earlier (PettingZoo's ``parallel_api_test`` warns
about that; it is the only way to give an early finisher the result of the game it played).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import ParallelEnv

from . import engine as E
from .table import ExtraTable

__all__ = ["parallel_env"]


class parallel_env(ExtraTable, ParallelEnv, EzPickle):
    """Extra! for 1-6 players with simultaneous decisions; see README.md for every slot and id."""

    metadata = {**ExtraTable.metadata, "is_parallelizable": True}

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """A new game; ``seed`` reseeds the dice so it and every later unseeded reset are reproducible."""
        self._new_game(seed)
        self.agents = self.possible_agents[:]
        return {a: self.observe(a) for a in self.agents}, {a: self._info(self._seat[a]) for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if not self._has_reset:
            raise RuntimeError("step() before reset(): call reset() to start a game")
        if not self.agents:
            raise RuntimeError("the game is over: call reset() for a new game")
        if not isinstance(actions, dict):
            raise TypeError(f"actions must be a dict {{agent: action}} for {self.agents}, got {type(actions).__name__}")
        missing = [a for a in self.agents if a not in actions]
        extra = [a for a in actions if a not in self.agents]
        if missing or extra:
            raise ValueError(
                f"actions must name exactly the agents still playing {self.agents}; "
                f"missing {missing}, not playing or unknown {extra}"
            )
        chosen = {a: self._coerce_action(actions[a]) for a in self.agents}
        for a, action in chosen.items():
            self._check_legal(a, action)
        for a, action in chosen.items():
            self._play(self._seat[a], action)

        live = self.agents
        over = self._game_over()
        terminations = {a: self._finished(self._seat[a]) for a in live}
        truncations = dict.fromkeys(live, False)
        if self._reward_mode == E.REWARD_SCORE:
            rewards = {a: self._step_reward(self._seat[a], terminations[a]) for a in live}
        elif over:
            rewards = {a: self._reward(self._seat[a]) for a in self.possible_agents}
        else:
            rewards = dict.fromkeys(live, 0.0)
        observations = {a: self.observe(a) for a in live}
        infos = {a: self._info(self._seat[a]) for a in live}
        self.agents = [a for a in live if not terminations[a]]
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos
