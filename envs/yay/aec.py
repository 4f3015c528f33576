"""PettingZoo AEC face of Yay!: a thin shell around the numba rules engine.

Chance never reaches the agents: the start rolls and every throw (faces and where the dice land) are drawn
from the env's throw source whenever the engine is at a chance node, so an agent only ever sees decisions:
write, block, throw again, or the cross-off a throw that was not higher forces.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import EzPickle
from numba import njit
from pettingzoo import AECEnv

from envs.common.config import validate_config
from envs.common.dice import DiceSource
from envs.common.table import AECBookkeeping, DiceTable, check_faces, coerce_action, reseed, wrap_classic

from . import engine as E
from .chance import SeededThrows
from .config import YayConfig
from .game import EVENT_NAMES, action_help, illegal_reason, seat_info
from .game import action_words as describe_action
from .render import render_ansi, render_rgb

__all__ = ["EVENT_NAMES", "describe_action", "env", "raw_env"]


@njit(cache=True)
def _observe(state: np.ndarray, seat: int, obs: np.ndarray, mask: np.ndarray) -> None:
    """Observation and mask in one compiled call (the mask is all zero unless ``seat`` is to act)."""
    E.encode_observation(state, seat, obs)
    E.legal_mask(state, seat, mask)


def env(**kwargs: Any) -> AECEnv:
    """The wrapped env (PettingZoo classic style): an illegal move ends the game with -1 for the mover."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(DiceTable, AECBookkeeping, AECEnv, EzPickle):
    """Yay! for 2-4 players; agents ``player_0..``; see README.md for every slot and id."""

    metadata = {
        "name": "yay_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 2,
    }
    _engine = E
    _game_name = "Yay!"
    _observe_into = staticmethod(_observe)
    _render_ansi = staticmethod(render_ansi)
    _render_rgb = staticmethod(render_rgb)

    def __init__(
        self,
        config: YayConfig | dict[str, Any] | None = None,
        dice: DiceSource | None = None,
        render_mode: str | None = None,
        **config_overrides: Any,
    ) -> None:
        """``dice``: a throw source (``roll(3)`` and ``land(die_size, rows, cols)``, see ``envs.yay.chance``)."""
        EzPickle.__init__(self, config, dice, render_mode, **config_overrides)
        AECEnv.__init__(self)
        cfg = validate_config(YayConfig, config, **config_overrides)
        if dice is not None and not callable(getattr(dice, "land", None)):
            raise TypeError(
                f"dice must be a Yay! throw source with roll(n) and land(die_size, rows, cols) "
                f"(envs.yay.chance.SeededThrows / ScriptedThrows), got {type(dice).__name__}"
            )
        check_sheet = getattr(dice, "check_sheet", None)
        if callable(check_sheet):  # a scripted landing the sheet forbids fails here, not in the middle of a step
            check_sheet(cfg.die_size, cfg.rows, cfg.cols)
        self._setup_table(cfg, dice if dice is not None else SeededThrows(), render_mode, (0.0, 1.0))
        self._trusted_dice = isinstance(self.dice, SeededThrows)
        self._touched = np.zeros(cfg.rows * cfg.cols, dtype=np.int32)
        self._before = np.zeros(E.MAX_PLAYERS)  # shaping: every seat's lead before / after a step
        self._after = np.zeros(E.MAX_PLAYERS)
        self._help = action_help(cfg.rows, cfg.cols)

    def _sizes(self) -> tuple[int, int]:
        cfg = self.config
        return E.observation_size(cfg.num_players, cfg.rows, cfg.cols), E.num_actions(cfg.rows, cfg.cols)

    # --- PettingZoo API (spaces, observe, render, close: DiceTable)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` reseeds the throws so it and every later unseeded reset are reproducible."""
        reseed(self.dice, seed)
        E.start_game(self.engine_state, *self.config.engine_args())
        self._resolve_chance(E.dice_needed(self.engine_state))
        self._start_episode()
        self._has_reset = True
        self.agent_selection = self.possible_agents[self.engine_state[E.CURRENT]]
        self._update_infos()

    def step(self, action: Any) -> None:
        if self._dead_step_taken(action):
            return
        agent = self.agent_selection
        action = coerce_action(action, self._num_actions, self._help)
        state = self.engine_state
        if not E.is_legal(state, self._seat[agent], action):
            self._raise_illegal(agent, action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self.config.shaping:
            E.potentials(state, self._before)
        E.apply_action(state, self._seat[agent], action)
        self._resolve_chance(E.dice_needed(state))
        if state[E.PHASE] == E.PHASE_OVER:
            self._finish()
        elif self.config.shaping:
            E.potentials(state, self._after)
            for seat, a in enumerate(self.possible_agents):
                self.rewards[a] = float(self._after[seat] - self._before[seat])
            self._accumulate_rewards()
        self.agent_selection = self.possible_agents[state[E.CURRENT]]
        self._update_infos()
        if self.render_mode == "human":
            self.render()

    def state(self) -> np.ndarray:
        """A copy of the engine state (every slot): what planning agents read, ``agent.act(obs, mask,
        state=env.state(), seat=)``, and a global state for centralised critics."""
        if not self._has_reset:
            raise RuntimeError(f"{self._game_name}: state() before reset(): call reset() first")
        return self.engine_state.copy()

    # --- internals

    def _resolve_chance(self, k: int) -> None:
        """Start rolls (faces only) until a starter is found, then throws (faces and landing) until a decision."""
        state, cfg = self.engine_state, self.config
        while k > 0:
            faces = self.dice.roll(k)
            if not self._trusted_dice:
                faces = check_faces(faces, k, E.NUM_FACES)
            if E.needs_landing(state):
                corners = np.asarray(self.dice.land(cfg.die_size, cfg.rows, cfg.cols), dtype=np.float64)
                if corners.shape != (E.NUM_DICE, 2):
                    raise ValueError(f"the throw source must land {E.NUM_DICE} dice as (x, y) corners, got {corners}")
                E.touched_squares(corners, cfg.die_size, cfg.rows, cfg.cols, self._touched)
                E.apply_throw(state, faces, self._touched)
            else:
                E.apply_start_roll(state, faces)
            k = E.dice_needed(state)

    def _finish(self) -> None:
        """Game over after this step: +1 / -1 for a finished game, 0 and truncation flags after ``max_turns``
        (with ``shaping``, minus each player's lead before the step, so that returns stay +-1 / 0)."""
        state = self.engine_state
        for seat, a in enumerate(self.possible_agents):
            lead = float(self._before[seat]) if self.config.shaping else 0.0
            self.rewards[a] = float(E.final_reward(state, seat)) - lead
        if state[E.TRUNCATED]:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()

    def _update_infos(self) -> None:
        """Shared facts of the table, plus each agent's own ``turn_passed``: its last turn passed by rule 5, a turn it
        lost without ever being asked to act."""
        s = self.engine_state
        info = seat_info(self.config, s)
        self.infos = {  # one dict per agent, no list shared between them
            a: info | {"dice": list(info["dice"]), "standings": list(info["standings"]),
                       "turn_passed": bool(s[E.PASSED + self._seat[a]])}
            for a in self.agents
        }  # fmt: skip

    def _raise_illegal(self, agent: str, action: int) -> None:
        state, cfg = self.engine_state, self.config
        seat = self._seat[agent]
        mask = np.zeros(self._num_actions, dtype=np.int8)
        E.legal_mask(state, seat, mask)
        why = illegal_reason(state, action)
        raise ValueError(
            f"illegal action {action} ({describe_action(action, cfg.rows, cfg.cols)}) for {agent}: {why}. "
            f"Legal action ids: {np.flatnonzero(mask).tolist()}"
        )
