"""The PettingZoo Parallel face of every simultaneous contract game, written once.

Why: a simultaneous round (every deciding seat chooses on the same throw) is what a Parallel env steps; the
checks around it are the same for every such game. ``step(actions)`` takes one action for each agent that
decides now (no more, no fewer), checks them all before changing anything, applies them together and resolves
the chance events that follow. An agent whose seat finishes leaves ``agents`` in that step. Rewards are the
engine's step rewards; at the game's end a seat that left earlier gets its final reward too (PettingZoo's
``parallel_api_test`` warns about that; it is the only way to give an early finisher the result of its game).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from .batch_loops import ILLEGAL
from .chance import ChanceSource
from .contract import CHANCE, NOBODY, TRUNCATED, GameSpec
from .game_table import GameTable
from .table import coerce_action

__all__ = ["GameParallel", "make_parallel_env"]


def make_parallel_env(game: str | GameSpec, **kwargs: Any) -> ParallelEnv:
    return GameParallel(game, **kwargs)


class GameParallel(GameTable, ParallelEnv):
    """One game of a registered simultaneous spec; agents ``player_0..``; observations as in the AEC env."""

    def __init__(
        self, game: str | GameSpec, config: Any = None, chance: ChanceSource | None = None,
        render_mode: str | None = None, dice: Any = None, **config_overrides: Any,
    ) -> None:  # fmt: skip
        GameTable.__init__(self, game, config, chance, render_mode, dice, **config_overrides)
        if self.spec.dynamics != "simultaneous":
            raise ValueError(f"{self.spec.title} is sequential: use its AEC env (a Parallel env steps simultaneous "
                             "games)")  # fmt: skip
        self._step_rewards = np.zeros(self.sizes.num_players)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """A new game; ``seed`` reseeds the chance source, so it and every later unseeded reset are reproducible."""
        self.engine_state, seat = self._new_state(seed)
        self.agents = self.possible_agents[:]
        self._has_reset = True
        return {a: self.observe(a) for a in self.agents}, self._infos(self.agents, seat)

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if not self._has_reset:
            raise RuntimeError(f"{self.spec.title}: step() before reset(): call reset() to start a game")
        if not self.agents:
            raise RuntimeError(f"{self.spec.title}: the game is over: call reset() for a new game")
        deciding = [self.possible_agents[s] for s in self._acting_seats(self.engine_state)]
        if not isinstance(actions, dict):
            raise TypeError(f"actions must be a dict {{agent: action}} for {deciding}, got {type(actions).__name__}")
        missing = [a for a in deciding if a not in actions]
        extra = [a for a in actions if a not in deciding]
        if missing or extra:
            raise ValueError(f"actions must name exactly the agents that decide now {deciding}; missing {missing}, "
                             f"not deciding or unknown {extra}")  # fmt: skip
        n = self.sizes.actions
        chosen = {a: coerce_action(actions[a], n, self._help) for a in deciding}
        E, state = self.spec.engine, self.engine_state.copy()
        for a, action in chosen.items():  # all checked on the round's state before any is applied
            if not E.is_legal(state, self._seat[a], action):
                raise ValueError(self._illegal_message(a, self._seat[a], action))
        resolved = 0
        for a, action in chosen.items():
            resolved = self._kernels.aec_act(state, self._seat[a], action)
            if resolved == ILLEGAL:
                raise AssertionError("unreachable: every action was checked legal")
        if resolved:
            E.step_rewards(state, self._step_rewards)
        else:
            self._step_rewards[:] = 0.0
        after = E.to_act(state)
        if after == CHANCE:
            after = self._resolve_chance(state, after)
        self.engine_state = state
        live = self.agents
        truncated = after == NOBODY and E.status(state) == TRUNCATED
        codes = {a: E.seat_status(state, self._seat[a]) for a in live}
        terminations = {a: after == NOBODY and not truncated or codes[a] not in (0, TRUNCATED) for a in live}
        truncations = {a: truncated or codes[a] == TRUNCATED for a in live}
        rewards = {a: float(self._step_rewards[self._seat[a]]) for a in live}
        if after == NOBODY:  # a seat that left earlier gets the game's result too
            rewards |= {a: float(self._step_rewards[s]) for s, a in enumerate(self.possible_agents)
                        if a not in rewards and self._step_rewards[s] != 0}  # fmt: skip
        observations = {a: self.observe(a) for a in live}
        infos = self._infos(live, after)
        self.agents = [a for a in live if not (terminations[a] or truncations[a])]
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos
