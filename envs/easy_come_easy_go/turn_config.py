"""The turn task's knobs: what each prize is worth (fixed, or drawn afresh every episode) and the rule variant."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from dicearena.envs.common.config import GameConfig

from .engine import NUM_PRIZES

__all__ = ["MAX_VALUE", "TurnTaskConfig", "UniformIntValues"]

MAX_VALUE = 10**9  # prize values stay exact in float64 sums, fit the engine's int32 chance outcomes and float32 rewards


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
        default_factory=lambda: [1.0] * NUM_PRIZES,
        min_length=NUM_PRIZES,
        max_length=NUM_PRIZES,
        description="value of each prize id 0..8 (a target subset: zeros elsewhere); fixed for every episode",
    )
    value_distribution: UniformIntValues | None = Field(
        None, description="None: prize_values; else values drawn afresh each episode, shown in the observation"
    )
    four_of_a_kind_is_two_pairs: bool = Field(False, description="x,x,x,x also satisfies prize 8")

    @model_validator(mode="after")
    def _values_make_sense(self) -> TurnTaskConfig:
        bad = [v for v in self.prize_values if not (np.isfinite(v) and 0 <= v <= MAX_VALUE)]
        if bad:
            raise ValueError(f"'prize_values' must be 9 numbers in 0..{MAX_VALUE} (a prize's value is its reward, a "
                             f"float32), got {bad[0]}")  # fmt: skip
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
        """(k, 9) prize values (the fixed values, or fresh draws), e.g. the value vectors a policy is scored on.
        (The envs draw theirs from the contract's random words: ``turn_engine.draw_outcome``.)"""
        dist = self.value_distribution
        if dist is None:
            return np.tile(np.asarray(self.prize_values, dtype=np.float64), (k, 1))
        return rng.integers(dist.low, dist.high + 1, size=(k, NUM_PRIZES)).astype(np.float64)
