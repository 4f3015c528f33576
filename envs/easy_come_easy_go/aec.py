"""PettingZoo AEC face of Easy Come, Easy Go: a thin, fast shell around the numba rules engine.

Chance nodes never reach the agents: after ``reset`` and after every action the env asks its dice source
for one ``roll(k)`` per pending chance event, in engine order, so a batched engine drawing the same
seeded stream plays the same game.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import EzPickle
from numba import njit
from pettingzoo import AECEnv

from envs.common.config import validate_config
from envs.common.dice import DiceSource
from envs.common.table import AECBookkeeping, DiceTable, coerce_action, reseed, wrap_classic

from . import engine as E
from .config import EasyComeEasyGoConfig
from .render import render_ansi, render_rgb

__all__ = ["env", "raw_env", "describe_action"]

_FROZEN_FLAGS = tuple(tuple(bool((m >> i) & 1) for i in range(E.NUM_DICE)) for m in range(E.ALL_FROZEN + 1))


def describe_action(action: int) -> str:
    """Human wording of an action id, e.g. ``collect prize 3 (7 exactly)`` or ``freeze dice 1, 2``."""
    if action < E.NUM_PRIZES:
        return f"collect prize {action} ({E.PRIZE_NAMES[action]})"
    subset = action - E.FREEZE_OFFSET
    dice = ", ".join(str(i) for i in range(E.NUM_DICE) if (subset >> i) & 1)
    return f"freeze {'die' if subset & (subset - 1) == 0 else 'dice'} {dice}"


_ACTION_HELP = (
    f"actions are 0..{E.NUM_ACTIONS - 1}: 0-8 collect that prize, 9-23 freeze dice subset (action - 8, bit i = die i)"
)


@njit(cache=True)
def _observe(state: np.ndarray, seat: int, obs: np.ndarray, mask: np.ndarray) -> None:
    """Observation and mask in one compiled call (the mask is all zero unless ``seat`` is to act)."""
    E.encode_observation(state, seat, obs)
    if seat == state[E.CURRENT]:
        E.legal_mask(state, seat, mask)


@njit(cache=True)
def _act(state: np.ndarray, action: int) -> int:
    """Play ``action`` if legal and return the dice the next chance event needs; -1 (state untouched) if illegal."""
    seat = state[E.CURRENT]
    if not E.is_legal(state, seat, action):
        return -1
    E.apply_action(state, seat, action)
    return E.dice_needed(state)


def env(**kwargs: Any) -> AECEnv:
    """The wrapped env (PettingZoo classic style): an illegal move ends the game with -1 for the mover."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(DiceTable, AECBookkeeping, AECEnv, EzPickle):
    """Easy Come, Easy Go for 2-6 players; agents ``player_0..``; see README.md for every slot and id."""

    metadata = {
        "name": "easy_come_easy_go_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 2,
    }
    _engine = E
    _game_name = "Easy Come, Easy Go"
    _observe_into = staticmethod(_observe)
    _render_ansi = staticmethod(render_ansi)
    _render_rgb = staticmethod(render_rgb)

    def __init__(
        self,
        config: EasyComeEasyGoConfig | dict[str, Any] | None = None,
        dice: DiceSource | None = None,
        render_mode: str | None = None,
        **config_overrides: Any,
    ) -> None:
        EzPickle.__init__(self, config, dice, render_mode, **config_overrides)
        AECEnv.__init__(self)
        cfg = validate_config(EasyComeEasyGoConfig, config, **config_overrides)
        self._setup_table(cfg, dice, render_mode, (0.0, 1.0))
        self._rewards_buf = np.zeros(E.MAX_PLAYERS, dtype=np.float64)
        self._first_player = -1 if cfg.first_player is None else cfg.first_player
        self._variant = int(cfg.four_of_a_kind_is_two_pairs)

    # --- PettingZoo API (spaces, observe, render, close: DiceTable)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` reseeds the dice so it and every later unseeded reset are reproducible."""
        reseed(self.dice, seed)
        cfg = self.config
        E.start_game(self.engine_state, cfg.num_players, cfg.max_turns, self._variant, self._first_player)
        self._resolve_chance(E.dice_needed(self.engine_state))
        self._start_episode()
        self._has_reset = True
        self.agent_selection = self.possible_agents[self.engine_state[E.CURRENT]]
        self._update_infos()

    def step(self, action: Any) -> None:
        if self._dead_step_taken(action):
            return
        agent = self.agent_selection
        if type(action) is not int or not 0 <= action < E.NUM_ACTIONS:
            action = coerce_action(action, E.NUM_ACTIONS, _ACTION_HELP)
        state = self.engine_state
        k = _act(state, action)
        if k < 0:
            self._raise_illegal(agent, action)
        self._cumulative_rewards[agent] = 0.0
        if k > 0:
            self._resolve_chance(k)
        if state[E.PHASE] == E.PHASE_OVER:
            self._finish()
        self.agent_selection = self.possible_agents[state[E.CURRENT]]
        self._update_infos()
        if self.render_mode == "human":
            self.render()

    # --- internals

    def _finish(self) -> None:
        """Game over after this step: rewards for a win, truncation flags after max_turns."""
        state = self.engine_state
        if state[E.WINNER] >= 0:
            E.final_rewards(state, self.config.win_reward, self.config.loss_reward, self._rewards_buf)
            for seat, a in enumerate(self.possible_agents):
                self.rewards[a] = float(self._rewards_buf[seat])
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()

    def _update_infos(self) -> None:
        s = self.engine_state.tolist()
        info = {
            "dice": s[E.DICE : E.DICE + E.NUM_DICE],
            "frozen": list(_FROZEN_FLAGS[s[E.FROZEN]]),
            "rolls": s[E.ROLLS],
            "turn": s[E.TURN],
            "last_player": s[E.LAST_PLAYER],
            "last_prize": s[E.LAST_PRIZE],
            "winner": s[E.WINNER],
        }
        self.infos = dict.fromkeys(self.agents, info)

    def _raise_illegal(self, agent: str, action: int) -> None:
        state = self.engine_state
        if not 0 <= action < E.NUM_ACTIONS:
            raise ValueError(f"action {action} is out of range: {_ACTION_HELP}")
        mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
        E.legal_mask(state, state[E.CURRENT], mask)
        legal = np.flatnonzero(mask).tolist()
        dice = state[E.DICE : E.DICE + E.NUM_DICE].tolist()
        if action < E.NUM_PRIZES:
            if state[E.OWNER + action] == state[E.CURRENT]:
                why = f"{agent} already holds it"
            else:
                why = f"the dice {dice} do not satisfy it"
        else:
            why = f"it includes a die already frozen (frozen: {list(_FROZEN_FLAGS[state[E.FROZEN]])})"
        raise ValueError(
            f"illegal action {action} ({describe_action(action)}) for {agent}: {why}. Legal action ids: {legal}"
        )
