"""PettingZoo AEC face of Easy Come, Easy Go: a thin, fast shell around the numba rules engine.

Chance nodes never reach the agents: after ``reset`` and after every action the env asks its dice source
for one ``roll(k)`` per pending chance event, in engine order, so a batched engine drawing the same
seeded stream plays the same game.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from numba import njit
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from envs.common.config import validate_config
from envs.common.dice import DiceSource, SeededDice

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
        E.legal_mask(state, mask)


@njit(cache=True)
def _act(state: np.ndarray, action: int) -> int:
    """Play ``action`` if legal and return the dice the next chance event needs; -1 (state untouched) if illegal."""
    if not E.is_legal(state, action):
        return -1
    E.apply_action(state, action)
    return E.dice_needed(state)


def env(**kwargs: Any) -> AECEnv:
    """The wrapped env (PettingZoo classic style): an illegal move ends the game with -1 for the mover."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):
    """Easy Come, Easy Go for 2-6 players; agents ``player_0..``; see README.md for every slot and id."""

    metadata = {
        "name": "easy_come_easy_go_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        config: EasyComeEasyGoConfig | dict[str, Any] | None = None,
        dice: DiceSource | None = None,
        render_mode: str | None = None,
        **config_overrides: Any,
    ) -> None:
        EzPickle.__init__(self, config, dice, render_mode, **config_overrides)
        super().__init__()
        self.config = validate_config(EasyComeEasyGoConfig, config, **config_overrides)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of None, {self.metadata['render_modes']}")
        self.render_mode = render_mode
        if dice is None:
            dice = SeededDice(seed=None)
        elif not isinstance(dice, DiceSource):
            raise TypeError(f"dice must have a roll(n) method (a DiceSource), got {type(dice).__name__}")
        if isinstance(dice, SeededDice) and (dice.faces != E.NUM_FACES or dice.block < E.NUM_DICE):
            raise ValueError(f"SeededDice for this game needs faces=6 and block>=4, got {dice.faces}, {dice.block}")
        self.dice = dice
        self._trusted_dice = isinstance(dice, SeededDice)

        cfg = self.config
        n = cfg.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._obs_size = E.observation_size(n)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (self._obs_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (E.NUM_ACTIONS,), np.int8),
            }
        )
        act_space = spaces.Discrete(E.NUM_ACTIONS)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)

        self.engine_state = np.zeros(E.STATE_SIZE, dtype=np.int32)
        self._rewards_buf = np.zeros(E.MAX_PLAYERS, dtype=np.float64)
        self._first_player = -1 if cfg.first_player is None else cfg.first_player
        self._variant = int(cfg.four_of_a_kind_is_two_pairs)
        self._has_reset = False
        self.agents: list[str] = []

    # --- PettingZoo API

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = np.empty(self._obs_size, dtype=np.float32)
        mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
        _observe(self.engine_state, self._seat[agent], obs, mask)
        return {"observation": obs, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` reseeds the dice so it and every later unseeded reset are reproducible."""
        if seed is not None:
            reseed = getattr(self.dice, "seed", None)
            if reseed is not None:
                reseed(seed)
        cfg = self.config
        E.init_state(self.engine_state, cfg.num_players, cfg.max_turns, self._variant, self._first_player)
        self._resolve_chance(E.dice_needed(self.engine_state))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._skip_agent_selection = None
        self._has_reset = True
        self.agent_selection = self.possible_agents[self.engine_state[E.CURRENT]]
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
        if type(action) is not int or not 0 <= action < E.NUM_ACTIONS:
            action = self._coerce_action(action)
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

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= to the constructor")
            return None
        if not self._has_reset:
            raise RuntimeError("render() before reset(): call reset() first")
        if self.render_mode == "rgb_array":
            return render_rgb(self.engine_state)
        text = render_ansi(self.engine_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: rendering draws off-screen."""

    # --- internals

    def _resolve_chance(self, k: int) -> None:
        """One ``dice.roll(k)`` per pending chance event, in engine order (the batched engine relies on it)."""
        state = self.engine_state
        while k > 0:
            faces = self.dice.roll(k)
            if not self._trusted_dice:
                faces = self._check_faces(faces, k)
            E.apply_chance(state, faces)
            k = E.dice_needed(state)

    @staticmethod
    def _check_faces(faces: Any, k: int) -> np.ndarray:
        arr = np.asarray(faces)
        if arr.shape != (k,) or arr.dtype.kind not in "iu" or (k and (arr.min() < 0 or arr.max() >= E.NUM_FACES)):
            raise ValueError(f"the dice source must return {k} integer faces in 0..{E.NUM_FACES - 1}, got {faces!r}")
        return arr.astype(np.int64)

    def _finish(self) -> None:
        """Game over after this step: rewards for a win, truncation flags after max_turns."""
        state = self.engine_state
        if state[E.WINNER] >= 0:
            E.rewards(state, self.config.win_reward, self.config.loss_reward, self._rewards_buf)
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

    @staticmethod
    def _coerce_action(action: Any) -> int:
        """Accept ints and NumPy integer scalars / 0-d arrays; anything else is a TypeError."""
        if isinstance(action, bool | np.bool_):
            raise TypeError(f"action must be an int 0..{E.NUM_ACTIONS - 1}, got a bool ({action!r})")
        if isinstance(action, int | np.integer):
            value = int(action)
        elif isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            value = int(action)
        else:
            shape = f" of shape {action.shape} and dtype {action.dtype}" if isinstance(action, np.ndarray) else ""
            raise TypeError(
                f"action must be an int 0..{E.NUM_ACTIONS - 1} (Python int, NumPy integer scalar or 0-d integer "
                f"array), got {type(action).__name__}{shape}: {action!r}"
            )
        if not 0 <= value < E.NUM_ACTIONS:
            raise ValueError(f"action {value} is out of range: {_ACTION_HELP}")
        return value

    def _raise_illegal(self, agent: str, action: int) -> None:
        state = self.engine_state
        if not 0 <= action < E.NUM_ACTIONS:
            raise ValueError(f"action {action} is out of range: {_ACTION_HELP}")
        mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
        E.legal_mask(state, mask)
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
