"""The turn task: one solitary turn of Easy Come, Easy Go, reward = value of the prize collected.

It isolates the game's freeze/re-roll decision (see ../shared/rules, "Task environments"). Two faces over
the same engine functions: ``EasyComeEasyGoTurnEnv`` (one Gymnasium env, injectable dice) and
``EasyComeEasyGoTurnGames`` (N turns stepped in the shared batched loops, ``envs.common.batch_loops``, behind SB3's
``VecEnv`` protocol; ``EasyComeEasyGoTurnVecEnv`` is its SB3 ``VecEnv`` twin, importing stable-baselines3 when first
used). All give ``action_masks()`` so sb3-contrib's ``MaskablePPO`` trains on them with no glue code.

Chance stream: values (when drawn per episode) then dice, from one generator seeded by ``reset(seed)``: each
roll of the vec env draws ``integers(0, 6, size=(n, 4))`` for the n turns about to roll (each using the faces
of the dice it rolls), so with the same seed a 1-game vec env plays the same turns as the single env, whose
seeded dice draw ``integers(0, 6, 4)`` per roll.
"""

from __future__ import annotations

from typing import Any, Literal

import gymnasium
import numpy as np
from gymnasium import spaces
from numba import njit
from pydantic import Field, model_validator

from envs.common import batch_loops as L
from envs.common.batching import LegalDiscrete, check_num_envs
from envs.common.config import GameConfig, validate_config
from envs.common.contract import PLAYING, TERMINATED
from envs.common.dice import DiceSource, SeededDice
from envs.common.table import check_faces, coerce_action, dice_source
from envs.common.vec_games import BatchedTaskGames, sb3_names

from . import engine as E
from .turn_encoding import TURN_OBS_SIZE, encode_turn_observation

__all__ = [
    "EasyComeEasyGoTurnEnv",
    "EasyComeEasyGoTurnGames",
    "LegalDiscrete",
    "TurnTaskConfig",
    "UniformIntValues",
]


MAX_VALUE = 10**9  # prize values stay exact in float64 sums and within the generator's int64 draws


class UniformIntValues(GameConfig):
    """Each prize's value drawn independently, uniformly from the integers ``low..high``, every episode."""

    kind: Literal["uniform_int"] = "uniform_int"
    low: int = Field(0, ge=0, le=MAX_VALUE, description="smallest value")
    high: int = Field(..., ge=1, le=MAX_VALUE, description="largest value (also the observation's value scale)")

    @model_validator(mode="after")
    def _ordered(self) -> UniformIntValues:
        if self.high < self.low:
            raise ValueError(f"'value_distribution.high' ({self.high}) must be >= 'low' ({self.low})")
        return self


class TurnTaskConfig(GameConfig):
    prize_values: list[float] = Field(
        default_factory=lambda: [1.0] * E.NUM_PRIZES,
        min_length=E.NUM_PRIZES,
        max_length=E.NUM_PRIZES,
        description="value of each prize id 0..8 (a target subset: zeros elsewhere); fixed for every episode",
    )
    value_distribution: UniformIntValues | None = Field(
        None, description="None: prize_values; else values drawn afresh each episode, shown in the observation"
    )
    four_of_a_kind_is_two_pairs: bool = Field(False, description="x,x,x,x also satisfies prize 8")

    @model_validator(mode="after")
    def _values_make_sense(self) -> TurnTaskConfig:
        bad = [v for v in self.prize_values if not (np.isfinite(v) and v >= 0)]
        if bad:
            raise ValueError(f"'prize_values' must be 9 finite numbers >= 0, got {self.prize_values}")
        if self.value_distribution is not None:
            if "prize_values" in self.model_fields_set:
                raise ValueError("set either 'prize_values' (fixed) or 'value_distribution' (drawn), not both")
        elif max(self.prize_values) <= 0:
            raise ValueError("'prize_values' needs at least one value > 0 (else every turn is worth nothing)")
        return self

    @property
    def value_scale(self) -> float:
        """The largest value the config can produce: observations show values / value_scale in [0, 1]."""
        if self.value_distribution is not None:
            return float(self.value_distribution.high)
        return float(max(self.prize_values))

    def draw_values(self, rng: np.random.Generator, k: int) -> np.ndarray:
        """(k, 9) prize values for k new episodes (the fixed values, or fresh draws)."""
        dist = self.value_distribution
        if dist is None:
            return np.tile(np.asarray(self.prize_values, dtype=np.float64), (k, 1))
        return rng.integers(dist.low, dist.high + 1, size=(k, E.NUM_PRIZES)).astype(np.float64)


# The freezes: legal at every turn's first roll, what a blind ``action_space.sample()`` draws between turns.
_FIRST_ROLL_MASK = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
_FIRST_ROLL_MASK[E.FREEZE_OFFSET + 1 :] = 1

_ACTION_HELP = "0..8 collect that prize, 9..23 freeze dice subset (action - 8)"


class EasyComeEasyGoTurnEnv(gymnasium.Env):
    """One turn: roll, then collect a satisfied prize (ends, reward = its value) or freeze and re-roll.

    ``info["action_mask"]`` / ``action_masks()`` give the legal actions, ``info["prize_values"]`` the values
    of this episode; ``dice`` (e.g. ``ScriptedDice``) replaces the seeded dice.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        config: TurnTaskConfig | dict[str, Any] | None = None,
        dice: DiceSource | None = None,
        render_mode: str | None = None,
        **config_overrides: Any,
    ) -> None:
        self.config = validate_config(TurnTaskConfig, config, **config_overrides)
        if render_mode is not None:
            raise ValueError(f"render_mode must be None (the turn task does not render), got {render_mode!r}")
        if dice is not None:
            dice_source(dice, E.NUM_FACES, E.NUM_DICE, "the turn task")  # type and SeededDice checks
        self.render_mode = render_mode
        self._injected_dice = dice
        self._seeded_dice = SeededDice(faces=E.NUM_FACES, block=E.NUM_DICE)
        self.value_scale = self.config.value_scale
        self.observation_space = spaces.Box(0.0, 1.0, (TURN_OBS_SIZE,), np.float32)
        self.action_space = LegalDiscrete(E.NUM_ACTIONS, self._mask, fallback=_FIRST_ROLL_MASK, env=self)
        self.engine_state = np.zeros(E.STATE_SIZE, dtype=np.int32)
        self.prize_values = np.zeros(E.NUM_PRIZES, dtype=np.float64)
        self._scaled = np.zeros(E.NUM_PRIZES, dtype=np.float64)
        self._variant = int(self.config.four_of_a_kind_is_two_pairs)
        self._started = False
        self._over = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self._seeded_dice.rng = self.np_random  # values and dice: one stream, reseeded by seed
        self.action_space.game_started(seed)  # reproducible action_space.sample() rollouts too
        if seed is not None and self._injected_dice is not None:
            getattr(self._injected_dice, "seed", lambda s: None)(seed)
        self.prize_values[:] = self.config.draw_values(self.np_random, 1)[0]
        self._scaled[:] = self.prize_values / self.value_scale
        E.init_turn_state(self.engine_state, self._variant)
        self._roll()
        self._started, self._over = True, False
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if not self._started:
            raise RuntimeError("step() before reset(): call reset() to start a turn")
        if self._over:
            raise RuntimeError("the turn is over: call reset() for a new one")
        action = coerce_action(action, E.NUM_ACTIONS, _ACTION_HELP)
        if not E.is_legal(self.engine_state, 0, action):
            raise ValueError(f"action {action} is illegal here; legal actions: {np.flatnonzero(self._mask()).tolist()}")
        result = E.apply_action(self.engine_state, 0, action)
        reward = 0.0
        if result == E.TURN_CONTINUES:
            self._roll()
        else:
            self._over = True
            reward = float(self.prize_values[result]) if result >= 0 else 0.0
        info = self._info()
        if self._over:
            info["prize"] = int(result) if result >= 0 else None
        return self._observe(), reward, self._over, False, info

    def action_masks(self) -> np.ndarray:
        """Legal actions as bools (sb3-contrib MaskablePPO convention); all False once the turn is over."""
        return self._mask().astype(bool)

    def _mask(self) -> np.ndarray:
        mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
        E.legal_mask(self.engine_state, 0, mask)
        return mask

    def _roll(self) -> None:
        k = E.dice_needed(self.engine_state)
        dice = self._injected_dice if self._injected_dice is not None else self._seeded_dice
        E.apply_chance(self.engine_state, check_faces(dice.roll(k), k, E.NUM_FACES))

    def _observe(self) -> np.ndarray:
        obs = np.empty(TURN_OBS_SIZE, dtype=np.float32)
        encode_turn_observation(self.engine_state, self._scaled, obs)
        return obs

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask(), "prize_values": self.prize_values.copy()}


# --- the vectorised turn task: the shared batched loops with the turn's start, end and observation


@njit(inline="always")
def _new_turn(state, head):
    E.init_turn_state(state, head[0])  # head = [variant]


@njit(inline="always")
def _turn_status(state):
    return TERMINATED if state[E.PHASE] == E.PHASE_OVER else PLAYING


@njit(inline="always")
def _nothing(state, out):
    """The loops' final rewards (paid by ``_act`` from the turn's prize values instead)."""


@njit(inline="always")
def _no_observation(state, seat, out):
    """The loops' terminal observation (written by ``_act``, which knows the turn's prize values)."""


@njit(inline="always")
def _faces(state, words, outcome):
    outcome[:] = words  # the turn task draws faces 0..5 directly (its stream predates the contract's words)


@njit(cache=True)
def _start(states, head):
    return L.start(states, head, _new_turn, E.chance_words)


@njit(cache=True)
def _act(states, actions, active, head, rewards, done, final_rewards, final_obs, final_states, pot, values, scaled):
    """``L.act``, then each ended turn's reward (the value of its prize) and terminal observation."""
    needy = L.act(states, actions, active, head, rewards, done, final_rewards, final_obs, final_states, pot,
                  E.to_act, E.is_legal, E.apply_action, _turn_status, _nothing, _no_observation, _new_turn,
                  E.chance_words, L.no_potentials)  # fmt: skip
    for b in range(states.shape[0] if needy >= 0 else 0):
        if done[b]:
            prize = final_states[b, E.LAST_PRIZE]
            rewards[b, 0] = values[b, prize] if prize >= 0 else 0.0
            encode_turn_observation(final_states[b], scaled[b], final_obs[b, 0])
    return needy


@njit(cache=True)
def _chance(states, faces, outcome, head, rewards, done, final_rewards, final_obs, final_states, pot):
    return L.chance(states, faces, outcome, head, rewards, done, final_rewards, final_obs, final_states, pot,
                    _faces, E.apply_outcome, _turn_status, _nothing, _no_observation, _new_turn, E.chance_words,
                    L.no_potentials)  # fmt: skip


@njit(cache=True)
def _encode(states, scaled, obs, masks):
    for b in range(states.shape[0]):
        E.legal_mask(states[b], 0, masks[b])
        encode_turn_observation(states[b], scaled[b], obs[b])


class _TurnCore:
    """N turns' buffers, prize values and chance stream around the kernels: the core ``BatchedTaskGames`` steps."""

    def __init__(self, num_envs: int, config: TurnTaskConfig, seed: int | None) -> None:
        self.num_envs = n = check_num_envs(num_envs)
        self.config = config
        self.rng = np.random.default_rng(seed)
        self.states = np.zeros((n, E.STATE_SIZE), dtype=np.int32)
        self.obs = np.zeros((n, TURN_OBS_SIZE), dtype=np.float32)
        self.masks = np.zeros((n, E.NUM_ACTIONS), dtype=np.int8)
        self.rewards = np.zeros((n, 1), dtype=np.float32)
        self.done = np.zeros(n, dtype=np.int8)
        self.final_obs = np.zeros((n, 1, TURN_OBS_SIZE), dtype=np.float32)
        self.final_states = np.zeros((n, E.STATE_SIZE), dtype=np.int32)
        head = np.array([int(config.four_of_a_kind_is_two_pairs)], dtype=np.int32)
        self._buffers = (head, self.rewards, self.done, np.zeros((n, 1)), self.final_obs, self.final_states,
                         np.zeros((2, 1)))  # fmt: skip
        self._outcome = np.zeros(E.NUM_DICE, dtype=np.int64)
        drawn = config.value_distribution is not None  # else fixed values, set once (drawing them takes no chance)
        self.values = np.zeros((n, E.NUM_PRIZES)) if drawn else config.draw_values(self.rng, n)
        self.scaled = self.values / config.value_scale
        self._all = np.ones(n, dtype=np.bool_)
        self._started = False

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        needy = _start(self.states, self._buffers[0])
        self._new_values(np.arange(self.num_envs))
        self._roll(needy)
        self.done[:] = 0
        self.rewards[:] = 0.0
        self._started = True

    def step(self, actions: Any) -> np.ndarray:
        """One action per turn; the indices of the turns that ended (already restarted and rolled)."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},) (one per game), got {a.shape}")
        if a.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers in 0..{E.NUM_ACTIONS - 1}, got dtype {a.dtype}")
        a = np.ascontiguousarray(a, dtype=np.int64)
        needy = _act(self.states, a, self._all, *self._buffers, self.values, self.scaled)
        if needy < 0:
            b = -needy - 1
            raise ValueError(f"game {b}: action {int(a[b])} is illegal; legal actions: "
                             f"{np.flatnonzero(self.masks[b]).tolist()}")  # fmt: skip
        ended = np.flatnonzero(self.done)
        self._new_values(ended)
        self._roll(needy)
        return ended

    def _new_values(self, games: np.ndarray) -> None:
        if self.config.value_distribution is not None and games.size:
            self.values[games] = self.config.draw_values(self.rng, games.size)
            self.scaled[games] = self.values[games] / self.config.value_scale

    def _roll(self, needy: int) -> None:
        while needy:
            faces = self.rng.integers(0, E.NUM_FACES, size=(needy, E.NUM_DICE))
            needy = _chance(self.states, faces, self._outcome, *self._buffers)
        _encode(self.states, self.scaled, self.obs, self.masks)


class EasyComeEasyGoTurnGames(BatchedTaskGames):
    """N turn-task games stepped together in numba (the shared batched loops); finished turns restart.

    SB3 conventions: ``step`` -> obs (N, 86), rewards (N,), dones (N,), infos (``terminal_observation``,
    ``episode`` and ``prize`` for finished turns); ``action_masks()`` -> (N, 24) bool, and
    ``env_method("action_masks")`` gives the per-game rows sb3-contrib's ``MaskablePPO`` stacks.
    """

    _GAME_ATTRS = ("prize_values",)

    def __init__(
        self,
        num_envs: int,
        config: TurnTaskConfig | dict[str, Any] | None = None,
        seed: int | None = None,
        **config_overrides: Any,
    ) -> None:
        self.config = cfg = validate_config(TurnTaskConfig, config, **config_overrides)
        core = _TurnCore(num_envs, cfg, seed)
        self._init_core(core, spaces.Box(0.0, 1.0, (TURN_OBS_SIZE,), np.float32), spaces.Discrete(E.NUM_ACTIONS))

    @property
    def prize_values(self) -> np.ndarray:
        """(N, 9) values of each game's current episode."""
        return self._core.values.copy()

    def _obs(self) -> np.ndarray:
        return self._core.obs

    def _masks(self) -> np.ndarray:
        return self._core.masks

    def _final_infos(self, ended: np.ndarray) -> list[dict[str, Any]]:
        return [{"prize": p if p >= 0 else None} for p in self._core.final_states[ended, E.LAST_PRIZE].tolist()]

    def _game_attr(self, name: str, i: int) -> Any:
        if name == "prize_values":
            return self._core.values[i].copy()
        return super()._game_attr(name, i)


__getattr__ = sb3_names(__name__, EasyComeEasyGoTurnGames)  # EasyComeEasyGoTurnVecEnv
