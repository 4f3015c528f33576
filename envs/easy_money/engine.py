"""The Ea$y Money rules engine: the only place this game's rules exist (spec: ../shared/rules/easy_money.md).

State is one flat ``int32`` array; every function here is a small numba-compiled scalar function over it, called
once per step by the AEC env and looped over the batch by the batched engine. No PettingZoo or Gymnasium.

Inlining: the contract's entry points and the tiny helpers on the hot path (money moves, the stake round, legality)
are ``inline="always"``, as in the other engines, so the batched loops drop the per-call reference counting of the
state view. The turn's flow (the spaces, ``_end_turn``, the chance events' resolutions) is compiled once as ordinary
cached functions: inlined into every call site, each kernel using ``apply_outcome`` took a minute to compile (now
about 10 s), at a small cost in speed (within about 20% on random play: a flow function runs at most once per step).

The header (slots ``0 .. HEADER_SIZE - 1``) holds every rule knob and the whole board and card decks (from the data
files, ``data.py``), so one compiled engine serves every config. Decks are drawn without replacement: their order
lives in the state; a shuffle is a chance event whose outcome is a permutation (drawn from one random word by
Fisher-Yates over SplitMix64); Wall Street and Mystery Jackpot cards go to the bottom after use, a kept Jackpot
card leaves the deck, and the tickets are reshuffled and dealt after every Lottery win.

Chance outcomes (``apply_outcome``; ``check_outcome`` codes in ``OUTCOME_WORDS``):

- a roll of k dice: ``outcome[:k]`` faces 0..5 (showing 1..6). k = 2 for a move, a broke player's cash roll and a
  Lucky Dice roll; 1 for a Greed roll; 3 (red, white, blue) for a Lottery; the opening roll-off is one die per seat
  (``outcome[seat]``; seats out of the roll-off are ignored);
- the whole Final Lottery: ``outcome[:3]`` the winning roll (red, white, blue: a number some player holds) and
  ``outcome[3]`` how many rounds before it had no winner (each made every player add the ante). Nothing is decided
  between its rounds, so one event is the same game as one per round, and the batched engine need not wait dozens
  of chance rounds for the games in their Final Lottery. Drawn from one word: rounds of three dice from SplitMix64
  until a held number comes up;
- a shuffle of a deck of d cards: ``outcome[:d]`` a permutation of 0..d-1, ``outcome[0]`` the card on top (a card is
  its index in the deck's data file).

Decisions, one masked ``Discrete(NUM_ACTIONS)`` space for every phase (README.md has the table):
``ACT_STAKE_NONE`` / ``ACT_STAKE + b`` (stake round), ``ACT_WALL + 14 * side + b`` (Wall Street, side 0 UP 1 DOWN),
``ACT_LUCKY + 4 * number + wad`` and ``ACT_LUCKY_STOP`` (Lucky Dice), ``ACT_GREED_ROLL`` / ``ACT_GREED_STOP``,
``ACT_MOVE`` / ``ACT_CASH_ROLL`` (out of money), ``ACT_STEAL + r - 1`` and ``ACT_NAME + r - 1`` (a player r seats
to the left: the empty-deck ticket steal and the Greed name). Bet b (0..13) is one of the 14 multisets of one or
two wads, ``BET_WADS``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicearena.envs.common.contract import CHANCE, NOBODY, PLAYING, TERMINATED, Sizes
from dicearena.envs.common.contract import TRUNCATED as TRUNCATED_STATUS
from dicearena.envs.common.dice_outcomes import bad_faces, draw_faces
from dicearena.envs.common.rewards import zero_sum_rewards
from dicearena.envs.common.streams import splitmix

from .data import JACKPOT_KINDS, MAX_JACKPOT, MAX_SPACES, MAX_TICKETS, MAX_WALL, SPACE_TYPES
from .greed import BUST, greed_payout, greed_roll, greed_values  # the Greed rule, shared with the Greed stop task

MAX_PLAYERS = 4
NUM_FACES = 6
NUM_WADS = 4  # wad colours: purple, red, green, blue
WAD_NAMES = ("purple", "red", "green", "blue")
AHEAD = 12  # spaces ahead the observation shows
GREED_SCALE = 100  # the observation's Greed total (and named cash) / GREED_SCALE, capped at 1

# Space type codes (data.SPACE_TYPES order).
SPACE_EASY_MONEY, SPACE_DOUBLE, SPACE_NOTHING, SPACE_LOTTERY, SPACE_PURPLE_LOTTERY = 0, 1, 2, 3, 4
SPACE_JACKPOT, SPACE_GREED, SPACE_WALL_STREET, SPACE_LUCKY_DICE = 5, 6, 7, 8
NUM_SPACE_TYPES = len(SPACE_TYPES)
assert SPACE_TYPES[SPACE_LUCKY_DICE] == "lucky_dice" and NUM_SPACE_TYPES == 9

# Mystery Jackpot card kinds (data.JACKPOT_KINDS order).
CARD_COLLECT, CARD_PAY, CARD_COLLECT_FROM_EACH, CARD_TICKET, CARD_KEEP_NO_PENALTY, CARD_KEEP_DOUBLE_BONUS = range(6)
assert JACKPOT_KINDS[CARD_KEEP_DOUBLE_BONUS] == "keep_double_bonus"

# The 14 bets: one or two wads (a multiset of colours), as (first, second) colour indices, second -1 for one wad.
BET_WADS = ((0, -1), (1, -1), (2, -1), (3, -1),
            (0, 0), (0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3), (2, 2), (2, 3), (3, 3))  # fmt: skip
NUM_BETS = len(BET_WADS)

# Lucky Dice numbers (index 0..5) and each dice total's index (-1: not a Lucky Dice number).
LUCKY_NUMBERS = (4, 5, 6, 8, 9, 10)
NUM_LUCKY = len(LUCKY_NUMBERS)
LUCKY_INDEX = np.array([LUCKY_NUMBERS.index(t) if t in LUCKY_NUMBERS else -1 for t in range(13)], dtype=np.int64)

# --- actions
ACT_STAKE_NONE = 0  # stake round: no stake
ACT_STAKE = 1  # 1..14: stake bet b = action - ACT_STAKE
ACT_WALL = ACT_STAKE + NUM_BETS  # 15..42: Wall Street, 14 * side (0 UP, 1 DOWN) + bet
ACT_LUCKY = ACT_WALL + 2 * NUM_BETS  # 43..66: Lucky Dice wad, 4 * number index + colour
ACT_LUCKY_STOP = ACT_LUCKY + NUM_LUCKY * NUM_WADS  # 67: no second Lucky Dice wad
ACT_GREED_ROLL = ACT_LUCKY_STOP + 1  # 68
ACT_GREED_STOP = ACT_GREED_ROLL + 1  # 69
ACT_MOVE = ACT_GREED_STOP + 1  # 70: out of money: move normally
ACT_CASH_ROLL = ACT_MOVE + 1  # 71: out of money: roll both dice and collect 1 per pip
ACT_STEAL = ACT_CASH_ROLL + 1  # 72..74: take a ticket from the player r = action - ACT_STEAL + 1 seats on
ACT_NAME = ACT_STEAL + MAX_PLAYERS - 1  # 75..77: Greed names the player r = action - ACT_NAME + 1 seats on
NUM_ACTIONS = ACT_NAME + MAX_PLAYERS - 1  # 78

# --- phases
PHASE_SHUFFLE_TICKETS = 0  # chance: a permutation of the tickets (setup, and after a Lottery win)
PHASE_SHUFFLE_JACKPOT = 1  # chance: the Mystery Jackpot deck's order (setup)
PHASE_SHUFFLE_WALL = 2  # chance: the Wall Street deck's order (setup)
PHASE_ROLLOFF = 3  # chance: one die per seat still in the opening roll-off
PHASE_STAKE = 4  # decision (ACTOR): the stake round before a turn
PHASE_BROKE = 5  # decision (mover): out of money: move, or the cash roll
PHASE_CASH_ROLL = 6  # chance: two dice, 1 unit per pip (the whole turn)
PHASE_MOVE = 7  # chance: two dice move the pawn
PHASE_STEAL = 8  # decision (mover): the ticket deck is empty: whose ticket to take
PHASE_LOTTERY = 9  # chance: three dice (red, white, blue): the winning number
PHASE_GREED_NAME = 10  # decision (mover): name the player to swipe from
PHASE_GREED_ROLL = 11  # chance: one die
PHASE_GREED_DECIDE = 12  # decision (mover): roll again or stop
PHASE_WALL_BET = 13  # decision (ACTOR): UP or DOWN with one or two wads
PHASE_LUCKY_BET = 14  # decision (ACTOR): a wad on a number (the second: or stop)
PHASE_LUCKY_ROLL = 15  # chance: the mover rolls two dice
PHASE_FINAL = 16  # chance: the whole Final Lottery (the winning roll, and the rounds with no winner before it)
PHASE_OVER = 17
NUM_PHASES = 18
PHASE_NAMES = ("shuffle tickets", "shuffle jackpot", "shuffle wall street", "roll-off", "stake round",
               "out of money", "cash roll", "move", "take a ticket", "lottery", "greed: name", "greed roll",
               "greed: roll or stop", "wall street bet", "lucky dice bet", "lucky dice roll", "final lottery",
               "over")  # fmt: skip
# Dice each chance phase rolls (0: a shuffle or not a chance phase; the roll-off rolls one per seat).
PHASE_DICE = np.array([0, 0, 0, 0, 0, 0, 2, 2, 0, 3, 0, 1, 0, 0, 0, 2, 0, 0], dtype=np.int64)
PHASE_DECIDES = np.array([0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 0, 0], dtype=np.int64)

# --- what happened last (LAST_EVENT), for infos and renderers
EV_NONE, EV_DOUBLE, EV_NOTHING, EV_EASY_MONEY, EV_JACKPOT, EV_LOTTERY_WIN, EV_LOTTERY_NO_WIN = range(7)
EV_GREED_BUST, EV_GREED_PAID, EV_GREED_TOO_MUCH, EV_WALL_STREET, EV_LUCKY_SEVEN, EV_LUCKY_CLEARED = range(7, 13)
EV_LUCKY_NO_BETS, EV_CASH_ROLL, EV_FINAL_WIN, EV_PILE_EMPTY, EV_LUCKY_ROLL = range(13, 18)
EVENT_NAMES = ("none", "double", "nothing", "easy money", "mystery jackpot", "lottery won", "lottery not won",
               "greed bust", "greed paid", "greed asked too much", "wall street", "lucky dice seven",
               "lucky dice cleared", "lucky dice: no bets", "cash roll", "final lottery won", "the play pile is empty",
               "lucky dice roll")  # fmt: skip

# Rewards (config ``reward``).
REWARD_WIN = 0
REWARD_MONEY = 1
REWARD_WIN_SHAPED = 2  # "win" with shaping: each step also pays the change of the lead (see shaping_potentials)
MONEY_SCALE = 100.0  # reward="money": units / MONEY_SCALE

# --- state slots: the header (every rule knob, the board and the decks), written by init_state from header()
NUM_PLAYERS = 0
MAX_TURNS = 1
REWARD_MODE = 2
FIRST_PLAYER = 3  # -1: the opening roll-off picks
SUPPLY = 4  # all the money there is (pile + pot + cash + stakes + money on the table)
POT_START = 5
REFILL = 6  # what the pile puts back into the pot after a Lottery win
PENALTY = 7  # the DOUBLE penalty (Double and Nothing spaces)
PASS_PAY = 8  # each Easy Money space passed
LAND_PAY = 9  # an Easy Money space landed on
FINAL_ANTE = 10  # what every player adds to the pot after a Final Lottery round with no winner
FIELD_PAY = 11  # Lucky Dice 2, 3, 11 or 12: the mover collects this
START_MONEY = 12  # each player's money at the start
MIN_WAD = 13  # the smallest wad value
NUM_SPACES = 14
NUM_TICKETS = 15
NUM_JACKPOT = 16
NUM_WALL = 17
WADS = 18  # 4: wad values by colour
BET_AMOUNTS = WADS + NUM_WADS  # 14: each bet's amount
LUCKY_ODDS = BET_AMOUNTS + NUM_BETS  # 6: odds on 4, 5, 6, 8, 9, 10
SPACES = LUCKY_ODDS + NUM_LUCKY  # MAX_SPACES: space type codes, index 0 = START
TICKET_NUMBER = SPACES + MAX_SPACES  # MAX_TICKETS: each ticket's number (e.g. 123)
JP_KIND = TICKET_NUMBER + MAX_TICKETS  # MAX_JACKPOT: each Jackpot card's kind
JP_AMOUNT = JP_KIND + MAX_JACKPOT  # MAX_JACKPOT: and amount
WS_TIP = JP_AMOUNT + MAX_JACKPOT  # MAX_WALL: each Wall Street card's Stock Tip (0 UP, 1 DOWN)
WS_NEWS = WS_TIP + MAX_WALL  # MAX_WALL: Daily News
WS_ODDS = WS_NEWS + MAX_WALL  # MAX_WALL: odds (1..3 to 1)
ZERO_SUM = WS_ODDS + MAX_WALL  # 1: reward="win" is zero-sum (config zero_sum; ``dicearena.envs.common.rewards``)
GREED_FEATURES = ZERO_SUM + 1  # 1: the observation ends with the Greed values (config greed_features)
FINAL_LOTTERY = GREED_FEATURES + 1  # 1: the rulebook's Final Lottery; 0: the game ends when the pile is empty
HEADER_SIZE = FINAL_LOTTERY + 1

# --- the game in progress
PHASE = HEADER_SIZE
CURRENT = PHASE + 1  # the mover (whose turn it is)
ACTOR = CURRENT + 1  # the seat deciding now (in a decision phase)
TURN = ACTOR + 1  # turns started so far
TRUNCATED = TURN + 1  # 1: max_turns stopped the game
PAWN = TRUNCATED + 1  # the pawn's space
PILE = PAWN + 1
POT = PILE + 1  # the Lottery pot (on the large purple space)
ROUND_K = POT + 1  # a round (stakes, Wall Street, Lucky Dice): the actor is the mover + ROUND_K seats on
CASH = ROUND_K + 1  # MAX_PLAYERS
STAKE = CASH + MAX_PLAYERS  # MAX_PLAYERS: money on each DOUBLE symbol
NO_PENALTY = STAKE + MAX_PLAYERS  # MAX_PLAYERS: 1 if the seat keeps the no-penalty card
BONUS = NO_PENALTY + MAX_PLAYERS  # MAX_PLAYERS: extra a Double pays the seat (kept bonus cards)
TICKETS_HELD = BONUS + MAX_PLAYERS  # MAX_PLAYERS
WS_SIDE = TICKETS_HELD + MAX_PLAYERS  # MAX_PLAYERS: 0 no bet, 1 UP, 2 DOWN
WS_BET = WS_SIDE + MAX_PLAYERS  # MAX_PLAYERS: the amount bet (in flight until the card is turned)
LUCKY = WS_BET + MAX_PLAYERS  # MAX_PLAYERS * 6: money on each Lucky Dice number, seat-major
TICKET_TOP = LUCKY + MAX_PLAYERS * NUM_LUCKY  # position of the top ticket in TICKET_DECK (== NUM_TICKETS: empty)
TICKET_DECK = TICKET_TOP + 1  # MAX_TICKETS: ticket indices, from the top
TICKET_OWNER = TICKET_DECK + MAX_TICKETS  # MAX_TICKETS: seat holding each ticket, -1 in the deck
JP_HEAD = TICKET_OWNER + MAX_TICKETS  # the Jackpot deck is a ring: JP_LEN cards from JP_DECK[JP_HEAD] (the top)
JP_LEN = JP_HEAD + 1
JP_DECK = JP_LEN + 1  # MAX_JACKPOT
JP_OWNER = JP_DECK + MAX_JACKPOT  # MAX_JACKPOT: seat keeping each card, -1 otherwise
WS_HEAD = JP_OWNER + MAX_JACKPOT  # the Wall Street deck is a ring of all its cards; WS_DECK[WS_HEAD] is on top
WS_DECK = WS_HEAD + 1  # MAX_WALL
WS_CARD = WS_DECK + MAX_WALL  # the Wall Street card in play (or last played), -1 before any
LUCKY_WADS = WS_CARD + 1  # wads the Lucky Dice actor has placed this round (0, 1)
GREED_TARGET = LUCKY_WADS + 1  # the named player (-1 before any Greed)
GREED_TOTAL = GREED_TARGET + 1  # running total of pips
GREED_ROLLS = GREED_TOTAL + 1
DICE = GREED_ROLLS + 1  # 3: the last roll's faces 1..6 (0: die not rolled)
ROLL_TOTAL = DICE + 3  # the last roll's total
LAST_EVENT = ROLL_TOTAL + 1  # EV_*
LAST_SEAT = LAST_EVENT + 1  # who it concerned (-1: nobody)
LAST_AMOUNT = LAST_SEAT + 1  # units it moved
LAST_SPACE = LAST_AMOUNT + 1  # the space the last move landed on (-1 before any)
LAST_PASSES = LAST_SPACE + 1  # Easy Money spaces the last move passed
LAST_CARD = LAST_PASSES + 1  # the last Jackpot card drawn (-1 before any)
LAST_LOTTERY = LAST_CARD + 1  # the last Lottery number rolled (0 before any)
LAST_STEAL = LAST_LOTTERY + 1  # the seat the last ticket was taken from (-1 none)
FINAL_ROUNDS = LAST_STEAL + 1  # Final Lottery rounds with no winner (before the winning one)
ROLLOFF = FINAL_ROUNDS + 1  # bitmask of seats still in the roll-off
ROLLOFF_FACES = ROLLOFF + 1  # MAX_PLAYERS: their last roll-off die (1..6, 0 none)
WINNERS = ROLLOFF_FACES + MAX_PLAYERS  # bitmask of the winners at the end
STATE_SIZE = WINNERS + 1 + (WINNERS + 1) % 2  # even (8-byte aligned rows, as in the other engines)

# --- observation layout (README.md): global slots, then SEAT_FEATURES per seat, observer first
OBS_PHASE = 0  # NUM_PHASES one-hot
OBS_TO_ACT = OBS_PHASE + NUM_PHASES  # 1: the observer decides now
OBS_POT = OBS_TO_ACT + 1  # pot / supply
OBS_PILE = OBS_POT + 1  # pile / supply
OBS_PAWN = OBS_PILE + 1  # pawn space / spaces
OBS_AHEAD = OBS_PAWN + 1  # AHEAD * NUM_SPACE_TYPES: one-hot type of the spaces 1..12 ahead
OBS_DECK_TICKETS = OBS_AHEAD + AHEAD * NUM_SPACE_TYPES  # tickets left in the deck / tickets
OBS_TURN = OBS_DECK_TICKETS + 1  # turn / max_turns
OBS_GREED_TOTAL = OBS_TURN + 1  # Greed: min(total, 100) / 100
OBS_GREED_CASH = OBS_GREED_TOTAL + 1  # Greed: the named player's cash / supply
OBS_GREED_CASH_100 = OBS_GREED_CASH + 1  # Greed: min(named cash, 100) / 100
OBS_GREED_COVERED = OBS_GREED_CASH_100 + 1  # Greed: 1 if the total is at most the named player's cash
OBS_WALL_TIP = OBS_GREED_COVERED + 1  # 2: the Stock Tip (UP, DOWN) while Wall Street bets are placed
OBS_LUCKY_SECOND = OBS_WALL_TIP + 2  # 1: the Lucky Dice actor places a second wad (or stops)
OBS_SEATS = OBS_LUCKY_SECOND + 1
SEAT_CASH = 0  # / supply
SEAT_STAKE = 1  # / supply
SEAT_TICKETS = 2  # tickets held / tickets
SEAT_NO_PENALTY = 3  # keeps the no-penalty card
SEAT_BONUS = 4  # min(Double bonus, 10) / 10
SEAT_MOVER = 5
SEAT_ACTOR = 6
SEAT_GREED_TARGET = 7  # named by Greed (during Greed)
SEAT_WALL_UP = 8  # Wall Street bet on UP / supply
SEAT_WALL_DOWN = 9  # on DOWN / supply
SEAT_LUCKY = 10  # 6: money on 4, 5, 6, 8, 9, 10 / supply
SEAT_WINNER = 16  # at the end
SEAT_FEATURES = 17
# with config greed_features, after the seats (OBS_SEATS + SEAT_FEATURES * P): at a Greed roll-or-stop decision the
# mover's exact expected units (greed.greed_values), min(v, GREED_SCALE) / GREED_SCALE; 0 elsewhere
GREED_ROLL_VALUE = 0  # of rolling on, optimal play after
GREED_STOP_VALUE = 1  # of stopping now
GREED_ROLL_BETTER = 2  # 1 if rolling on is worth strictly more (the optimal choice; ties stop)
NUM_GREED_FEATURES = 3

# check_outcome codes
OUTCOME_OK = 0
OUTCOME_BAD_FACE = 1
OUTCOME_NOT_A_PERMUTATION = 2
OUTCOME_NOT_CHANCE = 3
OUTCOME_FINAL_NO_HOLDER = 4
OUTCOME_FINAL_BAD_ROUNDS = 5
MAX_FINAL_ROUNDS = 100_000  # an injected Final Lottery's rounds without a winner, at most
FINAL_OUTCOME = 4  # values in a Final Lottery outcome: three faces and the rounds without a winner
OUTCOME_WORDS = {
    OUTCOME_OK: "valid",
    OUTCOME_BAD_FACE: "a die shows a face 0..5 (the faces 1..6): outcome[:k] for a roll of k dice (the roll-off: "
    "outcome[seat])",
    OUTCOME_NOT_A_PERMUTATION: "a shuffle's outcome[:d] is a permutation of 0..d-1 (d: the cards in the deck; "
    "outcome[0] is the card on top)",
    OUTCOME_NOT_CHANCE: "the game is not at a chance event",
    OUTCOME_FINAL_NO_HOLDER: "the Final Lottery's outcome[:3] is its winning roll: a number some player holds",
    OUTCOME_FINAL_BAD_ROUNDS: f"the Final Lottery's outcome[3] counts its rounds with no winner: 0..{MAX_FINAL_ROUNDS}",
}


def observation_size(num_players: int, greed_features: bool = False) -> int:
    """Floats in an observation; the Greed values (config ``greed_features``) come last."""
    return OBS_SEATS + SEAT_FEATURES * num_players + (NUM_GREED_FEATURES if greed_features else 0)


def outcome_size(num_players: int, tickets: int, jackpot: int, wall: int) -> int:
    return max(FINAL_OUTCOME, num_players, tickets, jackpot, wall)


# --- money


@njit(cache=True, inline="always")
def _from_pile(state: np.ndarray, seat: int, amount: int) -> int:
    """The pile pays ``seat`` up to ``amount`` (as far as it goes); returns what was paid."""
    paid = min(amount, state[PILE])
    state[PILE] -= paid
    state[CASH + seat] += paid
    return paid


@njit(cache=True, inline="always")
def _to_pot(state: np.ndarray, seat: int, amount: int) -> int:
    """``seat`` pays up to ``amount`` of its cash into the pot (as far as its cash goes)."""
    paid = min(amount, state[CASH + seat])
    state[CASH + seat] -= paid
    state[POT] += paid
    return paid


@njit(cache=True, inline="always")
def _event(state: np.ndarray, code: int, seat: int, amount: int) -> None:
    state[LAST_EVENT] = code
    state[LAST_SEAT] = seat
    state[LAST_AMOUNT] = amount


@njit(cache=True, inline="always")
def money_in_play(state: np.ndarray) -> int:
    """Pile + pot + every cash, stake, Lucky Dice wad and Wall Street bet: always the supply."""
    total = state[PILE] + state[POT]
    for seat in range(MAX_PLAYERS):
        total += state[CASH + seat] + state[STAKE + seat] + state[WS_BET + seat]
    for i in range(MAX_PLAYERS * NUM_LUCKY):
        total += state[LUCKY + i]
    return total


@njit(cache=True, inline="always")
def money_of(state: np.ndarray, seat: int) -> int:
    """What counts at the end: cash plus the DOUBLE stake."""
    return state[CASH + seat] + state[STAKE + seat]


# --- setup, turns and the end


@njit(cache=True, inline="always")
def init_state(state: np.ndarray, head: np.ndarray) -> None:
    """A new game from a ``header``: money dealt, the pawn on START, then the three deck shuffles (chance)."""
    state[:] = 0
    state[:HEADER_SIZE] = head[:HEADER_SIZE]
    n = state[NUM_PLAYERS]
    state[POT] = state[POT_START]
    state[PILE] = state[SUPPLY] - state[POT_START] - n * state[START_MONEY]
    for seat in range(n):
        state[CASH + seat] = state[START_MONEY]
    for t in range(MAX_TICKETS):
        state[TICKET_OWNER + t] = -1
    state[TICKET_TOP] = state[NUM_TICKETS]  # every ticket is in the deck, unshuffled
    for c in range(MAX_JACKPOT):
        state[JP_OWNER + c] = -1
    state[JP_LEN] = state[NUM_JACKPOT]
    state[WS_CARD] = -1
    state[GREED_TARGET] = -1
    state[LAST_SEAT] = -1
    state[LAST_SPACE] = -1
    state[LAST_CARD] = -1
    state[LAST_STEAL] = -1
    state[PHASE] = PHASE_SHUFFLE_TICKETS


@njit(cache=True)
def _game_over(state: np.ndarray) -> None:
    """Every player counts cash plus stake; the most money wins (equal most share the win)."""
    n = state[NUM_PLAYERS]
    best = -1
    for seat in range(n):
        best = max(best, money_of(state, seat))
    winners = 0
    for seat in range(n):
        if money_of(state, seat) == best:
            winners |= 1 << seat
    state[WINNERS] = winners
    state[PHASE] = PHASE_OVER
    state[ACTOR] = state[CURRENT]


@njit(cache=True)
def _start_final(state: np.ndarray) -> None:
    """The pile is empty: money still on the Lucky Dice numbers goes back to its owners, and the Final Lottery (or,
    with ``final_lottery: false``, the count: the pot then belongs to nobody)."""
    for seat in range(MAX_PLAYERS):
        for k in range(NUM_LUCKY):
            state[CASH + seat] += state[LUCKY + seat * NUM_LUCKY + k]
            state[LUCKY + seat * NUM_LUCKY + k] = 0
    _event(state, EV_PILE_EMPTY, state[CURRENT], 0)
    if state[FINAL_LOTTERY] == 0:
        _game_over(state)
        return
    state[ACTOR] = state[CURRENT]
    state[PHASE] = PHASE_FINAL


@njit(cache=True, inline="always")
def _stake_from(state: np.ndarray, k: int) -> None:
    """The stake round from the seat ``k`` places on from the mover: the next seat with money to stake decides;
    after the last, the mover's turn (out-of-money choice, or the move)."""
    n = state[NUM_PLAYERS]
    mover = state[CURRENT]
    for kk in range(k, n):
        seat = (mover + kk) % n
        if state[CASH + seat] + state[STAKE + seat] >= state[MIN_WAD]:
            state[ROUND_K] = kk
            state[ACTOR] = seat
            state[PHASE] = PHASE_STAKE
            return
    state[ACTOR] = mover
    if state[CASH + mover] == 0 and state[STAKE + mover] == 0:
        state[PHASE] = PHASE_BROKE
    else:
        state[PHASE] = PHASE_MOVE


@njit(cache=True)
def _start_turn(state: np.ndarray, seat: int) -> None:
    state[CURRENT] = seat
    state[ACTOR] = seat
    if state[TURN] >= state[MAX_TURNS]:
        state[TRUNCATED] = 1
        state[PHASE] = PHASE_OVER
        return
    state[TURN] += 1
    _stake_from(state, 0)


@njit(cache=True)
def _end_turn(state: np.ndarray) -> None:
    """The turn is over: the Final Lottery if the pile is empty, else the next player's stake round."""
    if state[PILE] == 0:
        _start_final(state)
    else:
        _start_turn(state, (state[CURRENT] + 1) % state[NUM_PLAYERS])


@njit(cache=True)
def _draw_ticket(state: np.ndarray, seat: int) -> None:
    """``seat`` takes the top ticket of the deck (which is not empty)."""
    t = state[TICKET_DECK + state[TICKET_TOP]]
    state[TICKET_TOP] += 1
    state[TICKET_OWNER + t] = seat
    state[TICKETS_HELD + seat] += 1


@njit(cache=True)
def _deal_tickets(state: np.ndarray, first: int) -> None:
    """One ticket to each player, in seat order from ``first``."""
    n = state[NUM_PLAYERS]
    for k in range(n):
        if state[TICKET_TOP] < state[NUM_TICKETS]:
            _draw_ticket(state, (first + k) % n)


@njit(cache=True)
def _start_game_turns(state: np.ndarray) -> None:
    """After the shuffles: the roll-off, or the configured first player's first turn."""
    first = state[FIRST_PLAYER]
    if first >= 0:
        _start_turn(state, first)
    else:
        state[ROLLOFF] = (1 << state[NUM_PLAYERS]) - 1
        state[PHASE] = PHASE_ROLLOFF


# --- chance events


@njit(cache=True, inline="always")
def _shuffle_size(state: np.ndarray) -> int:
    phase = state[PHASE]
    if phase == PHASE_SHUFFLE_TICKETS:
        return state[NUM_TICKETS]
    if phase == PHASE_SHUFFLE_JACKPOT:
        return state[NUM_JACKPOT]
    if phase == PHASE_SHUFFLE_WALL:
        return state[NUM_WALL]
    return 0


@njit(cache=True, inline="always")
def dice_needed(state: np.ndarray) -> int:
    """Dice the pending chance event rolls (0 at a shuffle, a decision or the end)."""
    phase = state[PHASE]
    if phase == PHASE_ROLLOFF:
        return state[NUM_PLAYERS]
    return PHASE_DICE[phase]


@njit(cache=True)
def _apply_shuffle(state: np.ndarray, perm: np.ndarray) -> None:
    phase = state[PHASE]
    if phase == PHASE_SHUFFLE_TICKETS:
        for i in range(state[NUM_TICKETS]):
            state[TICKET_DECK + i] = perm[i]
        state[TICKET_TOP] = 0
        if state[TURN] == 0:  # setup: each player draws one, then the other decks are shuffled
            _deal_tickets(state, 0)
            state[PHASE] = PHASE_SHUFFLE_JACKPOT
        else:  # after a Lottery win: one new ticket each, from the mover; the turn is over
            _deal_tickets(state, state[CURRENT])
            _end_turn(state)
    elif phase == PHASE_SHUFFLE_JACKPOT:
        for i in range(state[NUM_JACKPOT]):
            state[JP_DECK + i] = perm[i]
        state[JP_HEAD] = 0
        state[PHASE] = PHASE_SHUFFLE_WALL
    else:
        for i in range(state[NUM_WALL]):
            state[WS_DECK + i] = perm[i]
        state[WS_HEAD] = 0
        _start_game_turns(state)


@njit(cache=True)
def _apply_rolloff(state: np.ndarray, faces: np.ndarray) -> None:
    """Every seat still in the roll-off rolls one die; the highest starts, the tied highest roll again."""
    n = state[NUM_PLAYERS]
    contenders = state[ROLLOFF]
    best = -1
    for seat in range(n):
        if (contenders >> seat) & 1:
            state[ROLLOFF_FACES + seat] = faces[seat] + 1
            best = max(best, faces[seat])
    tied = 0
    first = -1
    for seat in range(n):
        if (contenders >> seat) & 1 and faces[seat] == best:
            tied |= 1 << seat
            if first < 0:
                first = seat
    if tied == 1 << first:
        state[ROLLOFF] = 0
        _start_turn(state, first)
    else:
        state[ROLLOFF] = tied


@njit(cache=True, inline="always")
def _record_dice(state: np.ndarray, outcome: np.ndarray, k: int) -> int:
    total = 0
    for i in range(3):
        face = outcome[i] + 1 if i < k else 0
        state[DICE + i] = face
        total += face
    state[ROLL_TOTAL] = total
    return total


@njit(cache=True)
def _ticket_holder(state: np.ndarray, number: int) -> int:
    """The seat holding the ticket ``number``, or -1 (no such ticket, or it is in the deck)."""
    for t in range(state[NUM_TICKETS]):
        if state[TICKET_NUMBER + t] == number:
            return state[TICKET_OWNER + t]
    return -1


@njit(cache=True, inline="always")
def _lottery_number(state: np.ndarray) -> int:
    return 100 * state[DICE] + 10 * state[DICE + 1] + state[DICE + 2]


@njit(cache=True)
def _apply_lottery(state: np.ndarray) -> None:
    """A Lottery space's draw: a holder of the number takes the pot, the pile refills it, every ticket goes back
    and the deck is shuffled (then each player draws one); no holder: nothing."""
    number = _lottery_number(state)
    state[LAST_LOTTERY] = number
    winner = _ticket_holder(state, number)
    if winner < 0:
        _event(state, EV_LOTTERY_NO_WIN, -1, 0)
        _end_turn(state)
        return
    won = state[POT]
    state[CASH + winner] += won
    refill = min(state[REFILL], state[PILE])
    state[PILE] -= refill
    state[POT] = refill
    _event(state, EV_LOTTERY_WIN, winner, won)
    for t in range(state[NUM_TICKETS]):
        state[TICKET_OWNER + t] = -1
    for seat in range(MAX_PLAYERS):
        state[TICKETS_HELD + seat] = 0
    state[TICKET_TOP] = state[NUM_TICKETS]
    state[PHASE] = PHASE_SHUFFLE_TICKETS


@njit(cache=True)
def _apply_final(state: np.ndarray, rounds: int) -> None:
    """The Final Lottery: after each of ``rounds`` rounds with no winner every player adds the ante (as far as their
    cash goes); then the holder of the winning number (the dice, already recorded) takes the pot and the game ends."""
    n = state[NUM_PLAYERS]
    for _ in range(rounds):
        added = 0
        for k in range(n):
            added += _to_pot(state, (state[CURRENT] + k) % n, state[FINAL_ANTE])
        if added == 0:  # nobody has cash left: the other rounds change nothing
            break
    state[FINAL_ROUNDS] = rounds
    number = _lottery_number(state)
    state[LAST_LOTTERY] = number
    winner = _ticket_holder(state, number)
    won = state[POT]
    state[CASH + winner] += won
    state[POT] = 0
    _event(state, EV_FINAL_WIN, winner, won)
    _game_over(state)


@njit(cache=True)
def _apply_greed_roll(state: np.ndarray, face: int) -> None:
    state[GREED_ROLLS] += 1
    total = greed_roll(state[GREED_TOTAL], face)
    if total == BUST:  # a 1: nothing at all, the turn is over
        _event(state, EV_GREED_BUST, state[CURRENT], 0)
        _end_turn(state)
        return
    state[GREED_TOTAL] = total
    state[PHASE] = PHASE_GREED_DECIDE


@njit(cache=True, inline="always")
def _lucky_money_left(state: np.ndarray) -> int:
    total = 0
    for i in range(MAX_PLAYERS * NUM_LUCKY):
        total += state[LUCKY + i]
    return total


@njit(cache=True)
def _apply_lucky_roll(state: np.ndarray, total: int) -> None:
    """One Lucky Dice roll: a 7 gives the mover all money on the numbers (the end); a number with money on it pays
    its owners the odds (in seat order from the mover) and their money goes back to them; 2, 3, 11, 12 pay the
    mover; anything else (a number already paid, or with nothing on it) is rolled again."""
    n = state[NUM_PLAYERS]
    mover = state[CURRENT]
    if total == 7:
        swept = 0
        for i in range(MAX_PLAYERS * NUM_LUCKY):
            swept += state[LUCKY + i]
            state[LUCKY + i] = 0
        state[CASH + mover] += swept
        _event(state, EV_LUCKY_SEVEN, mover, swept)
        _end_turn(state)
        return
    k = LUCKY_INDEX[total]
    if k < 0:
        paid = _from_pile(state, mover, state[FIELD_PAY])
        _event(state, EV_LUCKY_ROLL, mover, paid)
    else:
        odds = state[LUCKY_ODDS + k]
        paid = 0
        for j in range(n):
            seat = (mover + j) % n
            money = state[LUCKY + seat * NUM_LUCKY + k]
            if money > 0:
                state[LUCKY + seat * NUM_LUCKY + k] = 0
                state[CASH + seat] += money
                paid += _from_pile(state, seat, odds * money)
        _event(state, EV_LUCKY_ROLL, -1, paid)
    if state[PILE] == 0:
        _start_final(state)
    elif _lucky_money_left(state) == 0:
        _event(state, EV_LUCKY_CLEARED, mover, 0)
        _end_turn(state)


@njit(cache=True)
def _apply_move(state: np.ndarray, steps: int) -> None:
    """The pawn moves ``steps`` spaces clockwise; each Easy Money space passed pays the mover; the space acts."""
    ns = state[NUM_SPACES]
    pos = state[PAWN]
    passes = 0
    for s in range(1, steps):
        if state[SPACES + (pos + s) % ns] == SPACE_EASY_MONEY:
            passes += 1
    pos = (pos + steps) % ns
    state[PAWN] = pos
    state[LAST_SPACE] = pos
    state[LAST_PASSES] = passes
    if passes > 0:
        _from_pile(state, state[CURRENT], passes * state[PASS_PAY])
        if state[PILE] == 0:
            _start_final(state)
            return
    _land(state, state[SPACES + pos])


@njit(cache=True, inline="always")
def check_outcome(state: np.ndarray, outcome: np.ndarray) -> int:
    """0, or why an injected outcome is refused (``OUTCOME_WORDS``)."""
    phase = state[PHASE]
    if phase == PHASE_SHUFFLE_TICKETS or phase == PHASE_SHUFFLE_JACKPOT or phase == PHASE_SHUFFLE_WALL:
        d = _shuffle_size(state)
        if outcome.shape[0] < d:
            return OUTCOME_NOT_A_PERMUTATION
        seen = 0
        for i in range(d):
            c = outcome[i]
            if c < 0 or c >= d or (seen >> c) & 1:
                return OUTCOME_NOT_A_PERMUTATION
            seen |= 1 << c
        return OUTCOME_OK
    if phase == PHASE_FINAL:
        if outcome.shape[0] < FINAL_OUTCOME or bad_faces(3, outcome):
            return OUTCOME_BAD_FACE
        if outcome[3] < 0 or outcome[3] > MAX_FINAL_ROUNDS:
            return OUTCOME_FINAL_BAD_ROUNDS
        number = 100 * (outcome[0] + 1) + 10 * (outcome[1] + 1) + outcome[2] + 1
        return OUTCOME_OK if _ticket_holder(state, number) >= 0 else OUTCOME_FINAL_NO_HOLDER
    k = dice_needed(state)
    if k == 0:
        return OUTCOME_NOT_CHANCE
    if outcome.shape[0] < k or bad_faces(k, outcome):
        return OUTCOME_BAD_FACE
    return OUTCOME_OK


@njit(cache=True, inline="always")
def apply_outcome(state: np.ndarray, outcome: np.ndarray) -> None:
    """Play the pending chance event's outcome (check it with ``check_outcome`` first if it was injected)."""
    phase = state[PHASE]
    if phase <= PHASE_SHUFFLE_WALL:
        _apply_shuffle(state, outcome)
    elif phase == PHASE_ROLLOFF:
        _apply_rolloff(state, outcome)
    elif phase == PHASE_MOVE:
        _apply_move(state, _record_dice(state, outcome, 2))
    elif phase == PHASE_CASH_ROLL:
        pips = _record_dice(state, outcome, 2)
        paid = _from_pile(state, state[CURRENT], pips)
        _event(state, EV_CASH_ROLL, state[CURRENT], paid)
        _end_turn(state)
    elif phase == PHASE_LOTTERY:
        _record_dice(state, outcome, 3)
        _apply_lottery(state)
    elif phase == PHASE_FINAL:
        _record_dice(state, outcome, 3)
        _apply_final(state, outcome[3])
    elif phase == PHASE_GREED_ROLL:
        _record_dice(state, outcome, 1)
        _apply_greed_roll(state, outcome[0])
    elif phase == PHASE_LUCKY_ROLL:
        _apply_lucky_roll(state, _record_dice(state, outcome, 2))


# --- the spaces


@njit(cache=True)
def _double(state: np.ndarray) -> None:
    """Every stake is paid its amount (plus a kept bonus) from the pile, in seat order from the mover; every player
    without a stake pays the penalty to the pot (unless they keep the no-penalty card)."""
    n = state[NUM_PLAYERS]
    paid = 0
    for k in range(n):
        seat = (state[CURRENT] + k) % n
        if state[STAKE + seat] > 0:
            paid += _from_pile(state, seat, state[STAKE + seat] + state[BONUS + seat])
        elif state[NO_PENALTY + seat] == 0:
            _to_pot(state, seat, state[PENALTY])
    _event(state, EV_DOUBLE, -1, paid)
    _end_turn(state)


@njit(cache=True)
def _nothing(state: np.ndarray) -> None:
    """Every stake goes to the pot; every player without a stake pays the penalty (unless they keep the card)."""
    n = state[NUM_PLAYERS]
    lost = 0
    for k in range(n):
        seat = (state[CURRENT] + k) % n
        stake = state[STAKE + seat]
        if stake > 0:
            state[POT] += stake
            state[STAKE + seat] = 0
            lost += stake
        elif state[NO_PENALTY + seat] == 0:
            lost += _to_pot(state, seat, state[PENALTY])
    _event(state, EV_NOTHING, -1, lost)
    _end_turn(state)


@njit(cache=True)
def _jackpot(state: np.ndarray) -> None:
    """The mover draws the top Mystery Jackpot card and follows it; it goes to the bottom unless it is kept."""
    mover = state[CURRENT]
    count = state[NUM_JACKPOT]
    if state[JP_LEN] == 0:  # every card is kept by someone: nothing to draw
        state[LAST_CARD] = -1
        _event(state, EV_JACKPOT, mover, 0)
        _end_turn(state)
        return
    card = state[JP_DECK + state[JP_HEAD]]
    state[JP_HEAD] = (state[JP_HEAD] + 1) % count
    state[JP_LEN] -= 1
    state[LAST_CARD] = card
    kind = state[JP_KIND + card]
    amount = state[JP_AMOUNT + card]
    moved = 0
    kept = False
    if kind == CARD_COLLECT:
        moved = _from_pile(state, mover, amount)
    elif kind == CARD_PAY:
        moved = _to_pot(state, mover, amount)
    elif kind == CARD_COLLECT_FROM_EACH:
        n = state[NUM_PLAYERS]
        for k in range(1, n):
            other = (mover + k) % n
            got = min(amount, state[CASH + other])
            state[CASH + other] -= got
            state[CASH + mover] += got
            moved += got
    elif kind == CARD_TICKET:
        if state[TICKET_TOP] < state[NUM_TICKETS]:
            _draw_ticket(state, mover)
        else:
            moved = _from_pile(state, mover, amount)
    elif kind == CARD_KEEP_NO_PENALTY:
        state[NO_PENALTY + mover] = 1
        kept = True
    else:  # CARD_KEEP_DOUBLE_BONUS
        state[BONUS + mover] += amount
        kept = True
    if kept:
        state[JP_OWNER + card] = mover
    else:
        state[JP_DECK + (state[JP_HEAD] + state[JP_LEN]) % count] = card
        state[JP_LEN] += 1
    _event(state, EV_JACKPOT, mover, moved)
    _end_turn(state)


@njit(cache=True)
def _lowest_ticket_of(state: np.ndarray, seat: int) -> int:
    for t in range(state[NUM_TICKETS]):
        if state[TICKET_OWNER + t] == seat:
            return t
    return -1


@njit(cache=True)
def _steal(state: np.ndarray, victim: int) -> None:
    """The mover takes ``victim``'s ticket that comes first in the ticket file (tickets are equal chances)."""
    t = _lowest_ticket_of(state, victim)
    mover = state[CURRENT]
    state[TICKET_OWNER + t] = mover
    state[TICKETS_HELD + victim] -= 1
    state[TICKETS_HELD + mover] += 1
    state[LAST_STEAL] = victim


@njit(cache=True)
def _lottery_space(state: np.ndarray) -> None:
    """One more ticket for the mover (from the deck; if it is empty, from a player of their choice), then the draw."""
    mover = state[CURRENT]
    state[LAST_STEAL] = -1
    if state[TICKET_TOP] < state[NUM_TICKETS]:
        _draw_ticket(state, mover)
        state[PHASE] = PHASE_LOTTERY
        return
    n = state[NUM_PLAYERS]
    holders = 0
    victim = -1
    for k in range(1, n):
        seat = (mover + k) % n
        if state[TICKETS_HELD + seat] > 0:
            holders += 1
            victim = seat
    if holders == 1:  # no choice to make
        _steal(state, victim)
    if holders >= 2:
        state[PHASE] = PHASE_STEAL
    else:  # taken, or no other player holds a ticket: the draw
        state[PHASE] = PHASE_LOTTERY


@njit(cache=True)
def _greed_space(state: np.ndarray) -> None:
    state[GREED_TOTAL] = 0
    state[GREED_ROLLS] = 0
    n = state[NUM_PLAYERS]
    if n == 2:  # the only other player
        state[GREED_TARGET] = (state[CURRENT] + 1) % n
        state[PHASE] = PHASE_GREED_ROLL
    else:
        state[GREED_TARGET] = -1
        state[PHASE] = PHASE_GREED_NAME


@njit(cache=True)
def _wall_from(state: np.ndarray, k: int) -> None:
    """Wall Street bets from the seat ``k`` on from the mover: the next seat with cash bets; after the last, the
    card is turned: bets against its news go to the pot, bets on it come back with odds x bet from the pile."""
    n = state[NUM_PLAYERS]
    mover = state[CURRENT]
    for kk in range(k, n):
        seat = (mover + kk) % n
        if state[CASH + seat] >= state[MIN_WAD]:
            state[ROUND_K] = kk
            state[ACTOR] = seat
            state[PHASE] = PHASE_WALL_BET
            return
    card = state[WS_CARD]
    news = state[WS_NEWS + card] + 1
    odds = state[WS_ODDS + card]
    paid = 0
    for kk in range(n):
        seat = (mover + kk) % n
        side = state[WS_SIDE + seat]
        bet = state[WS_BET + seat]
        if side == 0:
            continue
        if side == news:
            state[CASH + seat] += bet
            paid += _from_pile(state, seat, odds * bet)
        else:
            state[POT] += bet
        state[WS_SIDE + seat] = 0
        state[WS_BET + seat] = 0
    state[WS_HEAD] = (state[WS_HEAD] + 1) % state[NUM_WALL]
    state[ACTOR] = mover
    _event(state, EV_WALL_STREET, -1, paid)
    _end_turn(state)


@njit(cache=True)
def _lucky_from(state: np.ndarray, k: int) -> None:
    """Lucky Dice wads from the seat ``k`` on from the mover (k >= 1: the mover does not bet); then the rolling,
    if any money is on the numbers."""
    n = state[NUM_PLAYERS]
    mover = state[CURRENT]
    for kk in range(k, n):
        seat = (mover + kk) % n
        if state[CASH + seat] >= state[MIN_WAD]:
            state[ROUND_K] = kk
            state[ACTOR] = seat
            state[LUCKY_WADS] = 0
            state[PHASE] = PHASE_LUCKY_BET
            return
    state[ACTOR] = mover
    if _lucky_money_left(state) > 0:
        state[PHASE] = PHASE_LUCKY_ROLL
    else:
        _event(state, EV_LUCKY_NO_BETS, mover, 0)
        _end_turn(state)


@njit(cache=True)
def _land(state: np.ndarray, kind: int) -> None:
    if kind == SPACE_DOUBLE:
        _double(state)
    elif kind == SPACE_NOTHING:
        _nothing(state)
    elif kind == SPACE_EASY_MONEY:
        paid = _from_pile(state, state[CURRENT], state[LAND_PAY])
        _event(state, EV_EASY_MONEY, state[CURRENT], paid)
        _end_turn(state)
    elif kind == SPACE_JACKPOT:
        _jackpot(state)
    elif kind == SPACE_LOTTERY or kind == SPACE_PURPLE_LOTTERY:
        _lottery_space(state)
    elif kind == SPACE_GREED:
        _greed_space(state)
    elif kind == SPACE_WALL_STREET:
        state[WS_CARD] = state[WS_DECK + state[WS_HEAD]]
        _wall_from(state, 0)
    else:  # SPACE_LUCKY_DICE
        _lucky_from(state, 1)


# --- decisions


@njit(cache=True, inline="always")
def _allowed(state: np.ndarray, seat: int, phase: int, action: int) -> bool:
    """``action`` is legal for the deciding ``seat`` in decision ``phase``."""
    n = state[NUM_PLAYERS]
    if phase == PHASE_STAKE:
        if action == ACT_STAKE_NONE:
            return True
        if action < ACT_STAKE + NUM_BETS:
            return state[BET_AMOUNTS + action - ACT_STAKE] <= state[CASH + seat] + state[STAKE + seat]
        return False
    if phase == PHASE_WALL_BET:
        if ACT_WALL <= action < ACT_WALL + 2 * NUM_BETS:
            return state[BET_AMOUNTS + (action - ACT_WALL) % NUM_BETS] <= state[CASH + seat]
        return False
    if phase == PHASE_LUCKY_BET:
        if ACT_LUCKY <= action < ACT_LUCKY_STOP:
            return state[WADS + (action - ACT_LUCKY) % NUM_WADS] <= state[CASH + seat]
        return action == ACT_LUCKY_STOP and state[LUCKY_WADS] > 0
    if phase == PHASE_GREED_DECIDE:
        return action == ACT_GREED_ROLL or action == ACT_GREED_STOP
    if phase == PHASE_BROKE:
        return action == ACT_MOVE or action == ACT_CASH_ROLL
    if phase == PHASE_GREED_NAME:
        return ACT_NAME <= action < ACT_NAME + n - 1
    if phase == PHASE_STEAL:
        if ACT_STEAL <= action < ACT_STEAL + n - 1:
            return state[TICKETS_HELD + (seat + action - ACT_STEAL + 1) % n] > 0
    return False


@njit(cache=True, inline="always")
def to_act(state: np.ndarray) -> int:
    phase = state[PHASE]
    if PHASE_DECIDES[phase]:
        return state[ACTOR]
    return NOBODY if phase == PHASE_OVER else CHANCE


@njit(cache=True, inline="always")
def is_legal(state: np.ndarray, seat: int, action: int) -> bool:
    phase = state[PHASE]
    if action < 0 or action >= NUM_ACTIONS or not PHASE_DECIDES[phase] or seat != state[ACTOR]:
        return False
    return _allowed(state, seat, phase, action)


@njit(cache=True, inline="always")
def legal_mask(state: np.ndarray, seat: int, mask: np.ndarray) -> None:
    """``seat``'s action mask (all zero unless it decides now)."""
    mask[:] = 0
    phase = state[PHASE]
    if not PHASE_DECIDES[phase] or seat != state[ACTOR]:
        return
    if phase == PHASE_STAKE:
        budget = state[CASH + seat] + state[STAKE + seat]
        mask[ACT_STAKE_NONE] = 1
        for b in range(NUM_BETS):
            mask[ACT_STAKE + b] = state[BET_AMOUNTS + b] <= budget
    elif phase == PHASE_WALL_BET:
        cash = state[CASH + seat]
        for b in range(NUM_BETS):
            ok = state[BET_AMOUNTS + b] <= cash
            mask[ACT_WALL + b] = ok
            mask[ACT_WALL + NUM_BETS + b] = ok
    elif phase == PHASE_LUCKY_BET:
        cash = state[CASH + seat]
        for w in range(NUM_WADS):
            ok = state[WADS + w] <= cash
            for k in range(NUM_LUCKY):
                mask[ACT_LUCKY + NUM_WADS * k + w] = ok
        mask[ACT_LUCKY_STOP] = state[LUCKY_WADS] > 0
    else:
        for a in range(ACT_LUCKY_STOP + 1, NUM_ACTIONS):
            mask[a] = _allowed(state, seat, phase, a)


@njit(cache=True, inline="always")
def apply_action(state: np.ndarray, seat: int, action: int) -> int:
    """Play ``seat``'s legal action (check ``is_legal`` first); returns 0."""
    phase = state[PHASE]
    n = state[NUM_PLAYERS]
    if phase == PHASE_STAKE:
        new = 0 if action == ACT_STAKE_NONE else state[BET_AMOUNTS + action - ACT_STAKE]
        state[CASH + seat] += state[STAKE + seat] - new
        state[STAKE + seat] = new
        _stake_from(state, state[ROUND_K] + 1)
    elif phase == PHASE_WALL_BET:
        side = (action - ACT_WALL) // NUM_BETS
        bet = state[BET_AMOUNTS + (action - ACT_WALL) % NUM_BETS]
        state[CASH + seat] -= bet
        state[WS_BET + seat] = bet
        state[WS_SIDE + seat] = side + 1
        _wall_from(state, state[ROUND_K] + 1)
    elif phase == PHASE_LUCKY_BET:
        if action == ACT_LUCKY_STOP:
            _lucky_from(state, state[ROUND_K] + 1)
        else:
            k = (action - ACT_LUCKY) // NUM_WADS
            wad = state[WADS + (action - ACT_LUCKY) % NUM_WADS]
            state[CASH + seat] -= wad
            state[LUCKY + seat * NUM_LUCKY + k] += wad
            state[LUCKY_WADS] += 1
            if state[LUCKY_WADS] >= 2 or state[CASH + seat] < state[MIN_WAD]:
                _lucky_from(state, state[ROUND_K] + 1)
    elif phase == PHASE_GREED_DECIDE:
        if action == ACT_GREED_ROLL:
            state[PHASE] = PHASE_GREED_ROLL
        else:
            target = state[GREED_TARGET]
            paid = greed_payout(state[GREED_TOTAL], state[CASH + target])
            if paid > 0:
                state[CASH + target] -= paid
                state[CASH + seat] += paid
                _event(state, EV_GREED_PAID, seat, paid)
            else:
                _event(state, EV_GREED_TOO_MUCH, seat, 0)
            _end_turn(state)
    elif phase == PHASE_BROKE:
        state[PHASE] = PHASE_MOVE if action == ACT_MOVE else PHASE_CASH_ROLL
    elif phase == PHASE_GREED_NAME:
        state[GREED_TARGET] = (seat + action - ACT_NAME + 1) % n
        state[PHASE] = PHASE_GREED_ROLL
    elif phase == PHASE_STEAL:
        _steal(state, (seat + action - ACT_STEAL + 1) % n)
        state[PHASE] = PHASE_LOTTERY
    return 0


# --- status, rewards, observation


@njit(cache=True, inline="always")
def status(state: np.ndarray) -> int:
    if state[PHASE] != PHASE_OVER:
        return PLAYING
    return TRUNCATED_STATUS if state[TRUNCATED] else TERMINATED


@njit(cache=True, inline="always")
def current_seat(state: np.ndarray) -> int:
    """Whose turn it is (also at the end: the mover of the last turn)."""
    return state[CURRENT]


@njit(cache=True, inline="always")
def potentials(state: np.ndarray, out: np.ndarray) -> None:
    """Each seat's (cash + stake - its money at the start) / 100: ``reward="money"``'s shaping potential."""
    for seat in range(state[NUM_PLAYERS]):
        out[seat] = (money_of(state, seat) - state[START_MONEY]) / MONEY_SCALE


@njit(cache=True, inline="always")
def shaping_potentials(state: np.ndarray, out: np.ndarray) -> None:
    """The contract's shaping hook (0 in a new game); the faces pay each step's change, and the end the final reward
    minus it. ``reward="money"``: the potentials, so a seat's return is its final money change / 100. ``"win"``
    with ``shaping``: each seat's lead, (its money - the most any other seat has) / 100, so a return is still the
    +-1 of the end. Else 0."""
    mode = state[REWARD_MODE]
    if mode == REWARD_MONEY:
        potentials(state, out)
    elif mode == REWARD_WIN_SHAPED:
        n = state[NUM_PLAYERS]
        for seat in range(n):
            best = -(1 << 30)
            for other in range(n):
                if other != seat:
                    best = max(best, money_of(state, other))
            out[seat] = (money_of(state, seat) - best) / MONEY_SCALE
    else:
        out[:] = 0.0


@njit(cache=True, inline="always")
def rewards(state: np.ndarray, out: np.ndarray) -> None:
    """At the end: ``reward="win"``: +1 each winner, -1 the others (0 for all after truncation; with ``zero_sum``
    +1/k each of the k winners, -1/(P-k) the others); ``"money"``: the potentials (also after truncation). 0 while
    playing."""
    out[:] = 0.0
    if state[PHASE] != PHASE_OVER:
        return
    if state[REWARD_MODE] == REWARD_MONEY:
        potentials(state, out)
        return
    if state[TRUNCATED]:
        return
    if state[ZERO_SUM]:
        zero_sum_rewards(state[WINNERS], state[NUM_PLAYERS], out)
        return
    for seat in range(state[NUM_PLAYERS]):
        out[seat] = 1.0 if (state[WINNERS] >> seat) & 1 else -1.0


@njit(cache=True, inline="always")
def observe(state: np.ndarray, seat: int, out: np.ndarray) -> None:
    """The game from ``seat``'s side (README.md): every slot in [0, 1]; seats in relative order, ``seat`` first.

    Money is scaled by one reciprocal of the supply, and the ring positions step without a modulo: a division or a
    modulo costs ~10x a multiply, and this runs once per decision (Ea$y Money's batched step, issue 25)."""
    out[:] = 0.0
    n = state[NUM_PLAYERS]
    phase = state[PHASE]
    per_unit = 1.0 / state[SUPPLY]
    out[OBS_PHASE + phase] = 1.0
    deciding = PHASE_DECIDES[phase] != 0 and state[ACTOR] == seat
    out[OBS_TO_ACT] = 1.0 if deciding else 0.0
    out[OBS_POT] = state[POT] * per_unit
    out[OBS_PILE] = state[PILE] * per_unit
    ns = state[NUM_SPACES]
    pawn = state[PAWN]
    out[OBS_PAWN] = pawn / ns
    space = pawn + 1 if pawn + 1 < ns else pawn + 1 - ns
    for i in range(AHEAD):
        out[OBS_AHEAD + NUM_SPACE_TYPES * i + state[SPACES + space]] = 1.0
        space = space + 1 if space + 1 < ns else 0
    per_ticket = 1.0 / state[NUM_TICKETS]
    out[OBS_DECK_TICKETS] = (state[NUM_TICKETS] - state[TICKET_TOP]) * per_ticket
    out[OBS_TURN] = min(state[TURN], state[MAX_TURNS]) / state[MAX_TURNS]
    greed = phase == PHASE_GREED_NAME or phase == PHASE_GREED_ROLL or phase == PHASE_GREED_DECIDE
    target = state[GREED_TARGET]
    if greed:
        total = state[GREED_TOTAL]
        out[OBS_GREED_TOTAL] = min(total, GREED_SCALE) / GREED_SCALE
        if target >= 0:
            cash = state[CASH + target]
            out[OBS_GREED_CASH] = cash * per_unit
            out[OBS_GREED_CASH_100] = min(cash, GREED_SCALE) / GREED_SCALE
            out[OBS_GREED_COVERED] = 1.0 if total <= cash else 0.0
    if phase == PHASE_WALL_BET:
        out[OBS_WALL_TIP + state[WS_TIP + state[WS_CARD]]] = 1.0
    if phase == PHASE_LUCKY_BET and state[LUCKY_WADS] > 0:
        out[OBS_LUCKY_SECOND] = 1.0
    started = state[TURN] > 0
    over = phase == PHASE_OVER and state[TRUNCATED] == 0
    actor = state[ACTOR] if PHASE_DECIDES[phase] != 0 else -1
    s = seat
    for r in range(n):
        base = OBS_SEATS + SEAT_FEATURES * r
        out[base + SEAT_CASH] = state[CASH + s] * per_unit
        out[base + SEAT_STAKE] = state[STAKE + s] * per_unit
        out[base + SEAT_TICKETS] = state[TICKETS_HELD + s] * per_ticket
        out[base + SEAT_NO_PENALTY] = state[NO_PENALTY + s]
        out[base + SEAT_BONUS] = min(state[BONUS + s], 10) / 10.0
        out[base + SEAT_MOVER] = 1.0 if started and s == state[CURRENT] else 0.0
        out[base + SEAT_ACTOR] = 1.0 if s == actor else 0.0
        out[base + SEAT_GREED_TARGET] = 1.0 if greed and s == target else 0.0
        side = state[WS_SIDE + s]
        if side > 0:
            out[base + SEAT_WALL_UP + side - 1] = state[WS_BET + s] * per_unit
        for k in range(NUM_LUCKY):
            out[base + SEAT_LUCKY + k] = state[LUCKY + s * NUM_LUCKY + k] * per_unit
        out[base + SEAT_WINNER] = 1.0 if over and (state[WINNERS] >> s) & 1 else 0.0
        s = s + 1 if s + 1 < n else 0
    if state[GREED_FEATURES] != 0 and phase == PHASE_GREED_DECIDE:
        _greed_features(state, OBS_SEATS + SEAT_FEATURES * n, out)


@njit(cache=True)
def _greed_features(state: np.ndarray, base: int, out: np.ndarray) -> None:
    """The Greed values at ``out[base:]`` (``GREED_ROLL_VALUE`` ...): not inlined, as they are needed only at a
    Greed decision."""
    roll, stop = greed_values(state[GREED_TOTAL], state[CASH + state[GREED_TARGET]])
    scale = float(GREED_SCALE)
    out[base + GREED_ROLL_VALUE] = min(roll, scale) / scale
    out[base + GREED_STOP_VALUE] = min(stop, scale) / scale
    out[base + GREED_ROLL_BETTER] = 1.0 if roll > stop else 0.0


# --- chance through the contract


_splitmix = splitmix  # SplitMix64 (dicearena.envs.common.streams): the next generator state and its output word


@njit(cache=True, inline="always")
def shuffle_into(key: int, d: int, outcome: np.ndarray) -> None:
    """A uniform permutation of 0..d-1 into ``outcome[:d]`` (Fisher-Yates over SplitMix64 from ``key``; the modulo
    bias is below 2**-58); the rest of ``outcome`` zero."""
    for i in range(outcome.shape[0]):
        outcome[i] = i if i < d else 0
    x = np.uint64(key)
    for i in range(d - 1, 0, -1):
        x, z = _splitmix(x)
        j = np.int64(z % np.uint64(i + 1))
        c = outcome[i]
        outcome[i] = outcome[j]
        outcome[j] = c


@njit(cache=True)
def draw_final(state: np.ndarray, key: int, outcome: np.ndarray) -> None:
    """The Final Lottery from one word: rounds of three dice (SplitMix64 from ``key``) until a number some player
    holds; ``outcome[:3]`` its faces, ``outcome[3]`` the rounds before it (at most ``MAX_FINAL_ROUNDS``: then the
    first held ticket wins, a case of probability below 1e-400)."""
    outcome[:] = 0
    x = np.uint64(key)
    six = np.uint64(NUM_FACES)
    for rounds in range(MAX_FINAL_ROUNDS + 1):
        x, z = _splitmix(x)
        r = np.int64(z % six)
        x, z = _splitmix(x)
        w = np.int64(z % six)
        x, z = _splitmix(x)
        b = np.int64(z % six)
        if _ticket_holder(state, 100 * (r + 1) + 10 * (w + 1) + b + 1) >= 0:
            outcome[0], outcome[1], outcome[2], outcome[3] = r, w, b, rounds
            return
    for t in range(state[NUM_TICKETS]):
        if state[TICKET_OWNER + t] >= 0:
            number = state[TICKET_NUMBER + t]
            outcome[0], outcome[1], outcome[2] = number // 100 - 1, number // 10 % 10 - 1, number % 10 - 1
            outcome[3] = MAX_FINAL_ROUNDS
            return


@njit(cache=True, inline="always")
def chance_words(state: np.ndarray) -> int:
    """Random words the pending chance event uses: one per die, one for a shuffle or the Final Lottery; 0 off
    chance nodes."""
    if _shuffle_size(state) > 0 or state[PHASE] == PHASE_FINAL:
        return 1
    return dice_needed(state)


@njit(cache=True, inline="always")
def draw_outcome(state: np.ndarray, words: np.ndarray, outcome: np.ndarray) -> None:
    """Dice: face = word mod 6; a shuffle: the permutation of one word's SplitMix64 stream; the Final Lottery:
    ``draw_final``."""
    d = _shuffle_size(state)
    if d > 0:
        shuffle_into(words[0], d, outcome)
    elif state[PHASE] == PHASE_FINAL:
        draw_final(state, words[0], outcome)
    else:
        draw_faces(dice_needed(state), words, outcome)


@njit(cache=True)
def enumerate_outcomes(state: np.ndarray, outcomes: np.ndarray, probs: np.ndarray) -> int:
    """Every roll of the pending dice event (6**k rolls, probability 6**-k each); -1 at a shuffle (d! orders), at the
    Final Lottery (any number of rounds), off a chance node, or if ``outcomes`` is too small."""
    if _shuffle_size(state) > 0:
        return -1
    k = dice_needed(state)
    count = NUM_FACES**k
    if k == 0 or outcomes.shape[0] < count or outcomes.shape[1] < k:
        return -1
    for code in range(count):
        rest = code
        outcomes[code, :] = 0
        for i in range(k - 1, -1, -1):
            outcomes[code, i] = rest % NUM_FACES
            rest //= NUM_FACES
        probs[code] = 1.0 / count
    return count


@njit(cache=True, inline="always")
def _redeal(state: np.ndarray, base: int, head: int, length: int, count: int, key: int, perm: np.ndarray) -> None:
    """The cards in the ``length`` ring slots ``state[base + (head + i) % count]`` sorted, then laid out in the order
    of ``shuffle_into``'s permutation from ``key``: the result depends on which cards they are, not their order."""
    cards = np.empty(length, dtype=np.int32)
    for i in range(length):
        cards[i] = state[base + (head + i) % count]
    cards.sort()
    shuffle_into(key, length, perm)
    for i in range(length):
        state[base + (head + i) % count] = cards[perm[i]]


@njit(cache=True, inline="always")
def _next_key(x: np.uint64) -> tuple[np.uint64, int]:
    """The stream's next state and a non-negative word from it."""
    x, z = _splitmix(x)
    return x, np.int64(z >> np.uint64(1))


@njit(cache=True)
def resample_hidden(state: np.ndarray, key: int) -> None:
    """A state every player could equally be in (OpenSpiel's ``resample_from_infostate``, for search): the three
    face-down decks re-dealt from one word's SplitMix64 stream. Tickets still in the deck and the Jackpot cards not
    kept are shuffled; the Wall Street ring too, except that while its bets are placed the card in play keeps its
    shown Stock Tip (it becomes any card with that tip, equally likely). Cash, tickets held, kept cards and the
    board stay: they are on the table. (Cards seen and put back under a deck are treated as forgotten.) The redraw
    depends on the key and on what the players see only: two states that differ in hidden order give the same."""
    x = np.uint64(key)
    tickets, wall = state[NUM_TICKETS], state[NUM_WALL]
    perm = np.empty(max(tickets, state[NUM_JACKPOT], wall), dtype=np.int32)
    x, k = _next_key(x)
    _redeal(state, TICKET_DECK, state[TICKET_TOP], tickets - state[TICKET_TOP], tickets, k, perm)
    x, k = _next_key(x)
    _redeal(state, JP_DECK, state[JP_HEAD], state[JP_LEN], state[NUM_JACKPOT], k, perm)
    x, k = _next_key(x)
    _redeal(state, WS_DECK, 0, wall, wall, k, perm)
    if state[PHASE] == PHASE_WALL_BET:
        tip = state[WS_TIP + state[WS_CARD]]
        same = 0
        for i in range(wall):
            same += state[WS_TIP + state[WS_DECK + i]] == tip
        x, k = _next_key(x)
        pick = k % same
        for i in range(wall):
            if state[WS_TIP + state[WS_DECK + i]] == tip:
                if pick == 0:
                    top = WS_DECK + state[WS_HEAD]
                    state[top], state[WS_DECK + i] = state[WS_DECK + i], state[top]
                    break
                pick -= 1
        state[WS_CARD] = state[WS_DECK + state[WS_HEAD]]


# --- the contract's plain-Python side: sizes and header from a config


def sizes(config) -> Sizes:
    """Array lengths under ``config`` (an EasyMoneyConfig)."""
    data = config.data()
    n = config.num_players
    outcome = outcome_size(n, len(data.tickets), len(data.jackpot), len(data.wall_street))
    return Sizes(n, STATE_SIZE, observation_size(n, config.greed_features), NUM_ACTIONS, outcome, max(3, n))


def header(config) -> np.ndarray:
    """Every rule knob, the board and the decks (``init_state`` copies it into the state's header)."""
    data = config.data()
    head = np.zeros(HEADER_SIZE, dtype=np.int32)
    wads = config.wad_values
    head[NUM_PLAYERS] = config.num_players
    head[MAX_TURNS] = config.max_turns
    head[REWARD_MODE] = (REWARD_MONEY if config.reward == "money" else
                         REWARD_WIN_SHAPED if config.shaping else REWARD_WIN)  # fmt: skip
    head[FIRST_PLAYER] = -1 if config.first_player is None else config.first_player
    head[ZERO_SUM] = int(config.zero_sum)
    head[GREED_FEATURES] = int(config.greed_features)
    head[FINAL_LOTTERY] = int(config.final_lottery)
    head[SUPPLY] = config.supply
    head[POT_START] = config.pot_start
    head[REFILL] = config.lottery_refill
    head[PENALTY] = config.penalty
    head[PASS_PAY] = config.pass_pay
    head[LAND_PAY] = config.land_pay
    head[FINAL_ANTE] = config.final_ante
    head[FIELD_PAY] = config.lucky_dice_field_pay
    head[START_MONEY] = config.start_money
    head[MIN_WAD] = min(wads)
    head[NUM_SPACES] = len(data.spaces)
    head[NUM_TICKETS] = len(data.tickets)
    head[NUM_JACKPOT] = len(data.jackpot)
    head[NUM_WALL] = len(data.wall_street)
    head[WADS : WADS + NUM_WADS] = wads
    head[BET_AMOUNTS : BET_AMOUNTS + NUM_BETS] = bet_amounts(wads)
    head[LUCKY_ODDS : LUCKY_ODDS + NUM_LUCKY] = config.lucky_dice_odds
    head[SPACES : SPACES + len(data.spaces)] = data.spaces
    head[TICKET_NUMBER : TICKET_NUMBER + len(data.tickets)] = data.tickets
    for i, card in enumerate(data.jackpot):
        head[JP_KIND + i] = card.kind
        head[JP_AMOUNT + i] = card.amount
    for i, card in enumerate(data.wall_street):
        head[WS_TIP + i] = card.tip
        head[WS_NEWS + i] = card.news
        head[WS_ODDS + i] = card.odds
    return head


def bet_amounts(wads) -> list[int]:
    """Each of the 14 bets' amount under wad values ``wads`` (by colour)."""
    return [wads[a] + (wads[b] if b >= 0 else 0) for a, b in BET_WADS]


# --- words (for the game spec's describe_action / explain_illegal / explain_outcome / action_help)


def bet_words(b: int, wads=(1, 2, 5, 10)) -> str:
    a, c = BET_WADS[b]
    names = WAD_NAMES[a] if c < 0 else f"{WAD_NAMES[a]} + {WAD_NAMES[c]}"
    return f"{names} ({bet_amounts(wads)[b]})"


_PAYOUT = getattr(greed_payout, "py_func", greed_payout)  # the rule's Python function (no compile to word a move)


def describe_action(config, state: np.ndarray | None, action: int) -> str:
    """Human wording of an action id, e.g. ``stake purple + green (6)`` or ``Wall Street DOWN: blue (10)``. Wad
    values come from the state's header, else the config, else the defaults. With a state at a decision the words
    also name the players (``take a ticket from player_2 ...``) and what Greed's stop collects, what a player
    choosing needs."""
    if state is not None:
        wads = tuple(int(w) for w in state[WADS : WADS + NUM_WADS])
    else:
        wads = tuple(config.wad_values) if config is not None else (1, 2, 5, 10)
    deciding = state is not None and bool(PHASE_DECIDES[int(state[PHASE])])
    if action == ACT_STAKE_NONE:
        return "no stake"
    if ACT_STAKE <= action < ACT_WALL:
        return f"stake {bet_words(action - ACT_STAKE, wads)}"
    if ACT_WALL <= action < ACT_LUCKY:
        side = "UP" if action - ACT_WALL < NUM_BETS else "DOWN"
        return f"Wall Street {side}: {bet_words((action - ACT_WALL) % NUM_BETS, wads)}"
    if ACT_LUCKY <= action < ACT_LUCKY_STOP:
        k, w = divmod(action - ACT_LUCKY, NUM_WADS)
        return f"Lucky Dice: a {WAD_NAMES[w]} wad ({wads[w]}) on {LUCKY_NUMBERS[k]}"
    if action == ACT_GREED_STOP and deciding:
        total, target = int(state[GREED_TOTAL]), int(state[GREED_TARGET])
        paid = _PAYOUT(total, int(state[CASH + target]))
        return f"Greed: stop and collect {paid} from player_{target} (total {total})"
    if action == ACT_GREED_ROLL and deciding:
        return f"Greed: roll again (total {int(state[GREED_TOTAL])}; a 1 loses it)"
    words = {ACT_LUCKY_STOP: "Lucky Dice: no second wad", ACT_GREED_ROLL: "Greed: roll again",
             ACT_GREED_STOP: "Greed: stop and collect", ACT_MOVE: "out of money: move normally",
             ACT_CASH_ROLL: "out of money: roll for 1 per pip"}  # fmt: skip
    if action in words:
        return words[action]
    if not ACT_STEAL <= action < NUM_ACTIONS:
        return f"action {action} (out of range 0..{NUM_ACTIONS - 1})"
    steal = action < ACT_NAME
    r = action - (ACT_STEAL if steal else ACT_NAME) + 1
    what = "take a ticket from" if steal else "Greed: name"
    if not deciding:
        return f"{what} the player {r} seat(s) to the left"
    target = (int(state[ACTOR]) + r) % int(state[NUM_PLAYERS])
    held = f"{int(state[TICKETS_HELD + target])} tickets" if steal else f"cash {int(state[CASH + target])}"
    return f"{what} player_{target} ({r} seat(s) to the left, {held})"


def action_help(config=None) -> str:
    return (f"actions are 0..{NUM_ACTIONS - 1}: {ACT_STAKE_NONE} no stake, {ACT_STAKE}-{ACT_WALL - 1} stake bet "
            f"0-13, {ACT_WALL}-{ACT_WALL + NUM_BETS - 1} Wall Street UP bet 0-13, {ACT_WALL + NUM_BETS}-"
            f"{ACT_LUCKY - 1} DOWN, {ACT_LUCKY}-{ACT_LUCKY_STOP - 1} Lucky Dice wad (4 x number index + colour), "
            f"{ACT_LUCKY_STOP} no second wad, {ACT_GREED_ROLL} Greed roll, {ACT_GREED_STOP} Greed stop, {ACT_MOVE} "
            f"move, {ACT_CASH_ROLL} cash roll, {ACT_STEAL}-{ACT_NAME - 1} take a ticket from the player 1-3 seats on, "
            f"{ACT_NAME}-{NUM_ACTIONS - 1} Greed names the player 1-3 seats on")  # fmt: skip


def explain_outcome(config, code: int) -> str:
    return OUTCOME_WORDS.get(int(code), f"outcome refused (code {code})")


def explain_illegal(config, state: np.ndarray, seat: int, action: int) -> str:
    """Why ``action`` is not allowed for ``seat`` now, in the rules' words."""
    phase = int(state[PHASE])
    if not PHASE_DECIDES[phase]:
        return "the game is over" if phase == PHASE_OVER else "the game is not waiting for a decision"
    if seat != state[ACTOR]:
        return f"player_{int(state[ACTOR])} decides now ({PHASE_NAMES[phase]})"
    cash = int(state[CASH + seat])
    if phase == PHASE_STAKE:
        if ACT_STAKE_NONE <= action < ACT_WALL:
            return f"the bet needs more than cash {cash} + stake {int(state[STAKE + seat])}"
        return "the stake round takes 'no stake' or a stake bet (ids 0-14)"
    if phase == PHASE_WALL_BET:
        if ACT_WALL <= action < ACT_LUCKY:
            return f"the bet needs more than the player's cash {cash}"
        return f"a Wall Street bet is UP or DOWN with one or two wads (ids {ACT_WALL}-{ACT_LUCKY - 1})"
    if phase == PHASE_LUCKY_BET:
        if action == ACT_LUCKY_STOP:
            return "the first Lucky Dice wad is not optional"
        if ACT_LUCKY <= action < ACT_LUCKY_STOP:
            return f"the wad is worth more than the player's cash {cash}"
        return f"Lucky Dice takes a wad on a number (ids {ACT_LUCKY}-{ACT_LUCKY_STOP - 1}) or {ACT_LUCKY_STOP}"
    if phase == PHASE_STEAL and ACT_STEAL <= action < ACT_NAME:
        return "that player holds no ticket (or there is no such player)"
    return f"{PHASE_NAMES[phase]} takes other actions"
