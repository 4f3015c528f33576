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

from envs.common.table import AECBookkeeping, wrap_classic

from . import engine as E
from .table import ExtraTable

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The wrapped env (PettingZoo classic style): an illegal move ends the game with -1 for the mover."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(ExtraTable, AECBookkeeping, AECEnv, EzPickle):
    """Extra! for 1-6 players; agents ``player_0..``; see README.md for every slot and id."""

    metadata = {**ExtraTable.metadata, "is_parallelizable": False}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` reseeds the dice so it and every later unseeded reset are reproducible."""
        self._new_game(seed)
        self._start_episode()
        self.agent_selection = self._next_to_act()
        self._update_infos()

    def step(self, action: Any) -> None:
        if self._dead_step_taken(action):
            return
        agent = self.agent_selection
        action = self._coerce_action(action)
        self._check_legal(agent, action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self._play(self._seat[agent], action):
            for a in self.agents:
                seat = self._seat[a]
                newly = self._finished(seat) and not self.terminations[a]
                self.terminations[a] = self.terminations[a] or newly
                if self._reward_mode == E.REWARD_SCORE:
                    self.rewards[a] = self._step_reward(seat, newly)
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
