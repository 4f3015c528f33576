"""Rule-variant and reward knobs of Yay! (defaults from ../shared/rules/yay.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from dicearena.envs.common.config import GameConfig
from dicearena.envs.common.contract import float_bits

from .engine import END_ROW_AND_COLUMN, END_ROW_OR_COLUMN, MAX_PLAYERS, MAX_SIDE, dice_always_fit, largest_die


class YayConfig(GameConfig):
    num_players: int = Field(2, ge=2, le=MAX_PLAYERS, description="players, seats player_0..")
    rows: int = Field(8, ge=3, le=MAX_SIDE, description="rows of the sheet")
    cols: int = Field(8, ge=3, le=MAX_SIDE, description="columns of the sheet")
    die_size: float = Field(1.27, gt=0.0, description="side of a die in squares (1.27: a 19 mm die on 15 mm squares)")
    end_when: Literal["row_or_column", "row_and_column"] = Field(
        "row_or_column", description="the game ends at a full row or column, or only once both exist"
    )
    max_turns: int = Field(1000, ge=1, le=100_000, description="turns after which the game stops (reward 0)")
    shaping: bool = Field(
        False,
        description="each step also pays every player the change of its lead in uncrossed numbers / squares; the "
        "last step pays the final reward minus the lead, so returns stay +-1",
    )
    zero_sum: bool = Field(
        False,
        description="+1/k to each of the k winners (a tie shares the win), -1/(P-k) to the others, 0 to all "
        "when all tie, instead of +1 each winner / -1 the others, so the rewards sum to 0",
    )
    square_features: bool = Field(
        False,
        description="the observation ends with rows * cols more slots: per square, how much the legal write, "
        "block or cross-off there changes the mover's lead now, in [0.1, 0.87] (0: none legal there; README.md)",
    )

    @model_validator(mode="after")
    def _dice_fit(self) -> YayConfig:
        if not dice_always_fit(self.rows, self.cols, self.die_size):
            raise ValueError(
                f"'die_size' {self.die_size} does not fit a {self.rows}x{self.cols} sheet: wherever two dice land, a "
                f"third must fit beside them, which needs min(rows, cols) >= 3 * die_size or max(rows, cols) >= 5 * "
                f"die_size (here die_size <= {largest_die(self.rows, self.cols):.4g})"
            )
        return self

    @property
    def end_mode(self) -> int:
        return END_ROW_AND_COLUMN if self.end_when == "row_and_column" else END_ROW_OR_COLUMN

    def engine_args(self) -> tuple[int, int, int, int, int, int]:
        """``(num_players, rows, cols, end_mode, max_turns, die_bits)``: how ``engine.start_game`` takes the config
        (``die_bits``: ``die_size`` as float32 bits), and the contract's ``engine.header``."""
        return self.num_players, self.rows, self.cols, self.end_mode, self.max_turns, float_bits(self.die_size)
