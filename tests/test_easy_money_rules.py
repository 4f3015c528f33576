"""Every rule of Ea$y Money, played on the engine with injected dice and card orders.

Sources: /work/shared/rules/easy_money.md (the spec) and /work/shared/rulebooks/easy_money.txt. The engine is driven
directly (init_state / apply_action / apply_outcome) with exact outcome vectors: dice faces 0..5 (showing 1..6) and
deck permutations. Money conservation is checked after every step, here and in 10,000 random games.
"""

from __future__ import annotations

import json
from itertools import combinations_with_replacement

import numpy as np
import pytest
from numba import njit

from dicearena.envs.common.config import ConfigError, validate_config
from dicearena.envs.common.contract import CHANCE, NOBODY, PLAYING, TERMINATED, TRUNCATED
from dicearena.envs.easy_money import engine as E
from dicearena.envs.easy_money.config import EasyMoneyConfig
from dicearena.envs.easy_money.data import FILES, SPACE_TYPES, default_path, parse_file

WADS = (1, 2, 5, 10)
UP, DOWN = 0, 1
IDENTITY = object()


def bet(*values: int) -> int:
    """The bet index (0..13) of one or two wads given by value."""
    key = tuple(sorted(WADS.index(v) for v in values))
    for b, (first, second) in enumerate(E.BET_WADS):
        if (first,) == key if second < 0 else (first, second) == key:
            return b
    raise AssertionError(values)


def stake(*values: int) -> int:
    return E.ACT_STAKE + bet(*values)


def wall(side: int, *values: int) -> int:
    return E.ACT_WALL + E.NUM_BETS * side + bet(*values)


def lucky(number: int, value: int) -> int:
    return E.ACT_LUCKY + E.NUM_WADS * E.LUCKY_NUMBERS.index(number) + WADS.index(value)


def steal(rel: int) -> int:
    return E.ACT_STEAL + rel - 1


def name(rel: int) -> int:
    return E.ACT_NAME + rel - 1


def config(**overrides: object) -> EasyMoneyConfig:
    return validate_config(EasyMoneyConfig, overrides)


def money_total(s: np.ndarray) -> int:
    """The test's own count of every unit: pile, pot, cash, stakes, Wall Street bets, Lucky Dice wads."""
    total = int(s[E.PILE]) + int(s[E.POT])
    for seat in range(E.MAX_PLAYERS):
        total += int(s[E.CASH + seat]) + int(s[E.STAKE + seat]) + int(s[E.WS_BET + seat])
    return total + int(s[E.LUCKY : E.LUCKY + E.MAX_PLAYERS * E.NUM_LUCKY].sum())


class Game:
    """One game on the raw engine; ``setup`` plays the three deck shuffles (identity order unless given)."""

    def __init__(self, tickets=IDENTITY, jackpot=IDENTITY, wall_street=IDENTITY, **overrides: object) -> None:
        self.config = config(**{"first_player": 0, **overrides})
        self.sizes = E.sizes(self.config)
        self.s = np.zeros(self.sizes.state, dtype=np.int32)
        self.n = self.config.num_players
        E.init_state(self.s, E.header(self.config))
        self.check()
        data = self.config.data()
        for order, size in ((tickets, len(data.tickets)), (jackpot, len(data.jackpot)),
                            (wall_street, len(data.wall_street))):  # fmt: skip
            if order is None:
                return
            self.outcome(*(range(size) if order is IDENTITY else order))

    # --- driving
    def check(self) -> None:
        assert money_total(self.s) == self.config.supply
        assert (self.s[E.CASH : E.CASH + E.MAX_PLAYERS] >= 0).all() and self.s[E.PILE] >= 0 and self.s[E.POT] >= 0

    def outcome(self, *values: int) -> None:
        assert E.to_act(self.s) == CHANCE, f"not a chance node: phase {E.PHASE_NAMES[self.phase]}"
        out = np.zeros(self.sizes.outcome, dtype=np.int32)
        out[: len(values)] = values
        assert E.check_outcome(self.s, out) == 0, values
        E.apply_outcome(self.s, out)
        self.check()

    def roll(self, *pips: int) -> None:
        self.outcome(*(p - 1 for p in pips))

    def legal(self) -> set[int]:
        seat = E.to_act(self.s)
        mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
        E.legal_mask(self.s, seat, mask)
        ids = set(np.flatnonzero(mask).tolist())
        assert ids == {a for a in range(E.NUM_ACTIONS) if E.is_legal(self.s, seat, a)}
        return ids

    def act(self, action: int) -> None:
        seat = E.to_act(self.s)
        assert seat >= 0, f"nobody decides: phase {E.PHASE_NAMES[self.phase]}"
        assert action in self.legal(), (E.describe_action(self.config, self.s, action), sorted(self.legal()))
        E.apply_action(self.s, seat, action)
        self.check()

    def stakes(self, *actions: int) -> None:
        for action in actions:
            assert self.phase == E.PHASE_STAKE
            self.act(action)
        assert self.phase != E.PHASE_STAKE

    def no_stakes(self) -> None:
        while self.phase == E.PHASE_STAKE:
            self.act(E.ACT_STAKE_NONE)

    def move(self, frm: int, *pips: int) -> None:
        """No stakes changed, the pawn put on ``frm``, the mover rolls ``pips``."""
        self.no_stakes()
        self.s[E.PAWN] = frm
        self.roll(*pips)

    # --- setting up positions (money moves to or from the pile, so the total stays)
    def set_cash(self, seat: int, value: int) -> None:
        self.s[E.PILE] += self.s[E.CASH + seat] - value
        self.s[E.CASH + seat] = value
        self.check()

    def give_deck_tickets(self, seat: int) -> None:
        """Every ticket left in the deck to ``seat`` (the deck is then empty)."""
        for pos in range(self.s[E.TICKET_TOP], self.s[E.NUM_TICKETS]):
            t = self.s[E.TICKET_DECK + pos]
            self.s[E.TICKET_OWNER + t] = seat
            self.s[E.TICKETS_HELD + seat] += 1
        self.s[E.TICKET_TOP] = self.s[E.NUM_TICKETS]

    def tickets_of(self, seat: int) -> list[int]:
        return [t for t in range(self.s[E.NUM_TICKETS]) if self.s[E.TICKET_OWNER + t] == seat]

    # --- reading
    @property
    def phase(self) -> int:
        return int(self.s[E.PHASE])

    @property
    def actor(self) -> int:
        return int(self.s[E.ACTOR])

    @property
    def pile(self) -> int:
        return int(self.s[E.PILE])

    @property
    def pot(self) -> int:
        return int(self.s[E.POT])

    def cash(self, seat: int | None = None) -> list[int] | int:
        values = self.s[E.CASH : E.CASH + self.n].tolist()
        return values if seat is None else values[seat]

    def stake_of(self, seat: int) -> int:
        return int(self.s[E.STAKE + seat])

    def obs(self, seat: int) -> np.ndarray:
        out = np.zeros(self.sizes.observation, dtype=np.float32)
        E.observe(self.s, seat, out)
        return out

    def rewards(self) -> list[float]:
        out = np.zeros(self.n)
        E.rewards(self.s, out)
        return out.tolist()


START_PILE = 720 - 10 - 4 * 36


# --- setup and the stake round


def test_setup_deals_money_and_one_ticket_each_then_the_roll_off_reroll_ties() -> None:
    g = Game(tickets=[5, 3, 0, 1, 2, 4, 6, 7, 8, 9, 10, 11], first_player=None)
    assert g.cash() == [36] * 4 and g.pot == 10 and g.pile == START_PILE
    assert [g.tickets_of(s) for s in range(4)] == [[5], [3], [0], [1]]  # the top four, dealt from seat 0
    assert g.s[E.TICKET_TOP] == 4 and g.phase == E.PHASE_ROLLOFF
    g.roll(6, 6, 3, 2)  # seats 0 and 1 tie on 6: they roll again
    assert g.phase == E.PHASE_ROLLOFF and g.s[E.ROLLOFF] == 0b0011
    g.roll(3, 5, 6, 6)  # seats 2 and 3 are out: their dice are ignored
    assert g.phase == E.PHASE_STAKE and g.s[E.CURRENT] == 1 and g.actor == 1 and g.s[E.TURN] == 1


def test_the_stake_round_goes_from_the_mover_and_pays_from_cash_plus_the_stake_taken_back() -> None:
    g = Game(first_player=2)
    order = []
    for action in (stake(5), stake(10, 10), stake(1, 2), E.ACT_STAKE_NONE):
        order.append(g.actor)
        g.act(action)
    assert order == [2, 3, 0, 1] and g.phase == E.PHASE_MOVE and g.actor == 2
    assert [g.stake_of(s) for s in range(4)] == [3, 0, 5, 20] and g.cash() == [33, 36, 31, 16]
    g.set_cash(2, 0)  # stake 5, no cash: the next round may restake up to 5, not more
    g.s[E.CURRENT] = 1
    E._end_turn(g.s)  # the next turn: seat 2 moves, its stake round first
    assert g.actor == 2
    assert g.legal() == {E.ACT_STAKE_NONE, stake(1), stake(2), stake(5), stake(1, 1), stake(1, 2), stake(2, 2)}
    g.act(stake(2, 2))
    assert g.stake_of(2) == 4 and g.cash(2) == 1


def test_a_player_with_nothing_to_stake_is_skipped_and_a_bet_needs_its_amount() -> None:
    g = Game()
    g.set_cash(1, 0)
    g.set_cash(2, 4)
    g.act(E.ACT_STAKE_NONE)  # seat 0
    assert g.actor == 2  # seat 1 has no cash and no stake
    assert g.legal() == {E.ACT_STAKE_NONE, stake(1), stake(2), stake(1, 1), stake(1, 2), stake(2, 2)}


# --- the spaces


def test_double_pays_every_stake_and_the_penalty_without_one_goes_to_the_pot_as_far_as_cash_goes() -> None:
    g = Game()
    g.set_cash(3, 3)
    g.stakes(stake(5), stake(5, 10), E.ACT_STAKE_NONE, E.ACT_STAKE_NONE)
    g.s[E.PAWN] = 2
    g.roll(1, 1)  # passes 3 (Lottery), lands on 4 (Double)
    assert g.s[E.PAWN] == 4 and g.s[E.LAST_EVENT] == E.EV_DOUBLE
    assert g.cash() == [31 + 5, 21 + 15, 36 - 5, 0] and [g.stake_of(s) for s in range(4)] == [5, 15, 0, 0]
    assert g.pot == 10 + 5 + 3
    assert g.phase == E.PHASE_STAKE and g.actor == 1  # the stakes stay; the next player's round


def test_nothing_takes_every_stake_and_the_penalty_from_players_without_one() -> None:
    g = Game()
    g.set_cash(2, 2)
    g.stakes(stake(2), stake(10), E.ACT_STAKE_NONE, stake(1, 5))
    g.s[E.PAWN] = 4
    g.roll(1, 1)  # lands on 6 (Nothing)
    assert g.s[E.PAWN] == 6
    assert [g.stake_of(s) for s in range(4)] == [0, 0, 0, 0]
    assert g.cash() == [34, 26, 0, 30] and g.pot == 10 + 2 + 10 + 2 + 6


def test_easy_money_landed_on_pays_20_and_passed_pays_10() -> None:
    g = Game()
    g.move(5, 1, 1)  # lands on 7 (Easy Money)
    assert g.cash(0) == 36 + 20 and g.s[E.LAST_PASSES] == 0
    g = Game()
    g.move(5, 1, 3)  # passes 7 (Easy Money), lands on 9 (Greed)
    assert g.cash(0) == 36 + 10 and g.phase == E.PHASE_GREED_NAME and g.s[E.LAST_PASSES] == 1


def test_start_counts_as_an_easy_money_space_passed_and_landed_on() -> None:
    g = Game()
    g.move(38, 2, 3)  # passes 39, START, 1, 2; lands on 3 (Lottery)
    assert g.cash(0) == 46 and g.s[E.PAWN] == 3 and g.phase == E.PHASE_LOTTERY
    g = Game()
    g.move(33, 3, 4)  # passes 35 (Easy Money), lands on START
    assert g.cash(0) == 36 + 10 + 20 and g.s[E.PAWN] == 0
    g = Game()
    g.move(28, 6, 6)  # passes 29 and 35, lands on START
    assert g.cash(0) == 36 + 2 * 10 + 20 and g.s[E.LAST_PASSES] == 2


def jackpot_game(card: int, **overrides: object) -> Game:
    order = [card] + [c for c in range(6) if c != card]
    return Game(jackpot=order, **overrides)


def test_jackpot_collect_from_the_pile_and_the_card_goes_to_the_bottom() -> None:
    g = jackpot_game(0)
    g.move(3, 1, 1)  # lands on 5 (Mystery Jackpot)
    assert g.s[E.LAST_CARD] == 0 and g.cash(0) == 46 and g.pile == START_PILE - 10
    head, length = g.s[E.JP_HEAD], g.s[E.JP_LEN]
    ring = [int(g.s[E.JP_DECK + (head + i) % 6]) for i in range(length)]
    assert ring == [1, 2, 3, 4, 5, 0]


def test_jackpot_pay_goes_to_the_pot_as_far_as_cash_goes() -> None:
    g = jackpot_game(1)
    g.move(3, 1, 1)
    assert g.cash(0) == 31 and g.pot == 15
    g = jackpot_game(1)
    g.set_cash(0, 3)
    g.move(3, 1, 1)
    assert g.cash(0) == 0 and g.pot == 13


def test_jackpot_collect_from_each_other_player_as_far_as_their_cash_goes() -> None:
    g = jackpot_game(2)
    g.set_cash(2, 0)
    g.move(3, 1, 1)
    assert g.cash() == [38, 35, 0, 35]


def test_jackpot_ticket_from_the_deck_or_5_from_the_pile_when_none_is_left() -> None:
    g = jackpot_game(3)
    g.move(3, 1, 1)
    assert g.tickets_of(0) == [0, 4] and g.cash(0) == 36
    g = jackpot_game(3)
    g.give_deck_tickets(2)
    g.move(3, 1, 1)
    assert g.tickets_of(0) == [0] and g.cash(0) == 41


def test_jackpot_kept_card_no_penalty_leaves_the_deck_and_spares_the_penalty() -> None:
    g = jackpot_game(4)
    g.move(3, 1, 1)
    assert g.s[E.JP_LEN] == 5 and g.s[E.JP_OWNER + 4] == 0 and g.s[E.NO_PENALTY] == 1
    assert 4 not in [g.s[E.JP_DECK + (g.s[E.JP_HEAD] + i) % 6] for i in range(5)]
    g.s[E.CURRENT] = 3  # seat 0 moves again: Double, then Nothing, with no stakes
    E._end_turn(g.s)
    g.move(2, 1, 1)  # Double
    assert g.cash() == [36, 31, 31, 31]
    g.s[E.CURRENT] = 3
    E._end_turn(g.s)
    g.move(4, 1, 1)  # Nothing
    assert g.cash() == [36, 26, 26, 26] and g.obs(0)[E.OBS_SEATS + E.SEAT_NO_PENALTY] == 1.0


def test_jackpot_kept_card_double_bonus_pays_1_more_when_a_double_pays_you() -> None:
    g = jackpot_game(5)
    g.move(3, 1, 1)
    assert g.s[E.JP_LEN] == 5 and g.s[E.JP_OWNER + 5] == 0 and g.s[E.BONUS] == 1
    g.s[E.CURRENT] = 3
    E._end_turn(g.s)
    g.stakes(stake(5), E.ACT_STAKE_NONE, E.ACT_STAKE_NONE, E.ACT_STAKE_NONE)
    g.s[E.PAWN] = 2
    g.roll(1, 1)  # Double: 5 + 1 for seat 0
    assert g.cash(0) == 31 + 6 and g.stake_of(0) == 5
    g.s[E.CURRENT] = 3
    E._end_turn(g.s)
    g.stakes(E.ACT_STAKE_NONE, E.ACT_STAKE_NONE, E.ACT_STAKE_NONE, E.ACT_STAKE_NONE)
    g.s[E.PAWN] = 2
    g.roll(1, 1)  # Double without a stake: no bonus, and the penalty
    assert g.cash(0) == 42 - 5


def test_lottery_no_win_keeps_the_pot_and_the_tickets() -> None:
    g = Game()
    g.move(1, 1, 1)  # lands on 3 (Lottery): one more ticket
    assert g.tickets_of(0) == [0, 4] and g.phase == E.PHASE_LOTTERY
    g.roll(6, 6, 6)
    assert g.s[E.LAST_LOTTERY] == 666 and g.pot == 10 and g.tickets_of(0) == [0, 4]
    assert g.phase == E.PHASE_STAKE and g.actor == 1


def test_lottery_win_takes_the_pot_the_pile_refills_it_and_the_tickets_are_reshuffled_and_dealt() -> None:
    g = Game()
    g.s[E.CASH + 1] -= 7  # a bigger pot
    g.s[E.POT] += 7
    g.move(1, 1, 1)
    g.roll(2, 3, 1)  # 231: ticket 2, held by seat 2 (not the mover)
    assert g.cash(2) == 36 + 17 and g.pot == 10 and g.pile == START_PILE - 10
    assert g.phase == E.PHASE_SHUFFLE_TICKETS and all(g.tickets_of(s) == [] for s in range(4))
    g.outcome(*range(11, -1, -1))  # the shuffled deck, top first; dealt from the mover
    assert [g.tickets_of(s) for s in range(4)] == [[11], [10], [9], [8]]
    assert g.phase == E.PHASE_STAKE and g.actor == 1


def test_the_purple_lottery_space_holds_a_lottery_too() -> None:
    g = Game()
    g.move(18, 1, 1)  # passes 19 (Easy Money), lands on 20 (the purple Lottery)
    assert g.cash(0) == 46 and g.phase == E.PHASE_LOTTERY
    g.roll(3, 1, 2)  # 312: ticket 4, just taken by the mover
    assert g.cash(0) == 56 and g.phase == E.PHASE_SHUFFLE_TICKETS


def test_lottery_with_an_empty_deck_takes_a_ticket_from_a_player_of_the_movers_choice() -> None:
    g = Game()
    g.give_deck_tickets(2)  # seat 2: tickets 2, 4..11
    g.s[E.TICKET_OWNER + 3] = 2  # seat 3's ticket too: seat 3 holds none
    g.s[E.TICKETS_HELD + 3] -= 1
    g.s[E.TICKETS_HELD + 2] += 1
    g.move(1, 1, 1)
    assert g.phase == E.PHASE_STEAL and g.legal() == {steal(1), steal(2)}
    g.act(steal(2))
    assert g.tickets_of(0) == [0, 2] and g.s[E.LAST_STEAL] == 2 and g.phase == E.PHASE_LOTTERY
    g.roll(2, 3, 1)  # 231: the stolen ticket wins
    assert g.cash(0) == 46


def test_lottery_with_an_empty_deck_and_one_other_holder_takes_from_them_and_none_takes_nothing() -> None:
    g = Game(num_players=2)
    g.give_deck_tickets(1)
    g.move(1, 1, 1)
    assert g.phase == E.PHASE_LOTTERY and g.tickets_of(0) == [0, 1] and g.s[E.LAST_STEAL] == 1
    g = Game(num_players=2)
    g.give_deck_tickets(0)
    g.s[E.TICKET_OWNER + 1] = 0
    g.s[E.TICKETS_HELD + 1] = 0
    g.s[E.TICKETS_HELD] = 12
    g.move(1, 1, 1)
    assert g.phase == E.PHASE_LOTTERY and len(g.tickets_of(0)) == 12 and g.s[E.LAST_STEAL] == -1


def test_greed_names_a_player_rolls_and_stops_and_collects_the_total() -> None:
    g = Game()
    g.move(7, 1, 1)  # lands on 9 (Greed)
    assert g.phase == E.PHASE_GREED_NAME and g.legal() == {name(1), name(2), name(3)}
    g.act(name(2))
    assert g.s[E.GREED_TARGET] == 2 and g.phase == E.PHASE_GREED_ROLL  # the first roll is not a choice
    g.roll(4)
    assert g.legal() == {E.ACT_GREED_ROLL, E.ACT_GREED_STOP}
    obs = g.obs(0)
    assert obs[E.OBS_GREED_TOTAL] == pytest.approx(0.04) and obs[E.OBS_GREED_CASH] == pytest.approx(36 / 720)
    assert obs[E.OBS_SEATS + 2 * E.SEAT_FEATURES + E.SEAT_GREED_TARGET] == 1.0
    g.act(E.ACT_GREED_ROLL)
    g.roll(6)
    g.act(E.ACT_GREED_STOP)
    assert g.cash() == [46, 36, 26, 36] and g.s[E.LAST_EVENT] == E.EV_GREED_PAID
    assert g.phase == E.PHASE_STAKE and g.actor == 1


def test_greed_a_1_busts_with_nothing() -> None:
    g = Game()
    g.move(7, 1, 1)
    g.act(name(1))
    g.roll(5)
    g.act(E.ACT_GREED_ROLL)
    g.roll(1)
    assert g.cash() == [36] * 4 and g.s[E.LAST_EVENT] == E.EV_GREED_BUST and g.actor == 1
    g = Game()
    g.move(7, 1, 1)
    g.act(name(1))
    g.roll(1)  # a 1 on the first roll
    assert g.cash() == [36] * 4 and g.phase == E.PHASE_STAKE


def test_greed_a_total_over_the_named_players_cash_pays_nothing() -> None:
    g = Game()
    g.set_cash(3, 8)
    g.move(7, 1, 1)
    g.act(name(3))
    g.roll(4)
    assert g.obs(0)[E.OBS_GREED_COVERED] == 1.0
    g.act(E.ACT_GREED_ROLL)
    g.roll(5)  # 9 > 8
    assert g.obs(0)[E.OBS_GREED_COVERED] == 0.0
    g.act(E.ACT_GREED_STOP)
    assert g.cash() == [36, 36, 36, 8] and g.s[E.LAST_EVENT] == E.EV_GREED_TOO_MUCH
    g = Game()
    g.set_cash(3, 9)
    g.move(7, 1, 1)
    g.act(name(3))
    g.roll(4)
    g.act(E.ACT_GREED_ROLL)
    g.roll(5)  # exactly the cash: paid
    g.act(E.ACT_GREED_STOP)
    assert g.cash() == [45, 36, 36, 0]


def test_greed_with_two_players_names_the_other_one() -> None:
    g = Game(num_players=2)
    g.move(7, 1, 1)
    assert g.phase == E.PHASE_GREED_ROLL and g.s[E.GREED_TARGET] == 1


# Wall Street cards of the default deck: (index, tip, news, odds)
WALL_CARDS = [(0, UP, UP, 1), (4, UP, DOWN, 2), (5, UP, DOWN, 3), (6, DOWN, DOWN, 1), (10, DOWN, UP, 2),
              (11, DOWN, UP, 3)]  # fmt: skip


@pytest.mark.parametrize(("card", "tip", "news", "odds"), WALL_CARDS)
def test_wall_street_bets_on_the_news_win_the_odds_and_bets_against_it_go_to_the_pot(card, tip, news, odds) -> None:
    order = [card] + [c for c in range(12) if c != card]
    g = Game(wall_street=order)
    g.set_cash(2, 0)  # no cash: no bet
    g.move(8, 1, 1)  # lands on 10 (Wall Street)
    assert g.phase == E.PHASE_WALL_BET and g.actor == 0
    obs = g.obs(1)
    assert obs[E.OBS_WALL_TIP + tip] == 1.0 and obs[E.OBS_WALL_TIP + 1 - tip] == 0.0
    assert len(g.legal()) == 28
    g.act(wall(UP, 5))
    g.act(wall(DOWN, 2, 10))
    assert g.actor == 3 and g.obs(3)[E.OBS_SEATS + 2 * E.SEAT_FEATURES + E.SEAT_WALL_DOWN] == pytest.approx(12 / 720)
    g.act(wall(UP, 1, 1))
    up_wins = news == UP
    expected = [36 + (5 * odds if up_wins else -5), 36 + (-12 if up_wins else 12 * odds), 0,
                36 + (2 * odds if up_wins else -2)]  # fmt: skip
    assert g.cash() == expected
    assert g.pot == 10 + (12 if up_wins else 7)
    head = g.s[E.WS_HEAD]
    assert g.s[E.WS_DECK + head] == order[1] and g.s[E.WS_DECK + (head + 11) % 12] == card  # to the bottom
    assert g.phase == E.PHASE_STAKE and g.actor == 1


def test_wall_street_cards_cycle_through_the_deck() -> None:
    g = Game(num_players=2)
    seen = []
    for _ in range(13):
        g.move(8, 1, 1)
        seen.append(int(g.s[E.WS_CARD]))
        while g.phase == E.PHASE_WALL_BET:
            g.act(wall(UP, 1))
        g.s[E.CURRENT] = 1
        E._end_turn(g.s)
    assert seen == list(range(12)) + [0]


DECK_SLOTS = np.r_[E.TICKET_DECK : E.TICKET_DECK + E.MAX_TICKETS, E.JP_DECK : E.JP_DECK + E.MAX_JACKPOT,
                   E.WS_DECK : E.WS_DECK + E.MAX_WALL, E.WS_CARD]  # fmt: skip


def resampled(s: np.ndarray, key: int) -> np.ndarray:
    out = s.copy()
    E.resample_hidden(out, key)
    return out


def test_resampling_the_hidden_decks_changes_only_their_unseen_order_and_keeps_the_shown_stock_tip() -> None:
    g = Game(jackpot=[0, 1, 2, 3, 4, 5], wall_street=list(range(12)))
    g.set_cash(2, 0)
    E._draw_ticket(g.s, 1)  # two tickets left the deck: the other ten are face down
    g.move(8, 1, 1)  # Wall Street: card 0 (tip UP) is in play, its news hidden
    assert g.phase == E.PHASE_WALL_BET
    outside = np.setdiff1d(np.arange(g.sizes.state), DECK_SLOTS)
    tops, tickets = set(), set()
    for key in range(300):
        r = resampled(g.s, key)
        assert np.array_equal(r[outside], g.s[outside])  # money, tickets held, the board, the phase
        for seat in range(g.n):  # no player can tell the two states apart
            out = np.zeros(g.sizes.observation, dtype=np.float32)
            E.observe(r, seat, out)
            assert np.array_equal(out, g.obs(seat))
        top, deck = int(r[E.TICKET_TOP]), r[E.TICKET_DECK : E.TICKET_DECK + 12]
        assert np.array_equal(deck[:top], g.s[E.TICKET_DECK : E.TICKET_DECK + top])  # drawn tickets stay drawn
        assert sorted(deck[top:]) == sorted(g.s[E.TICKET_DECK + top : E.TICKET_DECK + 12])
        assert sorted(r[E.JP_DECK : E.JP_DECK + 6]) == list(range(6))
        assert sorted(r[E.WS_DECK : E.WS_DECK + 12]) == list(range(12))
        card = int(r[E.WS_CARD])
        assert card == r[E.WS_DECK + r[E.WS_HEAD]] and r[E.WS_TIP + card] == UP
        tops.add(card)
        tickets.add(tuple(deck[top:]))
    assert tops == {c for c in range(12) if g.s[E.WS_TIP + c] == UP}  # any UP card, news and odds unknown
    left = 12 - int(g.s[E.TICKET_TOP])
    assert left == 7 and len(tickets) > 280  # 7! orders: 300 uniform draws repeat about 9 times
    assert {t[0] for t in tickets} == set(g.s[E.TICKET_DECK + 5 : E.TICKET_DECK + 12])  # any of them next
    other = resampled(g.s, 7)
    assert not np.array_equal(other, g.s)
    for key in range(20):  # one key, one redraw: what is hidden does not leak into it
        assert np.array_equal(resampled(other, key), resampled(g.s, key))


def lucky_game() -> Game:
    g = Game()
    g.set_cash(3, 2)
    g.move(11, 1, 1)  # lands on 13 (Lucky Dice): seats 1, 2, 3 bet
    assert g.phase == E.PHASE_LUCKY_BET and g.actor == 1
    assert E.ACT_LUCKY_STOP not in g.legal()  # the first wad is not optional
    g.act(lucky(4, 10))
    assert E.ACT_LUCKY_STOP in g.legal()
    g.act(E.ACT_LUCKY_STOP)
    g.act(lucky(6, 5))
    g.act(lucky(6, 1))  # a second wad on the same number ends seat 2's bets
    assert g.actor == 3 and g.legal() == {lucky(k, v) for k in E.LUCKY_NUMBERS for v in (1, 2)}
    g.act(lucky(8, 2))  # no cash left: no second wad
    assert g.phase == E.PHASE_LUCKY_ROLL
    obs = g.obs(0)
    assert obs[E.OBS_SEATS + 2 * E.SEAT_FEATURES + E.SEAT_LUCKY + 2] == pytest.approx(6 / 720)
    return g


def test_lucky_dice_pays_the_odds_a_paid_number_rolls_again_field_numbers_pay_the_mover_and_7_ends() -> None:
    g = lucky_game()
    g.roll(1, 2)  # 3: the mover collects 1
    assert g.cash(0) == 37
    g.roll(2, 4)  # 6: seat 2's 6 back plus 6 at 1 to 1
    assert g.cash(2) == 36 + 6
    g.roll(3, 3)  # 6 again: already paid, roll again
    assert g.cash(2) == 42 and g.phase == E.PHASE_LUCKY_ROLL
    g.roll(6, 6)  # 12: the mover again
    g.roll(1, 1)  # 2: and again
    g.roll(1, 3)  # 4: seat 1's 10 back plus 30 at 3 to 1
    assert g.cash() == [39, 26 + 10 + 30, 42, 0]
    g.roll(5, 6)  # 11
    assert g.cash(0) == 40
    g.roll(3, 4)  # 7: the mover takes what is left (seat 3's 2 on 8) and the rolling ends
    assert g.cash() == [42, 66, 42, 0] and g.s[E.LAST_EVENT] == E.EV_LUCKY_SEVEN
    assert g.phase == E.PHASE_STAKE and g.actor == 1


def test_lucky_dice_rolling_ends_when_no_money_is_left_on_the_numbers() -> None:
    g = lucky_game()
    g.roll(2, 2)  # 4: 10 at 3 to 1
    g.roll(4, 4)  # 8: 2 at 1 to 1
    assert g.phase == E.PHASE_LUCKY_ROLL
    g.roll(1, 5)  # 6: 6 at 1 to 1, nothing left
    assert g.cash() == [36, 66, 42, 4] and g.s[E.LAST_EVENT] == E.EV_LUCKY_CLEARED
    assert g.phase == E.PHASE_STAKE and g.actor == 1


def test_lucky_dice_with_nobody_else_holding_cash_rolls_nothing() -> None:
    g = Game(num_players=2)
    g.set_cash(1, 0)
    g.move(11, 1, 1)
    assert g.s[E.LAST_EVENT] == E.EV_LUCKY_NO_BETS and g.cash() == [36, 0] and g.s[E.CURRENT] == 1
    assert g.phase == E.PHASE_STAKE and g.actor == 0  # seat 1's turn: it has nothing to stake, seat 0 has
    g.no_stakes()
    assert g.phase == E.PHASE_BROKE and g.actor == 1


def test_lucky_dice_odds_are_a_config_knob() -> None:
    g = Game(lucky_dice_odds=(1, 1, 4, 1, 1, 1))
    g.set_cash(2, 0)
    g.set_cash(3, 0)
    g.move(11, 1, 1)
    g.act(lucky(6, 5))
    g.act(E.ACT_LUCKY_STOP)
    g.roll(1, 5)
    assert g.cash(1) == 36 + 20


# --- out of money, shortage, the Final Lottery and the end


def test_out_of_money_roll_collects_one_per_pip_as_the_whole_turn() -> None:
    g = Game()
    g.set_cash(0, 0)
    g.s[E.PAWN] = 7
    assert g.actor == 0 and g.phase == E.PHASE_STAKE  # set_cash came after the round started
    g.act(E.ACT_STAKE_NONE)
    g.no_stakes()
    assert g.phase == E.PHASE_BROKE and g.legal() == {E.ACT_MOVE, E.ACT_CASH_ROLL}
    g.act(E.ACT_CASH_ROLL)
    g.roll(5, 6)
    assert g.cash(0) == 11 and g.s[E.PAWN] == 7 and g.s[E.LAST_EVENT] == E.EV_CASH_ROLL
    assert g.phase == E.PHASE_STAKE and g.actor == 1


def test_out_of_money_player_may_move_normally_and_is_skipped_in_the_stake_round() -> None:
    g = Game(first_player=3)
    g.set_cash(0, 0)
    g.no_stakes()
    g.s[E.CURRENT] = 3
    E._end_turn(g.s)  # seat 0's turn: its stake round skips it
    assert g.actor == 1
    g.no_stakes()
    assert g.phase == E.PHASE_BROKE and g.actor == 0
    g.act(E.ACT_MOVE)
    g.s[E.PAWN] = 5
    g.roll(1, 1)  # Easy Money
    assert g.cash(0) == 20


def test_shortage_pays_in_seat_order_from_the_mover_until_the_pile_is_empty_then_the_final_lottery() -> None:
    g = Game(first_player=1)
    g.stakes(stake(2), stake(2), E.ACT_STAKE_NONE, stake(2))  # seats 1, 2, 3, 0
    extra = g.pile - 3
    g.s[E.PILE] = 3
    g.s[E.POT] += extra
    g.s[E.PAWN] = 2
    g.roll(1, 1)  # Double: seat 1 gets 2, seat 2 the last 1, seat 0 nothing; seat 3 pays the penalty
    assert g.cash() == [34, 36, 35, 31] and g.pile == 0
    assert g.phase == E.PHASE_FINAL and g.s[E.LAST_EVENT] == E.EV_PILE_EMPTY


def test_the_pile_emptied_by_passing_easy_money_starts_the_final_lottery_before_the_space_acts() -> None:
    g = Game()
    g.s[E.POT] += g.pile - 4
    g.s[E.PILE] = 4
    g.move(5, 1, 3)  # passes 7: 4 of the 10; Greed would come next
    assert g.cash(0) == 40 and g.phase == E.PHASE_FINAL


def test_lucky_dice_money_goes_back_to_its_owners_when_the_pile_runs_out() -> None:
    g = lucky_game()
    g.s[E.POT] += g.pile - 5
    g.s[E.PILE] = 5
    g.roll(1, 5)  # 6: seat 2 gets 6 back and only 5 of the 6
    assert g.phase == E.PHASE_FINAL and g.pile == 0
    assert g.cash() == [36, 36, 41, 2] and not g.s[E.LUCKY : E.LUCKY + 24].any()


def test_without_the_final_lottery_the_emptied_pile_ends_the_game_and_cash_plus_stake_decides() -> None:
    g = Game(first_player=1, final_lottery=False)
    g.stakes(stake(2), stake(2), E.ACT_STAKE_NONE, stake(2))  # seats 1, 2, 3, 0
    extra = g.pile - 3
    g.s[E.PILE] = 3
    g.s[E.POT] += extra
    g.s[E.PAWN] = 2
    pot = g.pot
    g.roll(1, 1)  # the same Double as above: the pile runs out
    assert g.cash() == [34, 36, 35, 31] and g.pile == 0 and g.pot == pot + 5  # the penalty; the pot counts for nobody
    assert g.phase == E.PHASE_OVER and E.status(g.s) == TERMINATED and E.to_act(g.s) == NOBODY
    assert g.s[E.LAST_EVENT] == E.EV_PILE_EMPTY  # no Final Lottery was rolled
    # seat 1: 36 + 2 staked = 38, the most (seat 0 34 + 2, seat 2 35 + 2, seat 3 31 after the penalty)
    assert g.s[E.WINNERS] == 0b0010 and g.rewards() == [-1.0, 1.0, -1.0, -1.0]


def test_without_the_final_lottery_passing_easy_money_into_an_empty_pile_ends_the_game_before_the_space_acts() -> None:
    g = Game(final_lottery=False)
    g.s[E.POT] += g.pile - 4
    g.s[E.PILE] = 4
    g.move(5, 1, 3)  # passes 7: 4 of the 10; Greed would come next
    assert g.cash(0) == 40 and g.phase == E.PHASE_OVER and g.s[E.WINNERS] == 0b0001


def test_without_the_final_lottery_lucky_dice_money_goes_back_before_the_count() -> None:
    g = lucky_game()
    g.s[E.FINAL_LOTTERY] = 0  # the header knob, as final_lottery: false writes it
    g.s[E.POT] += g.pile - 5
    g.s[E.PILE] = 5
    g.roll(1, 5)  # 6: seat 2 gets 6 back and only 5 of the 6
    assert g.phase == E.PHASE_OVER and g.cash() == [36, 36, 41, 2] and not g.s[E.LUCKY : E.LUCKY + 24].any()
    assert g.s[E.WINNERS] == 0b0100 and g.rewards() == [-1.0, -1.0, 1.0, -1.0]


def test_final_lottery_is_a_header_knob_that_defaults_to_the_rulebook() -> None:
    assert config().final_lottery is True and E.header(config())[E.FINAL_LOTTERY] == 1
    assert E.header(config(final_lottery=False))[E.FINAL_LOTTERY] == 0
    with pytest.raises(ConfigError, match="final_lottery"):
        config(final_lottery="no")


def final_game() -> Game:
    g = Game()
    g.set_cash(2, 3)
    g.set_cash(3, 0)
    g.s[E.STAKE + 3] = 4  # seat 3 keeps a stake: it counts at the end
    g.s[E.CASH + 1] -= 4
    g.s[E.POT] += g.pile
    g.s[E.PILE] = 0
    g.s[E.PHASE] = E.PHASE_FINAL
    g.check()
    return g


def test_final_lottery_rounds_with_no_winner_take_5_from_everyone_as_far_as_cash_goes() -> None:
    g = final_game()
    pot = g.pot
    assert E.chance_words(g.s) == 1 and E.status(g.s) == PLAYING and g.rewards() == [0.0] * 4
    g.outcome(1, 5, 3, 2)  # 264 (ticket 3, seat 3's) after two rounds with no winner
    assert g.s[E.FINAL_ROUNDS] == 2 and g.s[E.LAST_LOTTERY] == 264
    assert g.cash()[:3] == [26, 22, 0]  # 5 and 5; seat 2 had 3 to give, seat 3 nothing
    assert g.phase == E.PHASE_OVER and E.status(g.s) == TERMINATED and E.to_act(g.s) == NOBODY
    assert g.cash(3) == pot + 10 + 10 + 3 and g.pot == 0
    assert g.s[E.WINNERS] == 0b1000 and g.rewards() == [-1.0, -1.0, -1.0, 1.0]


def test_final_lottery_won_at_the_first_roll_takes_no_ante() -> None:
    g = final_game()
    pot = g.pot
    g.outcome(0, 1, 2, 0)  # 123: seat 0
    assert g.cash() == [36 + pot, 32, 3, 0] and g.s[E.FINAL_ROUNDS] == 0 and g.s[E.WINNERS] == 0b0001


def test_final_lottery_outcomes_are_a_held_number_and_a_count_of_rounds() -> None:
    g = final_game()
    out = np.zeros(g.sizes.outcome, dtype=np.int32)
    out[:4] = [5, 5, 5, 0]  # 666: nobody holds it, so it cannot be the winning roll
    assert E.check_outcome(g.s, out) == E.OUTCOME_FINAL_NO_HOLDER
    out[:4] = [0, 1, 2, -1]
    assert E.check_outcome(g.s, out) == E.OUTCOME_FINAL_BAD_ROUNDS
    out[:4] = [0, 1, 2, 6]
    assert E.check_outcome(g.s, out) == 0
    held = {123, 156, 231, 264}
    words = np.zeros(g.sizes.words, dtype=np.int64)
    rounds, winners = [], []
    for key in np.random.default_rng(1).integers(0, 2**63, size=4000):
        words[0] = key
        E.draw_outcome(g.s, words, out)
        assert E.check_outcome(g.s, out) == 0
        winners.append(100 * (out[0] + 1) + 10 * (out[1] + 1) + out[2] + 1)
        rounds.append(int(out[3]))
    assert set(winners) == held and min(winners.count(w) for w in held) > 850
    assert 50 < np.mean(rounds) < 58  # geometric: (1 - p) / p = 53 failures on average, p = 4 / 216


def final_position(cash: list[int], stakes: list[int], pot: int) -> Game:
    """The Final Lottery with this money (the pile empty)."""
    g = Game()
    g.s[E.CASH : E.CASH + 4] = cash
    g.s[E.STAKE : E.STAKE + 4] = stakes
    g.s[E.POT] = pot
    g.s[E.PILE] = 0
    g.s[E.PHASE] = E.PHASE_FINAL
    g.check()
    return g


def test_the_most_money_counting_the_stake_wins_and_equal_most_share_the_win() -> None:
    g = final_position([180, 290, 60, 60], [0, 10, 0, 0], 120)
    g.outcome(0, 1, 2, 0)  # 123: seat 0 takes the pot: 300, as seat 1's 290 + 10
    assert g.cash(0) == 300 and g.s[E.WINNERS] == 0b0011 and g.rewards() == [1.0, 1.0, -1.0, -1.0]
    g = final_position([150, 150, 150, 0], [0, 0, 0, 250], 20)
    g.outcome(0, 1, 2, 0)  # seat 0: 170 in cash; seat 3: 250 on its DOUBLE symbol
    assert g.s[E.WINNERS] == 0b1000 and g.rewards() == [-1.0, -1.0, -1.0, 1.0]


def test_max_turns_truncates_with_zero_rewards() -> None:
    g = Game(max_turns=2)
    for _ in range(2):
        g.move(5, 1, 1)
    assert g.phase == E.PHASE_OVER and E.status(g.s) == TRUNCATED and g.rewards() == [0.0] * 4
    assert g.s[E.TURN] == 2 and E.to_act(g.s) == NOBODY


def test_money_reward_is_the_change_of_own_cash_plus_stake_over_100() -> None:
    g = Game(reward="money", max_turns=1)
    pot = np.zeros(4)
    E.shaping_potentials(g.s, pot)
    assert pot.tolist() == [0.0] * 4
    g.stakes(stake(5), E.ACT_STAKE_NONE, E.ACT_STAKE_NONE, E.ACT_STAKE_NONE)
    E.shaping_potentials(g.s, pot)
    assert pot.tolist() == [0.0] * 4  # a stake is still the player's money
    g.s[E.PAWN] = 2
    g.roll(1, 1)  # Double: +5 for seat 0, the penalty for the others; then max_turns
    E.shaping_potentials(g.s, pot)
    assert pot.tolist() == pytest.approx([0.05, -0.05, -0.05, -0.05])
    assert E.status(g.s) == TRUNCATED and g.rewards() == pytest.approx(pot.tolist())
    win = Game(max_turns=1)
    E.shaping_potentials(win.s, pot)
    win.move(5, 1, 1)
    E.shaping_potentials(win.s, pot)
    assert pot.tolist() == [0.0] * 4  # reward="win" does not shape


# --- chance through the contract


def test_injected_outcomes_are_checked_with_codes_that_have_words() -> None:
    g = Game(tickets=None)
    out = np.zeros(g.sizes.outcome, dtype=np.int32)
    out[:12] = list(range(11)) + [3]
    assert E.check_outcome(g.s, out) == E.OUTCOME_NOT_A_PERMUTATION
    out[11] = 12
    assert E.check_outcome(g.s, out) == E.OUTCOME_NOT_A_PERMUTATION
    out[11] = 11
    assert E.check_outcome(g.s, out) == 0
    g = Game()
    g.no_stakes()
    out[:] = 0
    out[1] = 6
    assert E.check_outcome(g.s, out) == E.OUTCOME_BAD_FACE
    out[1] = -1
    assert E.check_outcome(g.s, out) == E.OUTCOME_BAD_FACE
    out[1] = 5
    assert E.check_outcome(g.s, out) == 0
    g.roll(1, 1)
    assert E.to_act(g.s) >= 0 and E.check_outcome(g.s, out) == E.OUTCOME_NOT_CHANCE
    for code in range(1, 6):
        assert code in E.OUTCOME_WORDS and len(E.explain_outcome(None, code)) > 20


def test_drawn_shuffles_are_uniform_permutations_and_dice_enumerate() -> None:
    g = Game(tickets=None)
    words = np.zeros(g.sizes.words, dtype=np.int64)
    out = np.zeros(g.sizes.outcome, dtype=np.int32)
    assert E.chance_words(g.s) == 1
    tops = np.zeros(12, dtype=np.int64)
    rng = np.random.default_rng(0)
    orders = set()
    for key in rng.integers(0, 2**63, size=12_000):
        words[0] = key
        E.draw_outcome(g.s, words, out)
        assert sorted(out.tolist()) == list(range(12))
        tops[out[0]] += 1
        orders.add(tuple(out.tolist()))
    assert tops.min() > 850 and tops.max() < 1150 and len(orders) > 11_900
    outcomes = np.zeros((1296, g.sizes.outcome), dtype=np.int32)
    probs = np.zeros(1296)
    assert E.enumerate_outcomes(g.s, outcomes, probs) == -1
    g = Game()
    g.no_stakes()
    assert E.enumerate_outcomes(g.s, outcomes, probs) == 36 and probs[:36].sum() == pytest.approx(1.0)
    assert {tuple(o[:2]) for o in outcomes[:36].tolist()} == {(a, b) for a in range(6) for b in range(6)}
    g.move(1, 1, 1)  # Lottery: three dice
    assert E.enumerate_outcomes(g.s, outcomes, probs) == 216


# --- observation


def test_the_observation_holds_every_listed_need_in_relative_seat_order() -> None:
    g = Game(first_player=1)
    g.act(stake(10, 5))  # seat 1 stakes 15
    assert E.observation_size(4) == g.sizes.observation == 207
    obs = g.obs(3)  # seat 3 sees itself first, then 0, 1, 2
    seats = obs[E.OBS_SEATS :].reshape(4, E.SEAT_FEATURES)
    assert seats[2, E.SEAT_STAKE] == pytest.approx(15 / 720) and seats[2, E.SEAT_CASH] == pytest.approx(21 / 720)
    assert seats[2, E.SEAT_MOVER] == 1.0 and seats[3, E.SEAT_ACTOR] == 1.0 and obs[E.OBS_TO_ACT] == 0.0
    assert seats[0, E.SEAT_TICKETS] == pytest.approx(1 / 12)
    assert obs[E.OBS_PHASE + E.PHASE_STAKE] == 1.0 and obs[E.OBS_PHASE : E.OBS_PHASE + E.NUM_PHASES].sum() == 1
    assert obs[E.OBS_POT] == pytest.approx(10 / 720) and obs[E.OBS_PILE] == pytest.approx(START_PILE / 720)
    assert g.obs(2)[E.OBS_TO_ACT] == 1.0
    g.s[E.PAWN] = 30
    ahead = g.obs(0)[E.OBS_AHEAD : E.OBS_AHEAD + 12 * len(SPACE_TYPES)].reshape(12, len(SPACE_TYPES))
    board = g.config.data().spaces
    assert [int(row.argmax()) for row in ahead] == [board[(30 + i) % 40] for i in range(1, 13)]
    assert (ahead.sum(axis=1) == 1).all() and g.obs(0)[E.OBS_PAWN] == pytest.approx(30 / 40)


# --- random play: conservation, legality and the end


@njit(cache=True)
def _random_games(head, games, seed, state_size, outcome_size, num_words, obs_size, full_checks):
    """Random legal play of ``games`` games; counts of what went wrong (all must stay 0) and of the endings."""
    np.random.seed(seed)
    state = np.zeros(state_size, np.int32)
    mask = np.zeros(E.NUM_ACTIONS, np.int8)
    outcome = np.zeros(outcome_size, np.int32)
    words = np.zeros(num_words, np.int64)
    obs = np.zeros(obs_size, np.float32)
    # 0 steps, 1 money not conserved, 2 terminated, 3 truncated, 4 empty mask, 5 mask != is_legal,
    # 6 drawn outcome refused, 7 unfinished, 8 observation out of [0, 1], 9 most steps in a game, 10 decisions
    stats = np.zeros(11, np.int64)
    supply = head[E.SUPPLY]
    n = head[E.NUM_PLAYERS]
    for g in range(games):
        E.init_state(state, head)
        steps = 0
        while steps < 1_000_000:
            seat = E.to_act(state)
            if seat == NOBODY:
                break
            if seat == CHANCE:
                for i in range(num_words):
                    words[i] = np.random.randint(0, 2**62)
                E.draw_outcome(state, words, outcome)
                if E.check_outcome(state, outcome) != 0:
                    stats[6] += 1
                E.apply_outcome(state, outcome)
            else:
                E.legal_mask(state, seat, mask)
                count = 0
                for a in range(E.NUM_ACTIONS):
                    count += mask[a]
                    if g < full_checks and E.is_legal(state, seat, a) != (mask[a] == 1):
                        stats[5] += 1
                if count == 0:
                    stats[4] += 1
                    break
                for s in range(n):
                    E.observe(state, s, obs)
                    if obs.min() < 0.0 or obs.max() > 1.0:
                        stats[8] += 1
                k = np.random.randint(0, count)
                choice = 0
                for a in range(E.NUM_ACTIONS):
                    if mask[a]:
                        if k == 0:
                            choice = a
                            break
                        k -= 1
                E.apply_action(state, seat, choice)
                stats[10] += 1
            total = state[E.PILE] + state[E.POT]
            for s in range(E.MAX_PLAYERS):
                total += state[E.CASH + s] + state[E.STAKE + s] + state[E.WS_BET + s]
                if state[E.CASH + s] < 0:
                    stats[1] += 1
            for i in range(E.MAX_PLAYERS * E.NUM_LUCKY):
                total += state[E.LUCKY + i]
            if total != supply or state[E.PILE] < 0 or state[E.POT] < 0:
                stats[1] += 1
            steps += 1
        stats[0] += steps
        stats[9] = max(stats[9], steps)
        code = E.status(state)
        if code == TERMINATED:
            stats[2] += 1
        elif code == TRUNCATED:
            stats[3] += 1
        else:
            stats[7] += 1
    return stats


def random_games(cfg: EasyMoneyConfig, games: int, seed: int, full_checks: int = 0) -> np.ndarray:
    sz = E.sizes(cfg)
    return _random_games(E.header(cfg), games, seed, sz.state, sz.outcome, sz.words, sz.observation, full_checks)


def test_money_is_conserved_after_every_step_of_10000_random_games_and_every_game_ends() -> None:
    stats = random_games(config(), 10_000, seed=1, full_checks=500)
    assert stats[[1, 4, 5, 6, 7, 8]].tolist() == [0] * 6
    assert stats[2] == 10_000 and stats[3] == 0  # all ended by the Final Lottery, none by max_turns
    assert stats[0] > 10_000 * 100 and stats[10] > 10_000 * 50  # real games, with decisions


@pytest.mark.parametrize("overrides", [{"num_players": 2}, {"num_players": 3, "first_player": None},
                                       {"max_turns": 5, "reward": "money"}])  # fmt: skip
def test_random_games_at_other_tables_conserve_money_and_end(overrides: dict) -> None:
    stats = random_games(config(**overrides), 1000, seed=2, full_checks=100)
    assert stats[[1, 4, 5, 6, 7, 8]].tolist() == [0] * 6 and stats[2] + stats[3] == 1000
    if overrides.get("max_turns") == 5:
        assert stats[3] > 900  # five turns rarely empty the pile


def test_random_games_without_the_final_lottery_conserve_money_and_end_with_the_pot_uncounted() -> None:
    stats = random_games(config(final_lottery=False), 2000, seed=3, full_checks=100)
    assert stats[[1, 4, 5, 6, 7, 8]].tolist() == [0] * 6 and stats[2] == 2000  # every game ends, none truncated
    with_final = random_games(config(), 2000, seed=3)
    assert stats[0] < with_final[0]  # no Final Lottery steps: fewer steps in all


def test_a_users_own_board_and_decks_play(tmp_path) -> None:
    board = tmp_path / "board.yaml"
    board.write_text("spaces: [easy_money, greed, lucky_dice, wall_street, purple_lottery, jackpot, nothing]\n")
    tickets = tmp_path / "tickets.json"
    tickets.write_text(json.dumps({"tickets": [111, 222, 333, 666]}))
    jackpot = tmp_path / "jackpot.yaml"
    jackpot.write_text("cards:\n  - {kind: keep_no_penalty}\n  - {kind: keep_double_bonus, amount: 3}\n")
    cfg = config(board=str(board), lottery_tickets=str(tickets), mystery_jackpot=str(jackpot), num_players=3)
    assert E.sizes(cfg).outcome == 12
    stats = random_games(cfg, 2000, seed=3, full_checks=100)
    assert stats[[1, 4, 5, 6, 7, 8]].tolist() == [0] * 6 and stats[2] == 2000


# --- data files and configs


def test_the_shipped_files_read_the_same_with_pyyaml_and_hold_the_specs_defaults() -> None:
    yaml = pytest.importorskip("yaml")
    for kind in FILES:
        path = default_path(kind)
        assert parse_file(path) == yaml.safe_load(path.read_text())
    data = config().data()
    assert len(data.spaces) == 40 and data.spaces[0] == 0 and SPACE_TYPES[data.spaces[20]] == "purple_lottery"
    assert data.tickets == (123, 156, 231, 264, 312, 345, 453, 426, 561, 534, 642, 615)
    assert len(data.wall_street) == 12
    assert [(c.tip == c.news, c.odds) for c in data.wall_street].count((True, 1)) == 8
    assert sum(c.tip == UP and c.news == UP for c in data.wall_street) == 4
    assert {(c.tip, c.odds) for c in data.wall_street if c.tip != c.news} == {(0, 2), (0, 3), (1, 2), (1, 3)}
    assert [c.kept for c in data.jackpot] == [False, False, False, False, True, True]


BAD_FILES = [
    ("board", "spaces:\n  - easy_money\n  - dobule\n", r"line 3 \(space 1\): unknown space type 'dobule'"),
    ("board", "count: 3\nspaces:\n  - easy_money\n  - double\n", r"wrong count: 'count: 3' but the file lists 2"),
    ("board", "spaces: [double, easy_money]\n", r"space 0 is START, an easy_money space"),
    ("board", "spaces: [" + ", ".join(["double"] * 65) + "]\n", r"wrong count: 65 spaces; allowed 2\.\.64"),
    ("board", "spaces:\n  - easy_money\n    double\n", r"line 3: expected a list item"),
    ("board", "space:\n  - easy_money\n", r"unknown key\(s\) \['space'\]"),
    ("lottery_tickets", "tickets: [123, 456, 123, 654]\n", r"ticket 2\): duplicate ticket 123 \(also ticket 0\)"),
    ("lottery_tickets", "tickets: [123, 456, 789, 654]\n", r"ticket 2\): a ticket is a three-digit number"),
    ("wall_street", "cards:\n  - {tip: up, news: down, odds: 4}\n", r"line 2 \(card 0\): bad odds 4"),
    ("wall_street", "cards:\n  - {tip: sideways, news: down, odds: 2}\n", r"tip is 'up' or 'down'"),
    ("wall_street", "cards:\n  - {tip: up, news: down}\n", r"missing 'odds'"),
    ("mystery_jackpot", "cards:\n  - {kind: collect, amount: 10}\n  - {kind: steal}\n",
     r"line 3 \(card 1\): bad card kind 'steal'"),
    ("mystery_jackpot", "cards:\n  - {kind: pay}\n", r"a pay card needs an amount"),
    ("mystery_jackpot", "cards:\n  - {kind: keep_no_penalty, amount: 2}\n", r"takes no amount"),
    ("mystery_jackpot", "cards:\n  - {kind: collect, amount: 10, colour: red}\n", r"unknown key\(s\) \['colour'\]"),
]  # fmt: skip


@pytest.mark.parametrize(("key", "text", "message"), BAD_FILES)
def test_bad_data_files_are_clear_config_errors_naming_the_file_and_entry(tmp_path, key, text, message) -> None:
    path = tmp_path / f"my_{key}.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        config(**{key: str(path)})
    assert f"my_{key}.yaml" in str(info.value)


def test_a_missing_data_file_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(ConfigError, match="no such board file"):
        config(board=str(tmp_path / "nope.yaml"))


BAD_CONFIGS = [
    ({"num_players": 5}, "'num_players'"),
    ({"num_players": 2, "first_player": 3}, "'first_player' must be None or a seat 0..1"),
    ({"supply": 150}, "leaves no play pile"),
    ({"reward": "points"}, "'reward'"),
    ({"wad_values": (1, 2, 0, 10)}, "'wad_values' are 4 positive integers"),
    ({"lucky_dice_odds": (3, 2, 1)}, "'lucky_dice_odds.3': Field required"),
    ({"max_turn": 10}, "unknown key 'max_turn'"),
    ({"penalty": -1}, "'penalty'"),
]


@pytest.mark.parametrize(("overrides", "message"), BAD_CONFIGS)
def test_bad_configs_are_errors_naming_the_key(overrides: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        config(**overrides)


def test_too_few_tickets_for_the_players_is_an_error(tmp_path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("tickets: [111, 222, 333]\n")
    assert config(lottery_tickets=str(path), num_players=3).num_players == 3
    with pytest.raises(ConfigError, match="has 3 tickets; 4 players need at least 4"):
        config(lottery_tickets=str(path))


def test_the_header_carries_the_knobs_so_one_engine_serves_every_config() -> None:
    g = Game(penalty=7, pass_pay=3, land_pay=4, start_wads=(1, 1, 1, 1), pot_start=0, supply=200)
    assert g.cash() == [18] * 4 and g.pot == 0 and g.pile == 200 - 72
    g.move(5, 1, 3)  # passes Easy Money, lands on Greed
    assert g.cash(0) == 21
    g = Game(penalty=7, land_pay=4)
    g.move(2, 1, 1)  # Double with no stakes: the penalty of 7 from everyone
    assert g.cash() == [29] * 4


# --- actions and words


def test_every_action_id_has_words_and_illegal_actions_say_why() -> None:
    cfg = config()
    words = [E.describe_action(cfg, None, a) for a in range(E.NUM_ACTIONS)]
    assert len(set(words)) == E.NUM_ACTIONS and "out of range" in E.describe_action(cfg, None, E.NUM_ACTIONS)
    assert words[stake(1, 5)] == "stake purple + green (6)" and words[wall(DOWN, 10)] == "Wall Street DOWN: blue (10)"
    assert len({b for b in combinations_with_replacement(range(4), 2)}) + 4 == E.NUM_BETS == 14
    g = Game()
    g.set_cash(0, 3)
    assert not E.is_legal(g.s, 0, stake(5)) and "cash 3" in E.explain_illegal(cfg, g.s, 0, stake(5))
    assert not E.is_legal(g.s, 1, E.ACT_STAKE_NONE) and "player_0 decides" in E.explain_illegal(cfg, g.s, 1, 0)
    assert not E.is_legal(g.s, 0, -1) and not E.is_legal(g.s, 0, E.NUM_ACTIONS)
    assert not E.is_legal(g.s, 0, E.ACT_GREED_STOP) and "stake round" in E.explain_illegal(cfg, g.s, 0, 69)
    assert str(E.NUM_ACTIONS - 1) in E.action_help(cfg)
