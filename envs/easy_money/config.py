"""Rule-variant and reward knobs of Ea$y Money (defaults from ../shared/rules/easy_money.md), and its data files.

The board and the three decks come from files (``data.py``; ``None``: the shipped defaults in ``data/``); a config
loads and validates them when it is built, so a bad file is a ``ConfigError`` naming the file, line and entry.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from dicearena.envs.common.config import GameConfig

from .data import DataError, GameData, load_game_data
from .engine import MAX_PLAYERS, NUM_LUCKY, NUM_WADS

MAX_KNOB = 1_000_000  # a money knob (units); every amount stays far inside int32
_FILE = "path of a {what} file (see envs/easy_money/README.md); None: the shipped default"


class EasyMoneyConfig(GameConfig):
    num_players: int = Field(4, ge=2, le=MAX_PLAYERS, description="players, seats player_0..")
    max_turns: int = Field(2000, ge=1, le=MAX_KNOB, description="turns in all before truncation")
    reward: Literal["win", "money"] = Field(
        "win",
        description="'win': +1 each winner, -1 the others at the end (0 after truncation); 'money': each step pays "
        "the change of the player's own cash + stake / 100 (the sum: final money minus starting money, / 100)",
    )
    shaping: bool = Field(
        False, description="with reward='win': each step also pays the change of the player's lead, (own money - "
        "the most any other player has) / 100; the end pays +-1 minus the lead, so a return is still +-1",
    )
    zero_sum: bool = Field(
        False,
        description="reward='win' only: +1/k to each of the k winners, -1/(P-k) to the others instead of "
        "+1/-1 (0 for all after truncation), so the rewards sum to 0",
    )
    greed_features: bool = Field(
        False,
        description="the observation ends with 3 more floats: at a Greed roll-or-stop decision the mover's exact "
        "expected units of rolling on and of stopping, / 100 capped at 1, and 1 if rolling is worth more (0 elsewhere)",
    )
    final_lottery: bool = Field(
        True,
        description="True: the rulebook's ending (the pile empty, the Final Lottery's pot goes to the holder of the "
        "ticket the dice pick); False: the game ends when the pile is empty, the pot counts for nobody and cash plus "
        "stake decides (the research variant: the rulebook's pot decides ~99% of games by luck)",
    )
    first_player: int | None = Field(
        None, ge=0, lt=MAX_PLAYERS, description="None: the rulebook's roll-off picks; a seat: it starts"
    )
    board: str | None = Field(None, description=_FILE.format(what="board"))
    lottery_tickets: str | None = Field(None, description=_FILE.format(what="Lottery ticket"))
    wall_street: str | None = Field(None, description=_FILE.format(what="Wall Street deck"))
    mystery_jackpot: str | None = Field(None, description=_FILE.format(what="Mystery Jackpot deck"))
    supply: int = Field(720, ge=1, le=MAX_KNOB, description="all the money, in units of $100 thousand")
    wad_values: tuple[int, int, int, int] = Field(
        (1, 2, 5, 10), strict=False, description="units per wad: purple, red, green, blue"
    )
    start_wads: tuple[int, int, int, int] = Field(
        (2, 2, 2, 2), strict=False, description="wads of each colour each player starts with"
    )
    pot_start: int = Field(10, ge=0, le=MAX_KNOB, description="the Lottery pot at the start (one blue wad)")
    lottery_refill: int = Field(
        10, ge=0, le=MAX_KNOB, description="what the pile puts into the pot after a Lottery win"
    )
    penalty: int = Field(5, ge=0, le=MAX_KNOB, description="the DOUBLE penalty (no stake on a Double or Nothing space)")
    pass_pay: int = Field(10, ge=0, le=MAX_KNOB, description="each Easy Money space passed pays the mover this")
    land_pay: int = Field(20, ge=0, le=MAX_KNOB, description="an Easy Money space landed on pays the mover this")
    final_ante: int = Field(
        5, ge=0, le=MAX_KNOB, description="each player adds this after a Final Lottery round with no winner"
    )
    lucky_dice_odds: tuple[int, int, int, int, int, int] = Field(
        (3, 2, 1, 1, 2, 3), strict=False, description="odds (to 1) on 4, 5, 6, 8, 9, 10"
    )
    lucky_dice_field_pay: int = Field(
        1, ge=0, le=MAX_KNOB, description="a Lucky Dice 2, 3, 11 or 12 pays the mover this"
    )

    @property
    def start_money(self) -> int:
        """Each player's money at the start: their wads' worth."""
        return sum(v * c for v, c in zip(self.wad_values, self.start_wads, strict=True))

    def data(self) -> GameData:
        """The board and decks this config names, validated (cached per file and modification time)."""
        return load_game_data(self.board, self.lottery_tickets, self.wall_street, self.mystery_jackpot)

    @model_validator(mode="after")
    def _consistent(self) -> EasyMoneyConfig:
        if self.shaping and self.reward != "win":
            raise ValueError("'shaping' shapes reward='win' (reward='money' pays every step's money change already)")
        if self.zero_sum and self.reward != "win":
            raise ValueError("'zero_sum': true needs reward='win' (reward='money' pays money changes, no win / loss)")
        if self.first_player is not None and self.first_player >= self.num_players:
            raise ValueError(f"'first_player' must be None or a seat 0..{self.num_players - 1}")
        wads, odds = self.wad_values, self.lucky_dice_odds  # each entry must fit the engine's int32 header
        if len(wads) != NUM_WADS or any(type(v) is not int or not 1 <= v <= MAX_KNOB for v in wads):
            raise ValueError(f"'wad_values' are {NUM_WADS} positive integers up to {MAX_KNOB} (purple, red, green, "
                             "blue)")  # fmt: skip
        if any(type(c) is not int or not 0 <= c <= MAX_KNOB for c in self.start_wads):
            raise ValueError(f"'start_wads' are 4 counts 0..{MAX_KNOB} (purple, red, green, blue)")
        if len(odds) != NUM_LUCKY or any(type(v) is not int or not 0 <= v <= MAX_KNOB for v in odds):
            raise ValueError(f"'lucky_dice_odds' are 6 integers 0..{MAX_KNOB} (odds to 1 on 4, 5, 6, 8, 9, 10)")
        pile = self.supply - self.pot_start - self.num_players * self.start_money
        if pile < 1:
            raise ValueError(
                f"'supply' {self.supply} leaves no play pile: the pot takes {self.pot_start} and {self.num_players} "
                f"players {self.start_money} each (start_wads x wad_values)"
            )
        try:
            data = self.data()
        except DataError as exc:
            raise ValueError(str(exc)) from None
        if len(data.tickets) < self.num_players:
            raise ValueError(
                f"the Lottery ticket file has {len(data.tickets)} tickets; {self.num_players} players need at least "
                f"{self.num_players} (each holds one)"
            )
        return self
