"""PettingZoo AEC face of Extra!: the players still playing decide on each throw one after another.

The engine keeps the round simultaneous: a choice is only recorded until every player still playing has
chosen, so a later player never sees an earlier player's choice on the same throw. Within a round the
players are asked in seat order.

A player who checks a last EXTRA box is terminated at once (``terminations`` True, no more turns) but stays
in ``agents`` until the game ends, so that a ``"win"`` reward, known only when everyone has finished, can
reach them; then every player steps out with ``step(None)`` in seat order.
"""

from __future__ import annotations

from typing import Any

from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from envs.common.dice import DiceSource

from . import engine as E
from .config import ExtraConfig
from .table import ExtraTable

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The wrapped env (PettingZoo classic style): an illegal move ends the game with -1 for the mover."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(ExtraTable, AECEnv, EzPickle):
    """Extra! for 1-6 players; agents ``player_0..``; see README.md for every slot and id."""

    metadata = {**ExtraTable.metadata, "is_parallelizable": False}

    def __init__(
        self,
        config: ExtraConfig | dict[str, Any] | None = None,
        dice: DiceSource | None = None,
        render_mode: str | None = None,
        **config_overrides: Any,
    ) -> None:
        EzPickle.__init__(self, config, dice, render_mode, **config_overrides)
        AECEnv.__init__(self)
        self._setup(config, dice, render_mode, **config_overrides)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` reseeds the dice so it and every later unseeded reset are reproducible."""
        self._new_game(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._skip_agent_selection = None
        self.agent_selection = self._next_to_act()
        self._update_infos()

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise RuntimeError("step() before reset(): call reset() to start a game")
        if not self.agents:
            raise RuntimeError("the game is over and every agent has stepped out: call reset() for a new game")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = self._coerce_action(action)
        self._check_legal(agent, action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self._play(self._seat[agent], action):
            for a in self.agents:
                seat = self._seat[a]
                if self._finished(seat) and not self.terminations[a]:
                    self.terminations[a] = True
                    if self._reward_mode == E.REWARD_SCORE:
                        self.rewards[a] = self._reward(seat)
            if self._game_over() and self._reward_mode == E.REWARD_WIN:
                for a in self.agents:
                    self.rewards[a] = self._reward(self._seat[a])
        self._accumulate_rewards()
        self.agent_selection = self.agents[0] if self._game_over() else self._next_to_act()
        self._update_infos()
        if self.render_mode == "human":
            self.render()

    def _next_to_act(self) -> str:
        for seat in range(self.config.num_players):
            if E.must_act(self.engine_state, seat):
                return self.possible_agents[seat]
        raise AssertionError("unreachable: a decision node has a player to act")

    def _update_infos(self) -> None:
        self.infos = {a: self._info(self._seat[a]) for a in self.agents}
