"""Rule-variant and reward knobs of Easy Come, Easy Go (defaults from ../shared/rules)."""

from __future__ import annotations

from pydantic import Field, model_validator

from dicearena.envs.common.config import MAX_REWARD, GameConfig

from .engine import MAX_PLAYERS


class EasyComeEasyGoConfig(GameConfig):
    num_players: int = Field(2, ge=2, le=MAX_PLAYERS, description="players, seats player_0..")
    max_turns: int = Field(1000, ge=1, le=1_000_000, description="turns in all before truncation")
    four_of_a_kind_is_two_pairs: bool = Field(False, description="x,x,x,x also satisfies prize 8")
    first_player: int | None = Field(
        None, ge=0, lt=MAX_PLAYERS, description="None: the rulebook's roll-off picks; a seat: it starts"
    )
    win_reward: float = Field(1.0, ge=-MAX_REWARD, le=MAX_REWARD, description="reward of the winner")
    loss_reward: float = Field(
        -1.0, ge=-MAX_REWARD, le=MAX_REWARD, description="reward of every other player after a win"
    )
    zero_sum: bool = Field(
        False,
        description="zero-sum rewards instead of win_reward / loss_reward: +1 the winner, -1/(P-1) each other "
        "player (0 for all after truncation)",
    )
    prize_features: bool = Field(
        False,
        description="append 18 observation slots: per prize, the mover's exact chance of securing it this turn "
        "(played for that prize alone), then its holder's seat offset from the mover / (P-1)",
    )

    @model_validator(mode="after")
    def _first_player_is_a_seat(self) -> EasyComeEasyGoConfig:
        if self.first_player is not None and self.first_player >= self.num_players:
            raise ValueError(f"'first_player' must be None or a seat 0..{self.num_players - 1}")
        if self.zero_sum and (self.win_reward != 1.0 or self.loss_reward != -1.0):
            raise ValueError(
                "'zero_sum': true sets the rewards itself (+1 the winner, -1/(P-1) the others); leave 'win_reward' "
                f"and 'loss_reward' at 1.0 / -1.0 (got {self.win_reward} / {self.loss_reward})"
            )
        return self
