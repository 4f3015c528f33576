"""Yay! board features: what a learned board value (``yay_td``) reads of a sheet, for one seat.

Why these: the hand-set lookahead values a board by four terms (the lead in uncrossed numbers and in their sum, and
the two sides' exposure) and ``m``, the fewest empty squares left in any line. A value fitted to who won on those
four terms alone played worse than the hand-set weights (0.462 against them over 4,000 games): the terms cannot say
*which* numbers are exposed, where each side can still write, or how close several lines are to ending the game.
These features add that, each scaled to about [-1, 1]; a small network (``learned_lookahead``) combines them.

Per seat, "the opponent" is the best opponent as the lookahead counts it (most uncrossed numbers, then the higher
sum, ties to the first in turn order after the seat), and "opponents" all the others together.

====  ======================================================================================================
slot  feature
====  ======================================================================================================
0     uncrossed numbers: own minus the opponent's, / 8
1     their sums: own minus the opponent's, / 100
2     own exposure: over empty squares, own numbers beside it x P(3d6 > the highest of them), / 4
3     the opponents' exposure, the same way, / 4
4-7   own and the opponent's uncrossed numbers (/ 16) and sums (/ 200)
8-10  empty squares (a share of the sheet), blocked squares and crossed-off numbers (/ 16)
11    ``m`` (``closest_end``), / 8
12-14 lines (rows and columns) missing at most 1, 2 and 3 squares, / 4
15    own openings: over empty squares, P(3d6 > the highest opponent number beside it), / 16
16    the opponents' openings: the same with own numbers, / 16
17-18 what each side could cross: slots 3 and 2 again (the same sums: the opponents' exposure is what the seat
      could cross, and its own what they could; kept so the shipped network's inputs stay where they are)
19-28 exposed numbers (beside an empty square) by value, 3-5, 6-8, 9-11, 12-14, 15-18: own, then the opponent's, / 4
29    the seat is to move; 30-31 the seat and the opponent have had their first turn (may throw again)
32-34 the count lead, the sum lead (/ 100) and own minus the opponents' exposure, each / (m + 1)
35    tanh(count lead / 2); 36-38 m is 0, 1, 2; 39 the count lead when m <= 1
40-43 slots 2, 3, 15 and 16 with each empty square weighted by the chance a throw touches it (``touch_chance``)
44    the empty squares a throw is expected to touch (the fewer, the likelier a throw passes the turn), / 4
====  ======================================================================================================

Why the touch weights: a throw touches a square in the middle of the sheet about four times as often as a corner
(8 x 8: 0.32 against 0.07), so a number beside an empty middle square is that much more at risk.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicearena.envs.yay import engine as E

from .heuristics import BEAT

__all__ = ["NUM_FEATURES", "board_features", "closest_end", "features_of", "neighbours", "touch_chance"]

NUM_FEATURES = 45
_BUCKETS = 5  # exposed numbers by value: (value - 3) // 3, the last bucket taking 15..18


@njit(cache=True, inline="always")
def _missing(state: np.ndarray, line: int) -> int:
    """Empty squares in ``line``: the rows 0..rows - 1, then the columns."""
    rows, cols = state[E.ROWS], state[E.COLS]
    first, step, length = (line * cols, 1, cols) if line < rows else (line - rows, cols, rows)
    missing = 0
    for i in range(length):
        missing += state[E.BOARD + first + i * step] == E.EMPTY
    return missing


@njit(cache=True)
def closest_end(state: np.ndarray) -> int:
    """Empty squares still missing before the game can end: the fewest in any row or column (the larger of the
    two fewest under END_ROW_AND_COLUMN)."""
    rows, cols = state[E.ROWS], state[E.COLS]
    best_row, best_col = cols, rows
    for line in range(rows):
        best_row = min(best_row, _missing(state, line))
    for line in range(rows, rows + cols):
        best_col = min(best_col, _missing(state, line))
    if state[E.END_MODE] == E.END_ROW_AND_COLUMN:
        return max(best_row, best_col)
    return min(best_row, best_col)


@njit(cache=True, inline="always")
def neighbours(square: int, rows: int, cols: int) -> tuple[int, int, int, int]:
    """The squares above, below, left and right of ``square``; -1 for each side off the sheet."""
    r, c = square // cols, square % cols
    return (square - cols if r > 0 else -1, square + cols if r < rows - 1 else -1, square - 1 if c > 0 else -1,
            square + 1 if c < cols - 1 else -1)  # fmt: skip


@njit(cache=True, inline="always")
def _die_covers(lo: int, die_size: float, side: int) -> float:
    """P(a die whose lower corner is uniform over 0..side - die_size covers some of ``lo..lo + 1``) along one
    axis."""
    high = side - die_size
    if high <= 0.0:
        return 1.0
    return (min(lo + 1.0, high) - max(lo - die_size, 0.0)) / high


@njit(cache=True, inline="always")
def _touch(column_cover: float, row_cover: float) -> float:
    """P(any of three independent dice touches a square), from one die's chance to cover its column and its row."""
    return 1.0 - (1.0 - column_cover * row_cover) ** E.NUM_DICE


@njit(cache=True, inline="always")
def _covers(state: np.ndarray, out: np.ndarray) -> None:
    """``out[:cols]``: ``_die_covers`` of each column, ``out[MAX_SIDE:MAX_SIDE + rows]`` of each row (what every
    square's touch chance is made of: a board's features read them once, not once per square)."""
    rows, cols, die_size = state[E.ROWS], state[E.COLS], E.die_size_of(state)
    for c in range(cols):
        out[c] = _die_covers(c, die_size, cols)
    for r in range(rows):
        out[E.MAX_SIDE + r] = _die_covers(r, die_size, rows)


@njit(cache=True)
def touch_chance(state: np.ndarray, square: int) -> float:
    """About P(a throw touches ``square``): three dice landing independently as rules/yay.md's model lands each
    (uniform over the positions that keep it whole); the model's redraw of overlapping dice spreads them a little
    more (8 x 8, measured over 20,000 throws: 0.32 in the middle, 0.07 in a corner; this gives 0.30 and 0.06)."""
    covers = np.zeros(2 * E.MAX_SIDE)
    _covers(state, covers)
    cols = state[E.COLS]
    return _touch(covers[square % cols], covers[E.MAX_SIDE + square // cols])


@njit(cache=True, inline="always")
def _empty(state: np.ndarray, square: int) -> bool:
    return state[E.BOARD + square] == E.EMPTY


@njit(cache=True)
def board_features(state: np.ndarray, seat: int, beat: np.ndarray, m: int, out: np.ndarray) -> None:
    """``out[:NUM_FEATURES]``: the module docstring's features of an unfinished board for ``seat``; ``beat``:
    ``heuristics.BEAT``; ``m``: ``closest_end(state)`` (the caller has it already)."""
    n, rows, cols = state[E.NUM_PLAYERS], state[E.ROWS], state[E.COLS]
    squares = rows * cols
    count = np.zeros(E.MAX_PLAYERS)
    total = np.zeros(E.MAX_PLAYERS)
    exposed = np.zeros((E.MAX_PLAYERS, _BUCKETS))
    own_exposure = opp_exposure = own_open = opp_open = 0.0
    empty = blocked = crossed = 0.0
    own_exposure_t = opp_exposure_t = own_open_t = opp_open_t = reach = 0.0
    covers = np.zeros(2 * E.MAX_SIDE)
    _covers(state, covers)
    for s in range(squares):
        code = state[E.BOARD + s]
        r, c = s // cols, s % cols
        if code == E.BLOCKED:
            blocked += 1.0
            continue
        if code > E.BLOCKED:
            if E.is_crossed(code):
                crossed += 1.0
                continue
            rel = (E.owner(code) - seat) % n
            value = E.value_of(code)
            count[rel] += 1.0
            total[rel] += value
            for t in neighbours(s, rows, cols):
                if t >= 0 and _empty(state, t):
                    exposed[rel, min((value - 3) // 3, _BUCKETS - 1)] += 1.0
                    break
            continue
        empty += 1.0
        own_max = opp_max = 0
        own_beside = opp_beside = 0.0
        for t in neighbours(s, rows, cols):
            near = state[E.BOARD + t] if t >= 0 else E.EMPTY
            if not E.is_live(near):
                continue
            if E.owner(near) == seat:
                own_max, own_beside = max(own_max, E.value_of(near)), own_beside + 1.0
            else:
                opp_max, opp_beside = max(opp_max, E.value_of(near)), opp_beside + 1.0
        own_exposure += own_beside * beat[own_max]
        opp_exposure += opp_beside * beat[opp_max]
        own_open += beat[opp_max]
        opp_open += beat[own_max]
        touch = _touch(covers[c], covers[E.MAX_SIDE + r])
        reach += touch
        own_exposure_t += own_beside * beat[own_max] * touch
        opp_exposure_t += opp_beside * beat[opp_max] * touch
        own_open_t += beat[opp_max] * touch
        opp_open_t += beat[own_max] * touch
    best = 1
    for rel in range(2, n):
        if count[rel] > count[best] or (count[rel] == count[best] and total[rel] > total[best]):
            best = rel
    lead, sum_lead = count[0] - count[best], total[0] - total[best]
    near_end = 1.0 / (m + 1.0)
    out[0], out[1], out[2], out[3] = lead / 8.0, sum_lead / 100.0, own_exposure / 4.0, opp_exposure / 4.0
    out[4], out[5], out[6], out[7] = count[0] / 16.0, count[best] / 16.0, total[0] / 200.0, total[best] / 200.0
    out[8], out[9], out[10], out[11] = empty / squares, blocked / 16.0, crossed / 16.0, m / 8.0
    near_lines = np.zeros(3)  # lines missing at most 1, 2, 3 squares
    for line in range(rows + cols):
        missing = _missing(state, line)
        for k in range(3):
            near_lines[k] += missing <= k + 1
    for k in range(3):
        out[12 + k] = near_lines[k] / 4.0
    out[15], out[16], out[17], out[18] = own_open / 16.0, opp_open / 16.0, out[3], out[2]
    for k in range(_BUCKETS):
        out[19 + k] = exposed[0, k] / 4.0
        out[19 + _BUCKETS + k] = exposed[best, k] / 4.0
    out[29] = 1.0 if state[E.CURRENT] == seat and state[E.PHASE] != E.PHASE_OVER else 0.0
    out[30], out[31] = state[E.FIRST_DONE + seat], state[E.FIRST_DONE + (seat + best) % n]
    out[32], out[33] = lead * near_end, sum_lead / 100.0 * near_end
    out[34] = (own_exposure - opp_exposure) * near_end
    out[35] = np.tanh(lead / 2.0)
    out[36], out[37], out[38] = m == 0, m == 1, m == 2
    out[39] = lead if m <= 1 else 0.0
    out[40], out[41] = own_exposure_t, opp_exposure_t
    out[42], out[43], out[44] = own_open_t / 4.0, opp_open_t / 4.0, reach / 4.0


@njit(cache=True)
def _features_into(states: np.ndarray, seats: np.ndarray, beat: np.ndarray, out: np.ndarray) -> None:
    for i in range(states.shape[0]):
        board_features(states[i], seats[i], beat, closest_end(states[i]), out[i])


def features_of(states: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(N, NUM_FEATURES) float32: the features of N unfinished engine states, each for its seat."""
    states = np.ascontiguousarray(np.atleast_2d(states), dtype=np.int32)
    out = np.zeros((len(states), NUM_FEATURES))
    _features_into(states, np.ascontiguousarray(np.broadcast_to(seats, len(states)), dtype=np.int64), BEAT, out)
    return out.astype(np.float32)
