"""The turn task: one solitary turn of Easy Come, Easy Go, reward = value of the prize collected.

It isolates the game's freeze/re-roll decision (see ../shared/rules, "Task environments"). Two faces over
the same engine functions: ``EasyComeEasyGoTurnEnv`` (one Gymnasium env, injectable dice) and
``EasyComeEasyGoTurnGames`` (N turns stepped in the batched engine's numba loops, behind SB3's ``VecEnv``
protocol; ``EasyComeEasyGoTurnVecEnv`` is its SB3 ``VecEnv`` twin, importing stable-baselines3 when first used).
All give ``action_masks()`` so sb3-contrib's ``MaskablePPO`` trains on them with no glue code.

Chance stream: values (when drawn per episode) then dice, from one generator seeded by ``reset(seed)``;
with the same seed a 1-game vec env plays the same turns as the single env.
"""

from __future__ import annotations

from typing import Any, Literal

import gymnasium
import numpy as np
from gymnasium import spaces
from pydantic import Field, model_validator

from envs.common.batching import LegalDiscrete
from envs.common.config import GameConfig, validate_config
from envs.common.dice import DiceSource, SeededDice
from envs.common.table import check_faces, coerce_action, dice_source
from envs.common.vec_games import BatchedTaskGames, sb3_names

from . import engine as E
from .batched import MODE_TURN, GameBatch
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


class EasyComeEasyGoTurnGames(BatchedTaskGames):
    """N turn-task games stepped together in numba (the batched engine's loops); finished turns restart.

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
        core = GameBatch(
            num_envs,
            MODE_TURN,
            variant=cfg.four_of_a_kind_is_two_pairs,
            values=None if cfg.value_distribution is not None else np.asarray(cfg.prize_values),
            value_scale=cfg.value_scale,
            value_sampler=cfg.draw_values if cfg.value_distribution is not None else None,
            seed=seed,
        )
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
