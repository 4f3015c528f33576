"""Ea$y Money baseline: one fixed, readable rule per decision, read straight off the engine state.

A planning agent (``reads_state = True``): it reads the batched engine's states (``act_states``; in PettingZoo
``act(obs, mask, state=env.state(), seat=)``). Every rule knob, the board and the decks come from the state's
header (``envs/easy_money/engine.py``), so the rules below follow any config, board or deck file. Only what a
player at the table sees is used: the board, the money, the tickets held, the Stock Tip and the decks' contents
(never their order). Legality comes from the action mask. The whole batch is decided by one numba loop.

The rules, by phase (default config numbers in brackets):

- **Stake round** (``PHASE_STAKE``): the 2d6 chances of landing on each space 2..12 ahead of the pawn give
  ``pD`` = P(the coming move lands on a Double) and ``pN`` = P(on a Nothing). Against no stake, a stake of ``s``
  gains ``(pD - pN) s`` (a Double pays ``s``, a Nothing takes it), plus ``pD x bonus`` (a kept bonus card pays only
  a staked player) plus ``(pD + pN) x penalty`` (any stake avoids the penalty on both; 0 with the kept no-penalty
  card; the penalty counts only as far as the cash goes). The gain grows with ``s`` exactly when ``pD > pN``, so:
  ``pD > pN``: the **largest** affordable bet [20]; otherwise the **smallest** [1] if its gain is positive (the
  penalty and the bonus outweigh ``(pN - pD) x 1``); otherwise **no stake**. Stakes rise before Doubles ahead and
  fall before Nothings ahead.
- **Out of money** (``PHASE_BROKE``): the cash roll pays 7 units on average. Moving pays ``pass_pay`` [10] per
  Easy Money space passed and ``land_pay`` [20] for landing on one, a Greed space is worth the optimal sequence
  value against the richest other player (at most 8.14), and every other space is counted as 0 (a broke player
  pays no penalty and cannot bet); move when that expectation over the 2d6 totals beats 7, else the cash roll.
- **Empty ticket deck** (``PHASE_STEAL``): take a ticket from the player holding the most (ties: the nearest to
  the left).
- **Greed, the name** (``PHASE_GREED_NAME``): the richest other player by cash (they can pay the most; ties: the
  nearest to the left).
- **Greed, roll or stop** (``PHASE_GREED_DECIDE``): with ``M`` the named player's cash, stop once the total
  reaches ``min(greed_cap, M - greed_margin)`` [min(20, M - 4)]: 20 is where rolling stops paying even against
  unlimited cash (a roll risks the total for 1/6 and adds 20/6 on average), and 4 is the mean of a roll that does
  not bust, so from ``M - 4`` on the next roll is as likely as not to ask too much. A total already above ``M``
  stops (nothing more can be won). It loses at most 0.41 units per sequence to the exact solver (M = 1..60).
- **Wall Street** (``PHASE_WALL_BET``, the bet is compulsory): from the deck's cards showing this Stock Tip, the
  expected gain per unit of a bet on each side is the mean of ``odds`` (news matches) or ``-1`` (it does not).
  Bet the better side (ties: the tip's side) with the **largest** affordable bet if its gain is positive, else the
  smallest. The default deck: per tip four cards news = tip at 1 to 1 and two news != tip at 2 and 3 to 1, so
  following the tip gains (4 x 1 - 2) / 6 = **+1/3 per unit** (against it: (2 + 3 - 4) / 6 = +1/6): the rule
  follows the tip with 20.
- **Lucky Dice** (``PHASE_LUCKY_BET``): a wad on a number with ``w`` ways to roll it (3, 4, 5, 5, 4, 3 for 4, 5,
  6, 8, 9, 10) is paid if the number comes before a 7 (``w`` ways against 6), so it gains ``(odds x w - 6) / (w +
  6)`` per unit. With the default odds (3, 2, 1, 1, 2, 3 to 1) that is +1/3 on 4 and 10, +1/5 on 5 and 9 and
  **-1/11 on 6 and 8**: the likeliest numbers are the only losing bets. ``lucky="ev"`` (the default) plays the
  gain under the config's odds: the largest affordable wad on the best number (ties: the lower), then, if a
  number of positive gain remains, a second largest wad on the best one (a number not yet holding the agent's
  money first: two numbers win more often than one), else stop; if no number gains, the smallest wad on the best
  (with even odds everywhere: 6 or 8, the likeliest), then stop. ``lucky="likeliest"`` is the issue's literal
  rule: the smallest wad on 6 or 8 (the better of the two under the odds; ties: 6), then stop.

Strength (tests/test_easy_money_agents.py, 4-player tables against 3 random agents, 20,000 games): with the
default rules the win share is 0.249, a random seat's: the Final Lottery's pot (about 520 units) goes to the holder
of a ticket the dice pick, and its winner wins 99% of games, so money play barely moves the win. It does move the
money: with ``final_ante=0`` (the same game up to the Final Lottery) the heuristic goes into the Final Lottery as
the richest player in 47% of games (random: 25%) with 146 units against 118, and wins 29%.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from dicearena.agents.base import StatePlanner as BaseStatePlanner
from dicearena.envs.easy_money import engine as E

from .greed_solver import sequence_value

__all__ = [
    "EasyMoneyHeuristicAgent",
    "StatePlanner",
    "TWO_DICE",
    "LUCKY_WAYS",
    "lucky_dice_gains",
    "move_odds",
    "read_states",
    "wall_street_gains",
]

TWO_DICE = np.array([0, 0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1], dtype=np.float64) / 36.0  # P(2d6 total = t), t 0..12
LUCKY_WAYS = np.array([TWO_DICE[t] * 36 for t in E.LUCKY_NUMBERS], dtype=np.float64)  # 3, 4, 5, 5, 4, 3
SEVEN_WAYS = 6.0
CASH_ROLL_MEAN = 7.0  # the out-of-money cash roll: 2d6 pips
GREED_SATURATES = 25  # sequence_value(M) is the same for every M >= 25 (optimal play stops from 20)
SEQUENCE_VALUES = np.array([sequence_value(m) for m in range(GREED_SATURATES + 1)], dtype=np.float64)
LUCKY_EV, LUCKY_LIKELIEST = 0, 1
_LUCKY_MODES = {"ev": LUCKY_EV, "likeliest": LUCKY_LIKELIEST}


def read_states(agent: str, states: Any, action_masks: Any, seats: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(states int32 (B, S), masks int8 (B, A), seats int64 (B,)), contiguous for the numba loop, after checking
    the shapes and that each state waits for a decision of its seat."""
    st = np.atleast_2d(np.asarray(states))
    masks = np.atleast_2d(np.asarray(action_masks))
    seat = np.broadcast_to(np.asarray(seats, dtype=np.int64), (masks.shape[0],))
    if st.ndim != 2 or st.shape[1] != E.STATE_SIZE or masks.shape != (st.shape[0], E.NUM_ACTIONS):
        raise ValueError(f"{agent}: need Ea$y Money engine states (B, {E.STATE_SIZE}) and masks (B, "
                         f"{E.NUM_ACTIONS}) of the same B; got {st.shape} and {masks.shape}")  # fmt: skip
    phase = st[:, E.PHASE]
    waiting = (E.PHASE_DECIDES[phase] != 0) & (st[:, E.ACTOR] == seat)
    if not waiting.all():
        b = int(np.flatnonzero(~waiting)[0])
        raise ValueError(f"{agent}: state {b} does not wait for a decision of seat {int(seat[b])} (phase "
                         f"{E.PHASE_NAMES[int(phase[b])]!r}, player_{int(st[b, E.ACTOR])} decides)")  # fmt: skip
    return (np.ascontiguousarray(st, dtype=np.int32), np.ascontiguousarray(masks, dtype=np.int8),
            np.ascontiguousarray(seat))  # fmt: skip


class StatePlanner(BaseStatePlanner):
    """A Ea$y Money agent that plans on engine states."""

    game_title = "Ea$y Money"


# --- numba: the rules ------------------------------------------------------------------------------------------


@njit(cache=True)
def _move_odds(state: np.ndarray) -> tuple[float, float]:
    """(P(the next move lands on a Double), P(on a Nothing)) from the pawn, over the 2d6 totals."""
    ns = state[E.NUM_SPACES]
    pawn = state[E.PAWN]
    p_double = 0.0
    p_nothing = 0.0
    for d in range(2, 13):
        kind = state[E.SPACES + (pawn + d) % ns]
        if kind == E.SPACE_DOUBLE:
            p_double += TWO_DICE[d]
        elif kind == E.SPACE_NOTHING:
            p_nothing += TWO_DICE[d]
    return p_double, p_nothing


@njit(cache=True)
def _bet_action(state: np.ndarray, mask: np.ndarray, first: int, largest: bool) -> int:
    """The legal bet action ``first + b`` of the largest (else smallest) amount; ties: the lowest b; -1 if none."""
    chosen = -1
    best = 0
    for b in range(E.NUM_BETS):
        if mask[first + b] != 0:
            amount = state[E.BET_AMOUNTS + b]
            if chosen < 0 or (amount > best if largest else amount < best):
                chosen, best = first + b, amount
    return chosen


@njit(cache=True)
def _wad_action(state: np.ndarray, mask: np.ndarray, k: int, largest: bool) -> int:
    """The legal Lucky Dice action placing the largest (else smallest) wad on number index ``k``; -1 if none."""
    chosen = -1
    best = 0
    for w in range(E.NUM_WADS):
        a = E.ACT_LUCKY + E.NUM_WADS * k + w
        if mask[a] != 0:
            value = state[E.WADS + w]
            if chosen < 0 or (value > best if largest else value < best):
                chosen, best = a, value
    return chosen


@njit(cache=True)
def _wall_gains(state: np.ndarray, tip: int, out: np.ndarray) -> None:
    """Expected gain per unit of a bet on UP (``out[0]``) and DOWN (``out[1]``) given the Stock Tip ``tip``, over
    the deck's cards showing that tip."""
    out[:] = 0.0
    count = 0
    for c in range(state[E.NUM_WALL]):
        if state[E.WS_TIP + c] == tip:
            count += 1
            news = state[E.WS_NEWS + c]
            for side in range(2):
                out[side] += state[E.WS_ODDS + c] if side == news else -1.0
    if count > 0:
        out /= count


@njit(cache=True)
def _lucky_gains(state: np.ndarray, out: np.ndarray) -> None:
    """Expected gain per unit of a Lucky Dice wad on each number: paid ``odds`` if it comes before a 7."""
    for k in range(E.NUM_LUCKY):
        w = LUCKY_WAYS[k]
        out[k] = (state[E.LUCKY_ODDS + k] * w - SEVEN_WAYS) / (w + SEVEN_WAYS)


@njit(cache=True)
def _richest_other(state: np.ndarray, seat: int, mask: np.ndarray, first: int) -> int:
    """Among the legal actions ``first + r - 1`` (the player r seats on), the one naming the most cash."""
    n = state[E.NUM_PLAYERS]
    chosen = -1
    best = -1
    for r in range(1, n):
        if mask[first + r - 1] != 0:
            cash = state[E.CASH + (seat + r) % n]
            if cash > best:
                chosen, best = first + r - 1, cash
    return chosen


@njit(cache=True)
def _move_value(state: np.ndarray, seat: int) -> float:
    """What moving is expected to pay a broke mover: Easy Money passed and landed on, and Greed (the optimal
    sequence value against the richest other player); other spaces count 0."""
    n = state[E.NUM_PLAYERS]
    richest = 0
    for r in range(1, n):
        richest = max(richest, state[E.CASH + (seat + r) % n])
    greed = SEQUENCE_VALUES[min(richest, GREED_SATURATES)]
    ns = state[E.NUM_SPACES]
    pawn = state[E.PAWN]
    value = 0.0
    for d in range(2, 13):
        passes = 0
        for s in range(1, d):
            if state[E.SPACES + (pawn + s) % ns] == E.SPACE_EASY_MONEY:
                passes += 1
        got = passes * state[E.PASS_PAY]
        kind = state[E.SPACES + (pawn + d) % ns]
        if kind == E.SPACE_EASY_MONEY:
            got += state[E.LAND_PAY]
        elif kind == E.SPACE_GREED:
            value += TWO_DICE[d] * greed
        value += TWO_DICE[d] * got
    return value


@njit(cache=True)
def _choose(states, masks, seats, greed_cap, greed_margin, lucky_mode, out):
    """The module docstring's rule for every row (each state waits for its seat's decision)."""
    wall = np.zeros(2)
    gains = np.zeros(E.NUM_LUCKY)
    for b in range(states.shape[0]):
        state = states[b]
        mask = masks[b]
        seat = seats[b]
        phase = state[E.PHASE]
        chosen = -1
        if phase == E.PHASE_STAKE:
            p_double, p_nothing = _move_odds(state)
            if p_double > p_nothing:
                chosen = _bet_action(state, mask, E.ACT_STAKE, True)
            else:
                smallest = _bet_action(state, mask, E.ACT_STAKE, False)
                if smallest >= 0:
                    budget = state[E.CASH + seat] + state[E.STAKE + seat]
                    penalty = 0 if state[E.NO_PENALTY + seat] else min(state[E.PENALTY], budget)
                    amount = state[E.BET_AMOUNTS + smallest - E.ACT_STAKE]
                    gain = ((p_double - p_nothing) * amount + p_double * state[E.BONUS + seat]
                            + (p_double + p_nothing) * penalty)  # fmt: skip
                    if gain > 1e-12:
                        chosen = smallest
            if chosen < 0:
                chosen = E.ACT_STAKE_NONE
        elif phase == E.PHASE_BROKE:
            chosen = E.ACT_MOVE if _move_value(state, seat) > CASH_ROLL_MEAN else E.ACT_CASH_ROLL
        elif phase == E.PHASE_STEAL:
            n = state[E.NUM_PLAYERS]
            best = -1
            for r in range(1, n):
                a = E.ACT_STEAL + r - 1
                held = state[E.TICKETS_HELD + (seat + r) % n]
                if mask[a] != 0 and held > best:
                    chosen, best = a, held
        elif phase == E.PHASE_GREED_NAME:
            chosen = _richest_other(state, seat, mask, E.ACT_NAME)
        elif phase == E.PHASE_GREED_DECIDE:
            cash = state[E.CASH + state[E.GREED_TARGET]]
            stop = state[E.GREED_TOTAL] >= min(greed_cap, cash - greed_margin)
            chosen = E.ACT_GREED_STOP if stop else E.ACT_GREED_ROLL
        elif phase == E.PHASE_WALL_BET:
            tip = state[E.WS_TIP + state[E.WS_CARD]]
            _wall_gains(state, tip, wall)
            side = tip
            if wall[1 - tip] > wall[tip] + 1e-12:
                side = 1 - tip
            chosen = _bet_action(state, mask, E.ACT_WALL + E.NUM_BETS * side, wall[side] > 1e-12)
        elif phase == E.PHASE_LUCKY_BET:
            _lucky_gains(state, gains)
            second = state[E.LUCKY_WADS] > 0
            if lucky_mode == LUCKY_LIKELIEST:
                if second:
                    chosen = E.ACT_LUCKY_STOP
                else:
                    k = 2 if gains[2] >= gains[3] else 3  # 6 or 8
                    chosen = _wad_action(state, mask, k, False)
            else:
                best_k = 0
                best = -1e300
                for k in range(E.NUM_LUCKY):
                    # a second wad prefers a number not yet holding the agent's money (two numbers win more often)
                    score = gains[k]
                    if second and state[E.LUCKY + seat * E.NUM_LUCKY + k] > 0:
                        score -= 1e-9
                    if score > best + 1e-12:
                        best_k, best = k, score
                positive = gains[best_k] > 1e-12
                if second and not positive:
                    chosen = E.ACT_LUCKY_STOP
                else:
                    chosen = _wad_action(state, mask, best_k, positive)
        if chosen < 0 or mask[chosen] == 0:  # the rule found nothing legal (a custom config): the first legal action
            chosen = -1
            for a in range(mask.shape[0]):
                if mask[a] != 0:
                    chosen = a
                    break
        out[b] = chosen


# --- plain-Python views of the rules (documentation, tests) --------------------------------------------------


def move_odds(state: np.ndarray) -> tuple[float, float]:
    """(P(Double), P(Nothing)) on the coming move from the pawn in engine ``state``."""
    return _move_odds(np.ascontiguousarray(state, dtype=np.int32))


def wall_street_gains(state: np.ndarray, tip: int) -> np.ndarray:
    """Expected gain per unit on (UP, DOWN) given Stock Tip ``tip`` (0 UP, 1 DOWN), from the deck in ``state``."""
    out = np.zeros(2)
    _wall_gains(np.ascontiguousarray(state, dtype=np.int32), int(tip), out)
    return out


def lucky_dice_gains(state: np.ndarray) -> np.ndarray:
    """Expected gain per unit of a wad on 4, 5, 6, 8, 9, 10 under the odds in ``state``."""
    out = np.zeros(E.NUM_LUCKY)
    _lucky_gains(np.ascontiguousarray(state, dtype=np.int32), out)
    return out


class EasyMoneyHeuristicAgent(StatePlanner):
    """The rule per phase of the module docstring, over a batch of engine states.

    ``greed_cap`` / ``greed_margin``: Greed stops once the total reaches ``min(greed_cap, M - greed_margin)``;
    ``lucky``: ``"ev"`` (the wads' expected gain under the config's odds) or ``"likeliest"`` (the smallest wad on
    6 or 8, then stop).
    """

    name = "em_heuristic"

    def __init__(self, greed_cap: int = 20, greed_margin: int = 4, lucky: str = "ev") -> None:
        if lucky not in _LUCKY_MODES:
            raise ValueError(f"lucky must be one of {sorted(_LUCKY_MODES)}, got {lucky!r}")
        if greed_cap < 0 or greed_margin < 0:
            raise ValueError(f"greed_cap and greed_margin must be >= 0, got {greed_cap}, {greed_margin}")
        self.greed_cap = int(greed_cap)
        self.greed_margin = int(greed_margin)
        self.lucky = lucky

    def act_states(self, states: np.ndarray, action_masks: np.ndarray, seats: np.ndarray) -> np.ndarray:
        st, masks, seat = read_states(self.name, states, action_masks, seats)
        out = np.empty(st.shape[0], dtype=np.int64)
        _choose(st, masks, seat, self.greed_cap, self.greed_margin, _LUCKY_MODES[self.lucky], out)
        return out
