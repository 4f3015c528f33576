"""The PettingZoo AEC face of every contract game, written once.

Why: the AEC bookkeeping, input coercion, illegal-action errors, chance resolution, copying and the checks
around them are the same for every game; a game supplies only its engine and its words (``GameSpec``).

What users can rely on, in every game: chance never reaches the agents (it is resolved inside ``step`` and
``reset``); a bad or illegal action is an error naming the action, the rule and the legal ids, and changes
nothing; so does a chance source that fails or returns a bad outcome; each agent gets its own info dict;
``copy.deepcopy`` and pickling continue the same game, and ``clone()`` / ``save_state()`` / ``restore_state()``
serve planners; ``state()`` is the full engine state, for centralised critics.

Simultaneous games (Extra!) are played one seat after another within a round, in seat order: a choice is only
recorded until every deciding seat has chosen, so a later seat never sees an earlier one's. Rewards come as the
engine's step rewards, after each resolved round. A seat that finishes early is terminated at once but stays in
``agents`` until the game ends (so a reward known only then reaches it); then every agent steps out.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from .batch_loops import ILLEGAL
from .chance import ChanceSource
from .contract import CHANCE, NOBODY, SIMULTANEOUS, TRUNCATED, GameSpec
from .game_table import GameTable
from .rewards import shaped_reward_python
from .table import wrap_classic

__all__ = ["GameAEC", "make_env"]


def make_env(game: str | GameSpec, **kwargs: Any) -> AECEnv:
    """The wrapped env (PettingZoo classic style): an illegal move ends the game with -1 for the mover."""
    return wrap_classic(GameAEC(game, **kwargs))


class GameAEC(GameTable, AECEnv):
    """One game of a registered spec; agents ``player_0..``; observations ``{"observation", "action_mask"}``."""

    _SAVED = ("engine_state", "agents", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos",
              "agent_selection", "_has_reset")  # fmt: skip

    def __init__(
        self, game: str | GameSpec, config: Any = None, chance: ChanceSource | None = None,
        render_mode: str | None = None, dice: Any = None, **config_overrides: Any,
    ) -> None:  # fmt: skip
        AECEnv.__init__(self)
        GameTable.__init__(self, game, config, chance, render_mode, dice, **config_overrides)
        self.metadata["is_parallelizable"] = False
        self._simultaneous = self.spec.dynamics == "simultaneous"
        self._current_seat = getattr(self.spec.engine, "current_seat", None)  # optional: whose turn, even at the end
        self._step_rewards = np.zeros(self.sizes.num_players)
        self._potentials = getattr(self.spec.engine, "shaping_potentials", None)  # optional: shaped rewards
        self._pot = np.zeros((2, self.sizes.num_players))
        self.agent_selection: str | None = None  # type: ignore[assignment]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` reseeds the chance source, so it and every later unseeded reset are reproducible."""
        state, seat = self._new_state(seed)
        self.engine_state = state
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._skip_agent_selection = None
        self._has_reset = True
        self._select_and_inform(int(seat))

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise RuntimeError(f"{self.spec.title}: step() before reset(): call reset() to start a game")
        if not self.agents:
            raise RuntimeError(f"{self.spec.title}: the game is over and every agent has stepped out: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        E, seat, n = self.spec.engine, self._seat[agent], self.sizes.actions
        if type(action) is not int or not 0 <= action < n:
            action = self.check_action(action)
        state = self.engine_state.copy()  # the move and its chance events land here; kept only if all goes well
        shaped = self._potentials is not None
        if shaped:
            self._potentials(self.engine_state, self._pot[0])
        after = self._kernels.aec_act(state, seat, action)
        if after == ILLEGAL:
            raise ValueError(self._illegal_message(agent, seat, action))
        resolved = False
        if self._simultaneous:
            self.rewards = dict.fromkeys(self.agents, 0.0)  # a round's rewards belong to the step that resolved it
            resolved, after = after == 1, E.to_act(state)
            if resolved:
                E.step_rewards(state, self._step_rewards)  # read before the next throw changes the state
        if after == CHANCE:
            after = self._resolve_chance(state, after)
        self.engine_state = state
        self._cumulative_rewards[agent] = 0.0
        if resolved:
            self._pay_round(state)
        elif after == NOBODY or shaped:  # a sequential game's rewards: paid at the end, every step if it shapes
            ended = after == NOBODY
            if ended:
                E.rewards(state, self._final)
            else:
                self._potentials(state, self._pot[1])
            final = self._final.tolist() if ended else None
            before, now = self._pot.tolist()  # (a loop over Python floats: a list comprehension here cost 5% a step)
            for s, a in enumerate(self.possible_agents):
                paid = final[s] if ended else 0.0
                self.rewards[a] = shaped_reward_python(paid, before[s], now[s], ended) if shaped else paid
        if after == NOBODY:
            flags = self.truncations if E.status(state) == TRUNCATED else self.terminations
            for a in self.agents:
                flags[a] = True
        if resolved or shaped or after == NOBODY:
            self._accumulate_rewards()
        self._select_and_inform(after)
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise RuntimeError(f"{self.spec.title}: last() before reset(): call reset() first")
        return super().last(observe)

    def __setstate__(self, saved: dict[str, Any]) -> None:
        super().__setstate__(saved)
        self._current_seat = getattr(self.spec.engine, "current_seat", None)
        self._potentials = getattr(self.spec.engine, "shaping_potentials", None)

    def __getstate__(self) -> dict[str, Any]:
        out = super().__getstate__()
        out["_current_seat"] = out["_potentials"] = None
        return out

    # --- internals

    def _pay_round(self, state: np.ndarray) -> None:
        """A simultaneous round resolved: its step rewards, and every seat that finished in it terminated."""
        status = self.spec.engine.seat_status
        for a in self.agents:
            s = self._seat[a]
            self.rewards[a] = float(self._step_rewards[s])
            code = status(state, s)
            if code == TRUNCATED:
                self.truncations[a] = True
            elif code != 0:
                self.terminations[a] = True

    def _select_and_inform(self, seat: int) -> None:
        """The seat to move is selected (in a simultaneous round the first that still decides; at the end the
        engine's ``current_seat`` if it has one, else the mover stays selected, then agents step out); every
        agent gets its own info dict."""
        if seat >= 0:
            self.agent_selection = self.possible_agents[seat]
        elif seat == SIMULTANEOUS:
            self.agent_selection = self.possible_agents[self._acting_seats(self.engine_state)[0]]
        elif seat == NOBODY and self._current_seat is not None:
            self.agent_selection = self.possible_agents[int(self._current_seat(self.engine_state))]
        elif seat == NOBODY and self._simultaneous:
            self.agent_selection = self.agents[0]
        self.infos = self._infos(self.agents, seat)
