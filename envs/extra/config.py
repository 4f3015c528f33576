"""Rule-variant and reward knobs of Extra! (defaults from ../shared/rules/extra.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictInt, ValidationInfo, field_validator, model_validator

from dicearena.envs.common.config import GameConfig

from .engine import (
    DEFAULT_EXTRA_COLUMNS,
    DEFAULT_MINUS_BOXES,
    DEFAULT_PENALTY,
    DEFAULT_POINTS,
    MAX_MINUS_BOXES,
    MAX_PLAYERS,
    NUM_COLUMNS,
    NUM_ROWS,
    REWARD_SCORE,
    REWARD_WIN,
)

CANONICAL_HELP = (
    "one legal action id per distinct resulting sheet (the lowest of the ids that leave the same sheet; the others "
    "masked out): dice in throw order, equal sums and full rows make several ids one choice"
)


class ExtraSheet(GameConfig):
    """The score pad; the default reconstructs the published one. Lists are accepted (YAML)."""

    minus_boxes: tuple[StrictInt, ...] = Field(
        DEFAULT_MINUS_BOXES, strict=False, description="minus boxes of the rows for sums 2..12 (11 values, 0..12)"
    )
    points: tuple[StrictInt, ...] = Field(
        DEFAULT_POINTS, strict=False, description="victory points of the rows for sums 2..12 (11 values, 0..1000)"
    )
    penalty: int = Field(DEFAULT_PENALTY, ge=0, le=10_000, description="points lost by a row left in the minus zone")
    extra_columns: tuple[StrictInt, ...] = Field(
        DEFAULT_EXTRA_COLUMNS, strict=False, description="boxes of the three EXTRA columns (3 values, 1..30)"
    )

    @field_validator("minus_boxes", "points", "extra_columns")
    @classmethod
    def _lengths_and_ranges(cls, value: tuple[int, ...], info: ValidationInfo) -> tuple[int, ...]:
        size, low, high = {
            "minus_boxes": (NUM_ROWS, 0, MAX_MINUS_BOXES),
            "points": (NUM_ROWS, 0, 1000),
            "extra_columns": (NUM_COLUMNS, 1, 30),
        }[info.field_name]
        if len(value) != size or any(not low <= v <= high for v in value):
            raise ValueError(f"needs exactly {size} integers in {low}..{high}")
        return value


class ExtraConfig(GameConfig):
    num_players: int = Field(2, ge=1, le=MAX_PLAYERS, description="players, seats player_0..; 1 = solitaire")
    children: bool = Field(False, description="a new EXTRA number's first box is checked only when it recurs")
    reward: Literal["win", "score"] | None = Field(
        None, description="'win': +1/-1 at the end; 'score': final score / 100; None: win with 2+ players, else score"
    )
    shaping: bool = Field(
        False, description="'score' reward only: each round pays the change of the player's score / 100 (same sum)"
    )
    sheet: ExtraSheet = Field(default_factory=ExtraSheet, description="the score pad layout")
    zero_sum: bool = Field(
        False,
        description="reward='win' only: +1/k to each of the k winners, -1/(P-k) to the others (0 to all if "
        "all win) instead of +1/-1, so the rewards sum to 0",
    )
    canonical_actions: bool = Field(False, description=CANONICAL_HELP)

    @model_validator(mode="after")
    def _shaping_needs_score(self) -> ExtraConfig:
        if self.shaping and self.reward_mode != REWARD_SCORE:
            raise ValueError(
                "'shaping': true needs reward='score' (the 'win' reward has no score to shape; with 2+ players "
                "set reward='score' explicitly)"
            )
        if self.zero_sum and self.reward_mode != REWARD_WIN:
            raise ValueError(
                "'zero_sum': true needs reward='win' (the 'score' reward, also the 1-player default, is not a win / "
                "loss to share out)"
            )
        return self

    @property
    def reward_mode(self) -> int:
        """The engine's reward code after resolving the ``None`` default."""
        mode = self.reward or ("win" if self.num_players >= 2 else "score")
        return REWARD_WIN if mode == "win" else REWARD_SCORE


class SolitaireConfig(GameConfig):
    """The solitaire task's knobs (one player and reward = score / 100 are fixed by the task; ``shaping`` only
    spreads that reward over the steps). The engine reads it as it reads an ``ExtraConfig``."""

    children: bool = Field(False, description="a new EXTRA number's first box is checked only when it recurs")
    shaping: bool = Field(
        False, description="reward each step's change of the score / 100 instead of the final score / 100 at the end"
    )
    sheet: ExtraSheet = Field(default_factory=ExtraSheet, description="the score pad layout")
    canonical_actions: bool = Field(False, description=CANONICAL_HELP)

    @property
    def num_players(self) -> int:
        return 1

    @property
    def reward_mode(self) -> int:
        return REWARD_SCORE

    @property
    def zero_sum(self) -> bool:
        return False

    def game_config(self) -> ExtraConfig:
        """The same game as an ``ExtraConfig`` (for the game's own faces and agents)."""
        return ExtraConfig(num_players=1, reward="score", children=self.children, shaping=self.shaping,
                           sheet=self.sheet, canonical_actions=self.canonical_actions)  # fmt: skip
