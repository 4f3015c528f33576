"""The Yay! rules engine: the only place this game's rules exist (spec: ../shared/rules/yay.md).

State is one flat ``int32`` array; every function here is a small numba-compiled scalar function over it.
Chance is explicit and comes in two kinds, both supplied by the caller:

- the *start roll* (``PHASE_START``): one player's three faces, to decide who starts;
- a *throw* (``PHASE_THROW``): three faces plus the squares the dice touch. Where the dice land is the
  chance model of rules/yay.md; ``touched_squares`` turns die positions into squares and ``dice_overlap``
  says whether a landing must be drawn again, so a source can draw landings and a test can place dice.

Everything else is a decision of the player to move (``CURRENT``): write, block, throw again, cross off.
The board size, the end rule, the turn limit and the die size live in the state, so one compiled engine serves
every config. The end of the file is the game contract (``dicearena.envs.common.contract``), where a chance outcome is
the three faces followed by the touched flags, drawn from four random words. No PettingZoo or Gymnasium here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicearena.envs.common.contract import CHANCE, NOBODY, PLAYING, TERMINATED, Sizes, float_bits
from dicearena.envs.common.contract import TRUNCATED as TRUNCATED_STATUS
from dicearena.envs.common.dice_outcomes import bad_faces
from dicearena.envs.common.rewards import zero_sum_rewards
from dicearena.envs.common.streams import splitmix

NUM_DICE = 3
NUM_FACES = 6
MIN_TOTAL = 3
MAX_TOTAL = 18
MAX_PLAYERS = 4
MAX_SIDE = 12
MAX_SQUARES = MAX_SIDE * MAX_SIDE

# Phases.
PHASE_START = 0  # chance: the next contender's start roll (three faces)
PHASE_THROW = 1  # chance: the player to move throws (three faces and where they land)
PHASE_DECIDE = 2  # decision: write, block or throw again
PHASE_CROSS = 3  # decision: a throw that was not higher forces crossing off an own number
PHASE_OVER = 4  # terminal

# End rules (option ``end_when``).
END_ROW_OR_COLUMN = 0
END_ROW_AND_COLUMN = 1

# What ended the last turn (``LAST_EVENT``), for infos and rendering.
EVENT_NONE = 0
EVENT_WROTE = 1
EVENT_BLOCKED = 2
EVENT_CROSSED = 3  # crossed off an own number after a throw that was not higher
EVENT_NOT_HIGHER = 4  # a throw that was not higher, with no own number to cross off
EVENT_ALL_FILLED = 5  # every touched square was filled: the turn passed (rule 5)

# Square codes: 0 empty, 1 blocked, else a number: value | (seat + 1) << 5 | crossed << 10.
EMPTY = 0
BLOCKED = 1
_OWNER_SHIFT = 5
_CROSSED = 1 << 10

# State slots. The header (0..5) holds every rule knob, so one compiled engine serves every config.
NUM_PLAYERS = 0
ROWS = 1
COLS = 2
END_MODE = 3
MAX_TURNS = 4
DIE_SIZE = 5  # float32 bits of the die's side in squares (``draw_outcome`` lands the dice with it)
PHASE = 6
CURRENT = 7  # seat to move (or to roll in the start phase)
TOTAL = 8  # this throw's total, 0 before the first throw of a turn
PREVIOUS = 9  # the previous throw's total in this turn, 0 if none
TURN = 10  # turns ended so far
TRUNCATED = 11  # 1 if the game stopped at MAX_TURNS
LAST_EVENT = 12
LAST_SQUARE = 13  # square of the last write, block or cross-off, -1 if none
DICE = 14  # 14..16: the last throw's faces 1..6
FIRST_DONE = DICE + NUM_DICE  # MAX_PLAYERS flags: 1 once the seat has had its first turn
START_TOTAL = FIRST_DONE + MAX_PLAYERS  # MAX_PLAYERS start roll totals: -1 out of the running, 0 to roll, > 0 rolled
TOUCHED = START_TOTAL + MAX_PLAYERS  # MAX_SQUARES flags: the squares the last throw touched
BOARD = TOUCHED + MAX_SQUARES  # MAX_SQUARES square codes, row-major
PASSED = BOARD + MAX_SQUARES  # MAX_PLAYERS flags: 1 if the seat's last turn passed by rule 5 (it never got to act)
SHAPING = PASSED + MAX_PLAYERS  # 1: the contract's faces pay shaped rewards (config ``shaping``)
ZERO_SUM = SHAPING + 1  # 1: zero-sum final rewards (config ``zero_sum``; ``dicearena.envs.common.rewards``)
SQUARE_FEATURES = ZERO_SUM + 1  # 1: the observation ends with each square's action value (``square_features``)
# Kept beside the sheet on a bitboard sheet (<= 64 squares; zero on larger ones), so that the hot paths need no pass
# over it: every transition keeps them, and ``refresh`` recomputes them after a hand edit.
LEGAL_KIND = SQUARE_FEATURES + 1  # a decision's legal squares' kind: KIND_WRITE, KIND_BLOCK or KIND_CROSS (else 0)
LEGAL_LOW = LEGAL_KIND + 1  # those squares as a bitboard (bit s: square s), bits 0..31; LEGAL_HIGH bits 32..63
LEGAL_HIGH = LEGAL_LOW + 1
FILLED_LOW = LEGAL_HIGH + 1  # the squares not empty as a bitboard, bits 0..31; FILLED_HIGH bits 32..63
FILLED_HIGH = FILLED_LOW + 1
STATE_SIZE = FILLED_HIGH + 1

# The kinds of action on a square, in the order of their action ids (``kind_square``); 3 is throwing again.
KIND_WRITE = 0
KIND_BLOCK = 1
KIND_CROSS = 2

DEFAULT_DIE_BITS = float_bits(1.27)  # the config's default die (for states rebuilt without a config)
LANDING_KEYS = 2**62  # landing keys are 0..LANDING_KEYS-1 (``sample_landing`` runs SplitMix64 from one)
CHANCE_WORDS = NUM_DICE + 1  # random words per chance event: one per face, one landing key


def num_actions(rows: int, cols: int) -> int:
    """write at s, block s, cross off own s (rows * cols each), throw again (1)."""
    return 3 * rows * cols + 1


def observation_size(num_players: int, rows: int, cols: int, square_features: bool = False) -> int:
    """Per square 4 + num_players channels, then 8 + 2 * num_players scalars, then with ``square_features`` one
    action value per square (see README.md)."""
    return rows * cols * (5 + num_players if square_features else 4 + num_players) + 8 + 2 * num_players


# --- squares


@njit(cache=True, inline="always")
def _at(i: int) -> np.uint64:
    """An array index as unsigned, for hot loops: numba then drops its negative-index wraparound, whose per-read
    select turns a vectorised loop's contiguous reads into gathers (a mask took 2-3x as long)."""
    return np.uint64(i)


_RECIPROCAL = np.array([0] + [(2**16 + cols - 1) // cols for cols in range(1, MAX_SIDE + 1)], dtype=np.int64)
"""``_RECIPROCAL[cols]``: ceil(2**16 / cols), so ``s * _RECIPROCAL[cols] >> 16`` is ``s // cols`` for every square s
of a sheet (exact for s < 2**16 / 12; tests/test_yay_rules.py checks every sheet size)."""


@njit(cache=True, inline="always")
def row_col(square: int, cols: int) -> tuple[int, int]:
    """``divmod(square, cols)`` by a multiply: the legality check, the actions and the values split a square at
    every decision, and an integer division costs ~25 cycles."""
    r = (square * _RECIPROCAL[cols]) >> 16
    return r, square - r * cols


@njit(cache=True, inline="always")
def kind_square(action: int, squares: int) -> tuple[int, int]:
    """``divmod(action, squares)`` for an action id ``0..3 * squares``, by comparisons (no division)."""
    kind = int(action >= squares) + int(action >= 2 * squares) + int(action >= 3 * squares)  # int: NumPy's bools OR
    return kind, action - kind * squares


@njit(cache=True, inline="always")
def number_code(seat: int, value: int) -> int:
    return value | ((seat + 1) << _OWNER_SHIFT)


@njit(cache=True, inline="always")
def crossed_code(seat: int, value: int) -> int:
    """The code of ``seat``'s number ``value`` once crossed off."""
    return value | ((seat + 1) << _OWNER_SHIFT) | _CROSSED


@njit(cache=True, inline="always")
def owner(code: int) -> int:
    """Seat whose number is in the square, -1 for an empty or blocked square."""
    return ((code >> _OWNER_SHIFT) & 7) - 1


@njit(cache=True, inline="always")
def value_of(code: int) -> int:
    return code & 31 if code > BLOCKED else 0


@njit(cache=True, inline="always")
def is_crossed(code: int) -> bool:
    return (code & _CROSSED) != 0


@njit(cache=True, inline="always")
def is_live(code: int) -> bool:
    """An uncrossed number."""
    return code > BLOCKED and (code & _CROSSED) == 0


# --- setup and chance


@njit(cache=True, inline="always")
def start_game(state: np.ndarray, num_players: int, rows: int, cols: int, end_mode: int, max_turns: int,
               die_bits: int) -> None:  # fmt: skip
    """A new game: an empty sheet, every player in the running for the start roll, seat 0 rolls first.

    ``max_turns`` 0 means no turn limit (planning agents' scratch states); the config requires >= 1. ``die_bits``:
    the die's side as float32 bits (``float_bits``). ``init_state`` is the contract's form, from a ``header``."""
    state[:] = 0
    state[NUM_PLAYERS] = num_players
    state[ROWS] = rows
    state[COLS] = cols
    state[END_MODE] = end_mode
    state[MAX_TURNS] = max_turns
    state[DIE_SIZE] = die_bits
    state[PHASE] = PHASE_START
    state[LAST_SQUARE] = -1
    for seat in range(MAX_PLAYERS):
        state[START_TOTAL + seat] = 0 if seat < num_players else -1


@njit(cache=True, inline="always")
def dice_needed(state: np.ndarray) -> int:
    """Faces the next chance event needs: 3 at a start roll or a throw, 0 at a decision or the end."""
    phase = state[PHASE]
    return NUM_DICE if phase == PHASE_START or phase == PHASE_THROW else 0


@njit(cache=True, inline="always")
def needs_landing(state: np.ndarray) -> bool:
    """True when the pending chance event is a throw onto the sheet (faces and touched squares)."""
    return state[PHASE] == PHASE_THROW


@njit(cache=True, inline="always")
def apply_start_roll(state: np.ndarray, faces: np.ndarray) -> None:
    """The current contender's start roll (faces 0..5). When every contender has rolled, the highest starts;
    the players tied on the highest roll again."""
    n = state[NUM_PLAYERS]
    state[START_TOTAL + state[CURRENT]] = faces[0] + faces[1] + faces[2] + NUM_DICE
    for seat in range(n):
        if state[START_TOTAL + seat] == 0:
            state[CURRENT] = seat
            return
    best = 0
    for seat in range(n):
        best = max(best, state[START_TOTAL + seat])
    tied = 0
    first = -1
    for seat in range(n):
        if state[START_TOTAL + seat] == best:
            tied += 1
            if first < 0:
                first = seat
            state[START_TOTAL + seat] = 0
        else:
            state[START_TOTAL + seat] = -1
    state[CURRENT] = first
    if tied == 1:
        state[START_TOTAL + first] = best
        state[PHASE] = PHASE_THROW


@njit(cache=True, inline="always")
def _touch_die(x: float, y: float, die_size: float, rows: int, cols: int, out: np.ndarray) -> None:
    """``out[s] = 1`` for every square the die with lower corner ``(x, y)`` overlaps with positive area."""
    c0, r0 = int(np.floor(x)), int(np.floor(y))
    c1, r1 = int(np.ceil(x + die_size)) - 1, int(np.ceil(y + die_size)) - 1
    for r in range(max(r0, 0), min(r1, rows - 1) + 1):
        for c in range(max(c0, 0), min(c1, cols - 1) + 1):
            out[r * cols + c] = 1


@njit(cache=True)
def touched_squares(corners: np.ndarray, die_size: float, rows: int, cols: int, out: np.ndarray) -> None:
    """``out[s] = 1`` for every square a die overlaps with positive area.

    ``corners[i] = (x, y)``: the lower corner of die i in board units (square (r, c) spans [c, c+1] x [r, r+1]).
    """
    out[: rows * cols] = 0
    for i in range(corners.shape[0]):
        _touch_die(corners[i, 0], corners[i, 1], die_size, rows, cols, out)


@njit(cache=True, inline="always")
def _overlap(xa: float, ya: float, xb: float, yb: float, die_size: float) -> bool:
    """Two dice with lower corners ``(xa, ya)`` and ``(xb, yb)`` overlap with positive area."""
    return abs(xa - xb) < die_size and abs(ya - yb) < die_size


@njit(cache=True)
def dice_overlap(corners: np.ndarray, k: int, die_size: float) -> bool:
    """True if die ``k`` overlaps (with positive area) any of dice ``0..k-1``: that landing is drawn again."""
    for j in range(k):
        if _overlap(corners[k, 0], corners[k, 1], corners[j, 0], corners[j, 1], die_size):
            return True
    return False


_UNIT = 1.0 / 9007199254740992.0  # 2 ** -53
MAX_LANDING_DRAWS = 1000  # draws of one die before the whole throw is drawn again
MAX_THROW_DRAWS = 100_000  # whole throws before giving up (only on sheets the config rejects)


@njit(cache=True, inline="always")
def _splitmix(x: np.uint64) -> tuple[np.uint64, float]:
    """SplitMix64 (``dicearena.envs.common.streams``): the next generator state and a uniform float in [0, 1) (cheap
    enough to run per throw)."""
    x, z = splitmix(x)
    return x, float(z >> np.uint64(11)) * _UNIT


def dice_always_fit(rows: int, cols: int, die_size: float) -> bool:
    """True if, wherever two non-overlapping dice lie on the sheet, a third always fits beside them.

    Why: the config accepts only such sheets, so ``sample_landing`` always finds room. Die j's lower corner lies in
    [0, A] x [0, B] (A = cols - d, B = rows - d, d = die_size) and keeps the next corner out of the open square of
    side 2d around it. Such a square holds two corners of the rectangle only if A < 2d or B < 2d, so with
    min(A, B) >= 2d two of them leave a corner free. If A < 2d, two dice can leave no room iff B < 4d (stacked
    across the width; if B < d, side by side, or not even two fit), and symmetrically. Checked against a brute
    force in tests/test_yay_rules.py."""
    a, b = cols - die_size, rows - die_size
    return min(a, b) >= 0 and (min(a, b) >= 2 * die_size or max(a, b) >= 4 * die_size)


def largest_die(rows: int, cols: int) -> float:
    """The largest ``die_size`` with ``dice_always_fit`` on a ``rows x cols`` sheet (for error messages)."""
    return min(max(min(rows, cols) / 3, max(rows, cols) / 5), min(rows, cols))


@njit(cache=True, inline="always")
def _landing(key: int, die_size: float, rows: int, cols: int):
    """``sample_landing`` on scalars: the three lower corners ``(x0, y0, x1, y1, x2, y2)``, drawn exactly as the
    docstring there says (no array: the batched engine lands a throw per game and step). Die 0 never overlaps an
    earlier die, so its first draw stands."""
    x = np.uint64(key)
    high_x, high_y = cols - die_size, rows - die_size
    for _ in range(MAX_THROW_DRAWS):
        x, u = _splitmix(x)
        x0 = u * high_x
        x, u = _splitmix(x)
        y0 = u * high_y
        x1 = y1 = 0.0
        placed = False
        for _ in range(MAX_LANDING_DRAWS):
            x, u = _splitmix(x)
            x1 = u * high_x
            x, u = _splitmix(x)
            y1 = u * high_y
            if not _overlap(x1, y1, x0, y0, die_size):
                placed = True
                break
        if not placed:
            continue  # no room left beside the die already placed: throw all three again
        for _ in range(MAX_LANDING_DRAWS):
            x, u = _splitmix(x)
            x2 = u * high_x
            x, u = _splitmix(x)
            y2 = u * high_y
            if not (_overlap(x2, y2, x0, y0, die_size) or _overlap(x2, y2, x1, y1, die_size)):
                return x0, y0, x1, y1, x2, y2
    raise ValueError("sample_landing: three dice found no room without overlapping (see engine.dice_always_fit)")


@njit(cache=True)
def sample_landing(key: int, die_size: float, rows: int, cols: int, corners: np.ndarray) -> None:
    """Where three dice land (rules/yay.md's model), a pure function of ``key``: each die's lower corner uniform
    over the positions that keep it whole on the sheet, drawn again while it overlaps an earlier die; after
    ``MAX_LANDING_DRAWS`` failed draws of one die (the first two left too little room) the whole throw is drawn
    again, continuing the same stream. Never returns overlapping dice: on a sheet ``dice_always_fit`` accepts
    every draw ends; elsewhere, after ``MAX_THROW_DRAWS`` whole throws, a ValueError."""
    x0, y0, x1, y1, x2, y2 = _landing(key, die_size, rows, cols)
    corners[0, 0], corners[0, 1] = x0, y0
    corners[1, 0], corners[1, 1] = x1, y1
    corners[2, 0], corners[2, 1] = x2, y2


@njit(cache=True, inline="always")
def apply_throw(state: np.ndarray, faces: np.ndarray, touched: np.ndarray) -> None:
    """A throw of the player to move: faces 0..5 and the 0/1 touched flags of the ``rows * cols`` squares.

    A re-throw that is not higher than the previous one forces a cross-off (rule 9; decided before rule 5, as
    its points never count); a throw touching only filled squares passes the turn (rule 5); else the player decides.
    """
    _throw(state, faces, touched, 0)


@njit(cache=True, inline="always")
def _throw(state: np.ndarray, faces: np.ndarray, touched: np.ndarray, offset: int) -> None:
    """``apply_throw`` with the flags at ``touched[offset:]`` (a contract outcome is faces and flags in one array;
    no slice, so no array view for numba to reference-count per game)."""
    squares = state[ROWS] * state[COLS]
    total = NUM_DICE
    for i in range(NUM_DICE):
        state[DICE + i] = faces[i] + 1
        total += faces[i]
    state[TOTAL] = total
    any_open = False
    for s in range(squares):  # one branch-free pass: copy the flags, note an open square
        flag = touched[_at(offset + s)]
        state[_at(TOUCHED + s)] = flag
        any_open |= (flag != 0) & (state[_at(BOARD + s)] == EMPTY)
    if state[PREVIOUS] > 0 and total <= state[PREVIOUS]:
        if own_live_count(state, state[CURRENT]) > 0:
            state[PHASE] = PHASE_CROSS
            _keep_legal(state)
        else:
            _end_turn(state, EVENT_NOT_HIGHER, -1)
        return
    if any_open:
        state[PHASE] = PHASE_DECIDE
        _keep_legal(state)
        return
    _end_turn(state, EVENT_ALL_FILLED, -1)


@njit(cache=True, inline="always")
def _bits_at(state: np.ndarray, low: int) -> np.uint64:
    """The bitboard kept in ``state[low]`` (bits 0..31) and ``state[low + 1]`` (bits 32..63)."""
    high = np.uint64(np.int64(state[low + 1]) & 0xFFFFFFFF) << np.uint64(32)
    return high | np.uint64(np.int64(state[low]) & 0xFFFFFFFF)


@njit(cache=True, inline="always")
def _signed_word(bits: np.uint64) -> int:
    """32 bits as the int32 with that pattern (a store of 2**31 or more would overflow without the JIT)."""
    word = np.int64(bits & np.uint64(0xFFFFFFFF))
    return word - ((word >> 31) << 32)


@njit(cache=True, inline="always")
def _keep_bits(state: np.ndarray, low: int, bits: np.uint64) -> None:
    state[low] = _signed_word(bits)
    state[low + 1] = _signed_word(bits >> np.uint64(32))


@njit(cache=True, inline="always")
def _set_legal(state: np.ndarray, kind: int, bits: np.uint64) -> None:
    state[LEGAL_KIND] = kind
    _keep_bits(state, LEGAL_LOW, bits)


@njit(cache=True, inline="always")
def legal_bits(state: np.ndarray) -> np.uint64:
    """A decision's legal squares (of kind ``LEGAL_KIND``) on a bitboard sheet, as the throw left them."""
    return _bits_at(state, LEGAL_LOW)


@njit(cache=True, inline="always")
def _fill(state: np.ndarray, square: int, squares: int) -> None:
    """``square`` is written or blocked: a bitboard sheet notes it filled."""
    if squares <= BITBOARD_SQUARES:
        _keep_bits(state, FILLED_LOW, _bits_at(state, FILLED_LOW) | (np.uint64(1) << np.uint64(square)))


@njit(cache=True, inline="always")
def _own_bits(state: np.ndarray, seat: int, squares: int) -> np.uint64:
    """``seat``'s uncrossed numbers, the squares a forced cross-off may take."""
    own = np.uint64(0)
    for s in range(squares):
        own |= np.uint64(_own_live(state[_at(BOARD + s)], seat)) << np.uint64(s)
    return own


@njit(cache=True, inline="always")
def _keep_decision(state: np.ndarray, open_bits: np.uint64, beaten: np.uint64) -> None:
    """A write-or-block decision's legal squares: the open squares that allow writing; blocking only if none does."""
    writable = _writable_bits(open_bits, beaten, state[COLS])
    if writable:
        _set_legal(state, KIND_WRITE, writable)
    else:
        _set_legal(state, KIND_BLOCK, open_bits)


@njit(cache=True, inline="always")
def _keep_legal(state: np.ndarray) -> None:
    """At a decision on a bitboard sheet, keep its legal squares in the state (the throw does this once, so the
    mask and the legality check need no pass over the sheet of their own): a forced cross-off's own numbers, else
    the open squares that allow writing, or blocking if none does."""
    squares = state[ROWS] * state[COLS]
    if squares > BITBOARD_SQUARES:
        return
    seat = state[CURRENT]
    if state[PHASE] == PHASE_CROSS:
        _set_legal(state, KIND_CROSS, _own_bits(state, seat, squares))
    elif state[PHASE] == PHASE_DECIDE:
        open_bits, beaten = _sheet_bits(state, seat, state[TOTAL], squares)
        _keep_decision(state, open_bits, beaten)


@njit(cache=True)
def refresh(state: np.ndarray) -> None:
    """Recompute what a bitboard sheet's state keeps beside the sheet (the filled squares, a decision's legal
    squares) from the sheet, the throw and the phase. Every transition keeps them; a state edited by hand (a test,
    a puzzle) needs this before it is played on. The state API calls it on every state it loads."""
    _set_legal(state, 0, np.uint64(0))
    _keep_bits(state, FILLED_LOW, np.uint64(0))
    squares = state[ROWS] * state[COLS]
    if squares > BITBOARD_SQUARES:
        return
    filled = np.uint64(0)
    for s in range(squares):
        filled |= np.uint64(state[_at(BOARD + s)] != EMPTY) << np.uint64(s)
    _keep_bits(state, FILLED_LOW, filled)
    _keep_legal(state)


# --- decisions


@njit(cache=True, inline="always")
def _beats_not(code: int, seat: int, total: int) -> bool:
    """``code`` is an uncrossed opponent number that ``total`` does not beat (branch-free)."""
    return (code > BLOCKED) & ((code & _CROSSED) == 0) & (owner(code) != seat) & ((code & 31) >= total)


@njit(cache=True, inline="always")
def _beaten_by(state: np.ndarray, seat: int, square: int, total: int) -> bool:
    """An uncrossed opponent number in ``square`` that ``total`` does not beat."""
    return _beats_not(state[BOARD + square], seat, total)


@njit(cache=True, inline="always")
def write_allowed(state: np.ndarray, seat: int, square: int, total: int) -> bool:
    """``total`` may go into the empty ``square``: higher than every uncrossed opponent number beside it."""
    rows, cols = state[ROWS], state[COLS]
    r, c = row_col(square, cols)
    if r > 0 and _beaten_by(state, seat, square - cols, total):
        return False
    if r < rows - 1 and _beaten_by(state, seat, square + cols, total):
        return False
    if c > 0 and _beaten_by(state, seat, square - 1, total):
        return False
    return not (c < cols - 1 and _beaten_by(state, seat, square + 1, total))


@njit(cache=True, inline="always")
def _open(state: np.ndarray, square: int) -> bool:
    """An empty square the current throw touches: where writing or blocking can happen."""
    return (state[TOUCHED + square] != 0) & (state[BOARD + square] == EMPTY)  # &, not "and": 6x faster masks


# Sheets of at most 64 squares (the default 8 x 8 among them) are also read as bitboards: bit s is square s.
BITBOARD_SQUARES = 64
_LEFT_EDGE = np.array([sum(1 << s for s in range(0, 64, max(cols, 1))) for cols in range(MAX_SIDE + 1)],
                      dtype=np.uint64)  # fmt: skip
"""``_LEFT_EDGE[cols]``: the bits of column 0 (``s % cols == 0``) on a bitboard."""


@njit(cache=True, inline="always")
def _sheet_bits(state: np.ndarray, seat: int, total: int, squares: int) -> tuple[np.uint64, np.uint64]:
    """A bitboard sheet's open squares, and the squares whose uncrossed opponent number ``total`` does not beat:
    one branch-free pass."""
    open_bits = np.uint64(0)
    beaten = np.uint64(0)
    for s in range(squares):
        code = state[_at(BOARD + s)]
        bit = np.uint64(s)
        open_bits |= np.uint64((state[_at(TOUCHED + s)] != 0) & (code == EMPTY)) << bit
        beaten |= np.uint64(_beats_not(code, seat, total)) << bit
    return open_bits, beaten


@njit(cache=True, inline="always")
def _writable_bits(open_bits: np.uint64, beaten: np.uint64, cols: int) -> np.uint64:
    """The open squares with no beaten number beside them (``write_allowed`` on a bitboard): shifting by ``cols``
    moves a row to the next or previous one, by 1 a column, masked at the side edges."""
    left = _LEFT_EDGE[cols]
    right = left << np.uint64(cols - 1)
    shift = np.uint64(cols)
    one = np.uint64(1)
    beside = (beaten << shift) | (beaten >> shift) | ((beaten << one) & ~left) | ((beaten >> one) & ~right)
    return open_bits & ~beside


@njit(cache=True, inline="always")
def _bits_to_array(bits: np.uint64, squares: int, out: np.ndarray, offset: int) -> None:
    """``out[offset + s]`` = bit ``s`` of a bitboard, for every square."""
    for s in range(squares):
        out[_at(offset + s)] = (bits >> np.uint64(s)) & np.uint64(1)


@njit(cache=True, inline="always")
def _span(lo: int, hi: int) -> np.uint64:
    """Bits ``lo..hi`` (``0 <= lo``, ``hi <= 63``; none if ``lo > hi``)."""
    return ((np.uint64(2) << np.uint64(hi)) - np.uint64(1)) & ~((np.uint64(1) << np.uint64(lo)) - np.uint64(1))


@njit(cache=True, inline="always")
def _die_bits(x: float, y: float, die_size: float, rows: int, cols: int) -> np.uint64:
    """``_touch_die`` on a bitboard sheet, branch-free: the die's columns as bits, times one bit per row it
    covers (rows are ``cols`` bits apart, so the product has no carries)."""
    c0, r0 = max(int(np.floor(x)), 0), max(int(np.floor(y)), 0)
    c1, r1 = min(int(np.ceil(x + die_size)) - 1, cols - 1), min(int(np.ceil(y + die_size)) - 1, rows - 1)
    return _span(c0, c1) * (_LEFT_EDGE[cols] & _span(r0 * cols, r1 * cols))


@njit(cache=True, inline="always")
def _may_cross(state: np.ndarray, seat: int, square: int) -> bool:
    """``seat``'s own uncrossed number, which a forced cross-off may take."""
    code = state[BOARD + square]
    return (code > BLOCKED) & ((code & _CROSSED) == 0) & (owner(code) == seat)


@njit(cache=True, inline="always")
def _to_decide(state: np.ndarray, seat: int) -> bool:
    phase = state[PHASE]
    return seat == state[CURRENT] and (phase == PHASE_DECIDE or phase == PHASE_CROSS)


@njit(cache=True, inline="always")
def can_write_somewhere(state: np.ndarray) -> bool:
    seat, total = state[CURRENT], state[TOTAL]
    squares = state[ROWS] * state[COLS]
    if squares <= BITBOARD_SQUARES:
        open_bits, beaten = _sheet_bits(state, seat, total, squares)
        return _writable_bits(open_bits, beaten, state[COLS]) != 0
    for s in range(squares):
        if _open(state, s) and write_allowed(state, seat, s, total):
            return True
    return False


@njit(cache=True, inline="always")
def _writes_or_blocks(state: np.ndarray, seat: int, mask: np.ndarray, squares: int, total: int) -> None:
    """``legal_mask``'s writes, or its blocks when no touched square allows writing, one square at a time (a
    sheet too large for a bitboard)."""
    any_write = False
    for s in range(squares):
        if _open(state, s) and write_allowed(state, seat, s, total):
            mask[s] = 1
            any_write = True
    if not any_write:
        for s in range(squares):
            mask[squares + s] = _open(state, s)


@njit(cache=True)
def legal_mask(state: np.ndarray, seat: int, mask: np.ndarray) -> None:
    """0/1 legal actions of ``seat``: all zero unless it is the player to move at a decision."""
    mask[:] = 0
    if not _to_decide(state, seat):
        return
    squares = state[ROWS] * state[COLS]
    if squares <= BITBOARD_SQUARES:  # the squares the throw found legal (``_keep_legal``)
        _bits_to_array(legal_bits(state), squares, mask, squares * state[LEGAL_KIND])
    elif state[PHASE] == PHASE_CROSS:
        for s in range(squares):
            mask[_at(2 * squares + s)] = _may_cross(state, seat, s)
    else:
        _writes_or_blocks(state, seat, mask, squares, state[TOTAL])
    if state[PHASE] == PHASE_DECIDE and state[FIRST_DONE + seat]:  # the first throw counts
        mask[3 * squares] = 1


@njit(cache=True, inline="always")
def is_legal(state: np.ndarray, seat: int, action: int) -> bool:
    """``legal_mask(...)[action] == 1``, without building the mask (the same predicates, one action)."""
    squares = state[ROWS] * state[COLS]
    if action < 0 or action > 3 * squares or not _to_decide(state, seat):
        return False
    kind, s = kind_square(action, squares)
    if kind == 3:
        return state[PHASE] == PHASE_DECIDE and state[FIRST_DONE + seat] == 1
    if squares <= BITBOARD_SQUARES:
        return kind == state[LEGAL_KIND] and ((legal_bits(state) >> np.uint64(s)) & np.uint64(1)) != 0
    if state[PHASE] == PHASE_CROSS:
        return kind == 2 and _may_cross(state, seat, s)
    if kind == 2 or not _open(state, s):
        return False
    if kind == 0:
        return write_allowed(state, seat, s, state[TOTAL])
    return not can_write_somewhere(state)


@njit(cache=True, inline="always")
def _cross_opponent(state: np.ndarray, seat: int, square: int) -> None:
    """Cross off an opponent's number in ``square`` (a crossed one stays as it is; no branch on the code)."""
    code = state[BOARD + square]
    state[BOARD + square] = code | (_CROSSED * ((code > BLOCKED) & (owner(code) != seat)))


@njit(cache=True, inline="always")
def apply_action(state: np.ndarray, seat: int, action: int) -> None:
    """Play ``seat``'s *legal* action (check with ``is_legal``: ``seat`` is the player to move)."""
    rows, cols = state[ROWS], state[COLS]
    squares = rows * cols
    _set_legal(state, 0, np.uint64(0))  # the decision is made: a state after it does not depend on what was legal
    if action == 3 * squares:  # throw again: the next throw must beat this one
        state[PREVIOUS] = state[TOTAL]
        state[PHASE] = PHASE_THROW
        return
    kind, s = kind_square(action, squares)
    if kind == 2:
        state[BOARD + s] |= _CROSSED
        _end_turn(state, EVENT_CROSSED, s)
        return
    _fill(state, s, squares)  # written or blocked below
    if kind == 1:
        state[BOARD + s] = BLOCKED
        event = EVENT_BLOCKED
    else:
        state[BOARD + s] = number_code(seat, state[TOTAL])
        r, c = row_col(s, cols)
        if r > 0:
            _cross_opponent(state, seat, s - cols)
        if r < rows - 1:
            _cross_opponent(state, seat, s + cols)
        if c > 0:
            _cross_opponent(state, seat, s - 1)
        if c < cols - 1:
            _cross_opponent(state, seat, s + 1)
        event = EVENT_WROTE
    if line_filled(state):
        state[FIRST_DONE + seat] = 1
        state[PASSED + seat] = 0
        state[LAST_EVENT] = event
        state[LAST_SQUARE] = s
        state[TURN] += 1
        state[PHASE] = PHASE_OVER
        return
    _end_turn(state, event, s)


@njit(cache=True, inline="always")
def _end_turn(state: np.ndarray, event: int, square: int) -> None:
    seat = state[CURRENT]
    state[FIRST_DONE + seat] = 1
    state[PASSED + seat] = 1 if event == EVENT_ALL_FILLED else 0
    state[LAST_EVENT] = event
    state[LAST_SQUARE] = square
    state[TURN] += 1
    state[PREVIOUS] = 0
    if state[MAX_TURNS] > 0 and state[TURN] >= state[MAX_TURNS]:
        state[TRUNCATED] = 1
        state[PHASE] = PHASE_OVER
        return
    state[CURRENT] = 0 if seat + 1 == state[NUM_PLAYERS] else seat + 1
    state[TOTAL] = 0
    state[PHASE] = PHASE_THROW


@njit(cache=True)
def last_turn_seat(state: np.ndarray) -> int:
    """The seat whose turn ``LAST_EVENT`` ended (-1 before any turn ended): the player to move's predecessor, or
    the player to move itself once the game is over (the end does not pass the turn on)."""
    if state[LAST_EVENT] == EVENT_NONE:
        return -1
    if state[PHASE] == PHASE_OVER:
        return state[CURRENT]
    return (state[CURRENT] - 1) % state[NUM_PLAYERS]


@njit(cache=True, inline="always")
def line_filled(state: np.ndarray) -> bool:
    """The game's end: a full row or a full column (``END_ROW_OR_COLUMN``), or both (``END_ROW_AND_COLUMN``).

    One branch-free pass: each row's filled squares as bits; a full row is all ones, a full column a bit that
    every row has."""
    rows, cols = state[ROWS], state[COLS]
    squares = rows * cols
    line = np.uint64((1 << cols) - 1)
    full_row = False
    columns = line
    if squares <= BITBOARD_SQUARES:
        board = _bits_at(state, FILLED_LOW)
        for r in range(rows):
            filled = (board >> np.uint64(r * cols)) & line
            full_row |= filled == line
            columns &= filled
    else:
        for r in range(rows):
            base = BOARD + r * cols
            filled = np.uint64(0)
            for c in range(cols):
                filled |= np.uint64(state[_at(base + c)] != EMPTY) << np.uint64(c)
            full_row |= filled == line
            columns &= filled
    full_col = columns != 0
    if state[END_MODE] == END_ROW_AND_COLUMN:
        return full_row and full_col
    return full_row or full_col


# --- scoring


@njit(cache=True, inline="always")
def _own_live(code: int, seat: int) -> bool:
    return (code > BLOCKED) & ((code & _CROSSED) == 0) & (owner(code) == seat)


@njit(cache=True, inline="always")
def own_live_count(state: np.ndarray, seat: int) -> int:
    n = 0
    for s in range(state[ROWS] * state[COLS]):
        n += _own_live(state[_at(BOARD + s)], seat)
    return n


@njit(cache=True, inline="always")
def own_live_sum(state: np.ndarray, seat: int) -> int:
    n = 0
    for s in range(state[ROWS] * state[COLS]):
        code = state[_at(BOARD + s)]
        n += (code & 31) * _own_live(code, seat)
    return n


@njit(cache=True, inline="always")
def rank_key(state: np.ndarray, seat: int) -> int:
    """Uncrossed numbers first, their sum breaks ties (a sum stays below 2048 unless 114+ numbers survive):
    ``own_live_count * 2048 + own_live_sum``, in one pass."""
    key = 0
    for s in range(state[ROWS] * state[COLS]):
        code = state[_at(BOARD + s)]
        key += (2048 + (code & 31)) * _own_live(code, seat)
    return key


@njit(cache=True)
def final_reward(state: np.ndarray, seat: int) -> float:
    """+1 for a winner (equal best share the win), -1 otherwise; 0 before the end and after truncation."""
    if state[PHASE] != PHASE_OVER or state[TRUNCATED]:
        return 0.0
    mine = rank_key(state, seat)
    for other in range(state[NUM_PLAYERS]):
        if rank_key(state, other) > mine:
            return -1.0
    return 1.0


# --- shaping


@njit(cache=True)
def potentials(state: np.ndarray, out: np.ndarray) -> None:
    """``out[seat]`` = (own uncrossed numbers - the most any opponent has) / squares: the lead the shaping
    reward pays changes of (``shaping`` config key). A game's shaping rewards telescope, and the step that ends
    the game pays ``final_reward - potential``, so a player's return is still its final +-1 (or 0)."""
    n = state[NUM_PLAYERS]
    squares = state[ROWS] * state[COLS]
    counts = 0  # 8 bits per seat (at most 144 numbers), no scratch array
    for s in range(squares):
        code = state[_at(BOARD + s)]
        counts += np.int64(is_live(code)) << (8 * (owner(code) & 3))
    for seat in range(n):
        best = 0
        for other in range(n):
            if other != seat:
                best = max(best, (counts >> (8 * other)) & 255)
        out[seat] = (((counts >> (8 * seat)) & 255) - best) / squares


@njit(cache=True, inline="always")
def shaping_potentials(state: np.ndarray, out: np.ndarray) -> None:
    """The contract's shaping hook: ``potentials`` with ``shaping`` on, else 0
    (``dicearena.envs.common.batch_loops``)."""
    if state[SHAPING]:
        potentials(state, out)
    else:
        out[:] = 0.0


# --- observation


_INV_TOTAL = 1.0 / MAX_TOTAL
"""A number's channel value is ``float32(v * _INV_TOTAL)``, computed in float64: the float32 nearest v / 18 for
every v < 32 (so the observation is what a table of v / 18 gave; tests/test_yay_env.py compares every total 3..18),
without that table's per-square gather."""


@njit(cache=True, inline="always")
def _encode_sheet(state: np.ndarray, seat: int, obs: np.ndarray, n: int, squares: int, started: bool) -> int:
    """The per-square channels (``encode_observation``) in one branch-free pass; returns every relative seat's
    uncrossed numbers, 8 bits each (at most 144). Inlined with a constant ``n`` so the seat channels unroll: each
    compares the owner field with the seat it stands for (relative seat k is owner code ``(seat + k) % n + 1``)
    and scales the value by the match, with no select or per-square shift."""
    channels = 4 + n
    touched_on = np.int32(1) if started else np.int32(0)
    counts = 0
    for s in range(squares):
        code = state[_at(BOARD + s)]
        base = s * channels
        number = code > BLOCKED
        crossed = (code & _CROSSED) != 0
        live = number & ~crossed
        obs[_at(base)] = np.float32(code == EMPTY)
        obs[_at(base + 1)] = np.float32(code == BLOCKED)
        obs[_at(base + 2)] = np.float32(state[_at(TOUCHED + s)] * touched_on)
        obs[_at(base + 3)] = np.float32(number & crossed)
        owner_code = (code >> _OWNER_SHIFT) & 7
        value = np.float32(np.float64(code & 31) * _INV_TOTAL)
        for k in range(n):
            target = seat + k + 1
            target -= n if target > n else 0
            hit = live & (owner_code == target)
            obs[_at(base + 4 + k)] = value * np.float32(hit)
            counts += np.int64(hit) << (8 * k)
    return counts


@njit(cache=True)
def encode_observation(state: np.ndarray, seat: int, obs: np.ndarray) -> None:
    """The sheet from ``seat``'s side (layout in README.md): per square empty, blocked, touched, crossed, own
    number / 18, each opponent's uncrossed number / 18 in relative seat order; then the scalars, ending with each
    seat's rule-5 flag (a passed turn changes nothing else a player could see). With ``square_features``,
    ``observe`` appends each square's action value (``square_values``).

    One branch-free pass writing every slot (no clearing pass, no scratch array, counts gathered on the way): the
    batched engine encodes every game at every step, so this loop is most of its time."""
    n = state[NUM_PLAYERS]
    squares = state[ROWS] * state[COLS]
    started = state[PHASE] != PHASE_START
    if n == 2:
        counts = _encode_sheet(state, seat, obs, 2, squares, started)
    elif n == 3:
        counts = _encode_sheet(state, seat, obs, 3, squares, started)
    elif n == 4:
        counts = _encode_sheet(state, seat, obs, 4, squares, started)
    else:
        counts = _encode_sheet(state, seat, obs, n, squares, started)
    k = squares * (4 + n)
    phase = state[PHASE]
    to_move = state[CURRENT] == seat and phase != PHASE_OVER and started
    mover = state[CURRENT] - seat
    if mover < 0:
        mover += n
    obs[k] = 1.0 if to_move else 0.0
    obs[k + 1] = state[TOTAL] / MAX_TOTAL if started else 0.0
    obs[k + 2] = state[PREVIOUS] / MAX_TOTAL
    obs[k + 3] = 0.0 if state[FIRST_DONE + seat] else 1.0
    obs[k + 4] = 1.0 if phase == PHASE_CROSS and to_move else 0.0
    obs[k + 5] = 1.0 if phase == PHASE_OVER else 0.0
    obs[k + 6] = mover / n if started else 0.0
    obs[k + 7] = state[TURN] / max(state[MAX_TURNS], 1)
    other = seat  # relative seat rel's absolute seat, stepped without a modulo (an integer division a seat)
    for rel in range(n):
        obs[k + 8 + rel] = ((counts >> (8 * rel)) & 255) / squares
        obs[k + 8 + n + rel] = state[PASSED + other]
        other = 0 if other + 1 == n else other + 1


# --- square features (config ``square_features``): each square's action value, appended to the observation

SUM_UNIT = 90.0
"""Pips worth one uncrossed number in a square's value. One action moves the sum lead by at most 18 + 4 * 17 = 86
pips, so, as in the tie-break rule, a change of the sum never outweighs a change of the count."""
VALUE_OFFSET = 2.0
VALUE_SCALE = 8.0
"""A value is (the lead's change + VALUE_OFFSET) / VALUE_SCALE: the changes, -1 - 18/90 (a cross-off) to 5 + 86/90
(a write crossing four numbers), map into [0.1, 0.87], inside the observation's [0, 1] bounds and above the 0 of a
square with no legal action."""


@njit(cache=True, inline="always")
def _field(packed: int, rel: int, bits: int) -> int:
    """Relative seat ``rel``'s entry of a per-seat tally packed ``bits`` bits a seat."""
    return (packed >> (bits * rel)) & ((1 << bits) - 1)


@njit(cache=True, inline="always")
def _live_at(code: int, seat: int, n: int, hit: bool) -> tuple[int, int]:
    """An uncrossed number as per-seat tallies, if ``hit``: 1 in its owner's 8-bit count field and its value in
    the 16-bit sum field (relative seats; at most 144 numbers and 2592 pips a seat, so no field overflows)."""
    rel = owner(code) - seat  # empty and blocked: owner -1, any rel in 0..n-1 (hit is False there)
    rel += n if rel < 0 else 0
    return np.int64(hit) << (8 * (rel & 3)), np.int64((code & 31) * hit) << (16 * (rel & 3))


@njit(cache=True, inline="always")
def _tallies(state: np.ndarray, seat: int, n: int, squares: int) -> tuple[int, int]:
    """Every relative seat's uncrossed numbers and their sum (``_live_at``'s packing), in one pass."""
    counts, sums = 0, 0
    for s in range(squares):
        code = state[_at(BOARD + s)]
        count, pips = _live_at(code, seat, n, is_live(code))
        counts += count
        sums += pips
    return counts, sums


@njit(cache=True, inline="always")
def _best_opponent(counts: int, sums: int, n: int) -> tuple[int, int]:
    """The most uncrossed numbers any opponent has, and the highest sum of them any opponent has."""
    best_count, best_sum = 0, 0
    for rel in range(1, n):
        best_count = max(best_count, _field(counts, rel, 8))
        best_sum = max(best_sum, _field(sums, rel, 16))
    return best_count, best_sum


@njit(cache=True, inline="always")
def _crossed_beside(state: np.ndarray, seat: int, square: int, n: int) -> tuple[int, int]:
    """The opponents' uncrossed numbers orthogonally beside ``square`` (what a write there crosses), tallied."""
    rows, cols = state[ROWS], state[COLS]
    r, c = row_col(square, cols)
    counts, sums = 0, 0
    for t, inside in ((square - cols, r > 0), (square + cols, r < rows - 1), (square - 1, c > 0),
                      (square + 1, c < cols - 1)):  # fmt: skip
        code = state[BOARD + t] if inside else EMPTY
        count, pips = _live_at(code, seat, n, is_live(code) & (owner(code) != seat))
        counts += count
        sums += pips
    return counts, sums


@njit(cache=True, inline="always")
def _value(change: float) -> float:
    """A lead's change as a square's value (``VALUE_SCALE``)."""
    return (change + VALUE_OFFSET) / VALUE_SCALE


@njit(cache=True)
def square_values(state: np.ndarray, seat: int, obs: np.ndarray, at: int) -> None:
    """``obs[at + s]``: how much ``seat``'s legal action on square ``s`` (a write, block or cross-off; at most one
    is legal) changes its lead now, as ``_value``; 0 where ``seat`` has no legal action on ``s``.

    lead = (own uncrossed numbers - the most any opponent has) + (own sum - the highest opponent sum) / SUM_UNIT:
    the count, then the tie-break, of the final ranking. A write adds one own number and crosses every uncrossed
    opponent number beside it (it is legal, so it beats them all), a block changes no number, a cross-off loses one
    own number. Only the squares of legal actions are read, so it is cheap enough for every step."""
    squares = state[ROWS] * state[COLS]
    for s in range(squares):
        obs[_at(at + s)] = 0.0
    if not _to_decide(state, seat):
        return
    if state[PHASE] == PHASE_CROSS:
        for s in range(squares):
            if _may_cross(state, seat, s):
                obs[_at(at + s)] = _value(-1.0 - (state[_at(BOARD + s)] & 31) / SUM_UNIT)
        return
    n, total = state[NUM_PLAYERS], state[TOTAL]
    counts, sums = _tallies(state, seat, n, squares)
    best_count, best_sum = _best_opponent(counts, sums, n)
    any_write = False
    for s in range(squares):
        if not (_open(state, s) and write_allowed(state, seat, s, total)):
            continue
        lost_counts, lost_sums = _crossed_beside(state, seat, s, n)
        count_after, sum_after = _best_opponent(counts - lost_counts, sums - lost_sums, n)
        obs[_at(at + s)] = _value(1 + best_count - count_after + (total + best_sum - sum_after) / SUM_UNIT)
        any_write = True
    if not any_write:  # blocking, allowed only now, changes no number
        for s in range(squares):
            obs[_at(at + s)] = _value(0.0) if _open(state, s) else 0.0


# --- The game contract (dicearena.envs.common.contract): the same names and arity in every game


def sizes(config) -> Sizes:
    """Array lengths under ``config`` (a YayConfig); a chance outcome is 3 faces then the touched flags."""
    n, rows, cols = config.num_players, config.rows, config.cols
    return Sizes(n, STATE_SIZE, observation_size(n, rows, cols, config.square_features), num_actions(rows, cols),
                 NUM_DICE + rows * cols, CHANCE_WORDS)  # fmt: skip


def header(config) -> np.ndarray:
    """The rule knobs ``init_state`` writes into a state: players, sheet, end rule, turn limit, die size, shaping
    (the generic faces pay its shaped rewards through ``shaping_potentials``), zero_sum, square_features."""
    return np.array([*config.engine_args(), int(config.shaping), int(config.zero_sum), int(config.square_features)],
                    dtype=np.int32)  # fmt: skip


@njit(cache=True, inline="always")
def init_state(state: np.ndarray, head: np.ndarray) -> None:
    start_game(state, head[0], head[1], head[2], head[3], head[4], head[5])
    state[SHAPING] = head[6]
    state[ZERO_SUM] = head[7]
    state[SQUARE_FEATURES] = head[8]


@njit(cache=True, inline="always")
def die_size_of(state: np.ndarray) -> float:
    """The die's side in squares, from the header's float32 bits (as float64: one compiled landing for all).

    Decoded arithmetically (exact for every finite float32) rather than through an array view, which numba would
    reference-count per game."""
    bits = np.int64(state[DIE_SIZE]) & 0xFFFFFFFF
    exponent = (bits >> 23) & 0xFF
    mantissa = bits & 0x7FFFFF
    if exponent == 0:  # zero or subnormal
        value = np.ldexp(np.float64(mantissa), -149)
    else:
        value = np.ldexp(np.float64(mantissa | 0x800000), exponent - 150)
    return -value if bits >> 31 else value


@njit(cache=True, inline="always")
def to_act(state: np.ndarray) -> int:
    phase = state[PHASE]
    if phase == PHASE_DECIDE or phase == PHASE_CROSS:
        return state[CURRENT]
    return NOBODY if phase == PHASE_OVER else CHANCE


@njit(cache=True, inline="always")
def current_seat(state: np.ndarray) -> int:
    """Whose turn it is, also at the end: a throw at ``max_turns`` can end the game in the next player's turn, and
    the AEC env selects that player, as ``dicearena.envs.yay_v0`` does."""
    return state[CURRENT]


@njit(cache=True, inline="always")
def status(state: np.ndarray) -> int:
    if state[PHASE] != PHASE_OVER:
        return PLAYING
    return TRUNCATED_STATUS if state[TRUNCATED] else TERMINATED


@njit(cache=True, inline="always")
def rewards(state: np.ndarray, out: np.ndarray) -> None:
    """``final_reward`` of every seat: +1 a winner (a shared win too), -1 the others, 0 mid-game or truncated;
    with ``zero_sum``: +1/k each of the k winners, -1/(P-k) the others, 0 for all when all tie."""
    out[:] = 0.0
    if state[PHASE] != PHASE_OVER or state[TRUNCATED]:
        return
    n = state[NUM_PLAYERS]
    best = 0
    for seat in range(n):  # every seat's rank_key once (final_reward would recount the others' for each seat)
        key = rank_key(state, seat)
        out[seat] = key  # < 2**19: exact in any float
        best = max(best, key)
    if state[ZERO_SUM]:
        winners = 0
        for seat in range(n):
            if out[seat] == best:
                winners |= 1 << seat
        zero_sum_rewards(winners, n, out)
        return
    for seat in range(n):
        out[seat] = 1.0 if out[seat] == best else -1.0


@njit(cache=True, inline="always")
def observe(state: np.ndarray, seat: int, out: np.ndarray) -> None:
    """``encode_observation``, then with ``square_features`` the squares' action values after it (a branch here,
    not in that loop, so the default observation compiles as it did)."""
    encode_observation(state, seat, out)
    if state[SQUARE_FEATURES]:
        n, squares = state[NUM_PLAYERS], state[ROWS] * state[COLS]
        square_values(state, seat, out, squares * (4 + n) + 8 + 2 * n)


@njit(cache=True, inline="always")
def chance_words(state: np.ndarray) -> int:
    """A fixed block at a start roll or a throw: one word per face, one landing key (a start roll ignores it)."""
    return CHANCE_WORDS if dice_needed(state) > 0 else 0


# check_outcome codes (the spec's explain_outcome words them)
OUTCOME_BAD_FACE = 1
OUTCOME_BAD_FLAG = 2
OUTCOME_NOTHING_TOUCHED = 3


@njit(cache=True, inline="always")
def draw_outcome(state: np.ndarray, words: np.ndarray, outcome: np.ndarray) -> None:
    """Faces = word mod 6; at a throw the landing of key ``words[3]`` (``sample_landing``, rules/yay.md's model)
    as the touched flags of the ``rows * cols`` squares after them (zero at a start roll)."""
    for i in range(NUM_DICE):
        outcome[i] = words[i] % NUM_FACES
    rows, cols = state[ROWS], state[COLS]
    squares = rows * cols
    if not needs_landing(state):
        for s in range(squares):
            outcome[_at(NUM_DICE + s)] = 0
        return
    die_size = die_size_of(state)
    x0, y0, x1, y1, x2, y2 = _landing(words[NUM_DICE] % LANDING_KEYS, die_size, rows, cols)
    if squares <= BITBOARD_SQUARES:
        bits = _die_bits(x0, y0, die_size, rows, cols)
        bits |= _die_bits(x1, y1, die_size, rows, cols)
        bits |= _die_bits(x2, y2, die_size, rows, cols)
        _bits_to_array(bits, squares, outcome, NUM_DICE)
        return
    touched = outcome[NUM_DICE : NUM_DICE + squares]
    touched[:] = 0
    _touch_die(x0, y0, die_size, rows, cols, touched)
    _touch_die(x1, y1, die_size, rows, cols, touched)
    _touch_die(x2, y2, die_size, rows, cols, touched)


@njit(cache=True, inline="always")
def check_outcome(state: np.ndarray, outcome: np.ndarray) -> int:
    """0, or why the outcome is refused: a face outside 0..5, and at a throw a touched flag not 0/1 or no square
    touched (a start roll ignores the flags). Any touched set passes, so a test may script it square by square."""
    if bad_faces(NUM_DICE, outcome):
        return OUTCOME_BAD_FACE
    if not needs_landing(state):
        return 0
    touched = 0
    for s in range(state[ROWS] * state[COLS]):
        flag = outcome[NUM_DICE + s]
        if flag != 0 and flag != 1:
            return OUTCOME_BAD_FLAG
        touched += flag
    return 0 if touched > 0 else OUTCOME_NOTHING_TOUCHED


@njit(cache=True, inline="always")
def apply_outcome(state: np.ndarray, outcome: np.ndarray) -> None:
    """A start roll (the faces) or a throw (the faces and the touched flags)."""
    if needs_landing(state):
        _throw(state, outcome, outcome, NUM_DICE)
    else:
        apply_start_roll(state, outcome)  # reads the three faces only


@njit(cache=True)
def enumerate_outcomes(state: np.ndarray, outcomes: np.ndarray, probs: np.ndarray) -> int:
    """-1: landings are continuous, so a throw's outcomes are not enumerable (sample ``draw_outcome`` instead)."""
    return -1


@njit(cache=True)
def _standings_into(states: np.ndarray, num_players: int, out: np.ndarray) -> None:
    for b in range(states.shape[0]):
        for s in range(num_players):
            out[b, s, 0] = own_live_count(states[b], s)
            out[b, s, 1] = own_live_sum(states[b], s)


def final_standings(states: np.ndarray, num_players: int) -> np.ndarray:
    """(k, P, 2): uncrossed numbers and their sum per seat of k engine states (e.g. ``info["final_state"]``)."""
    out = np.zeros((states.shape[0], num_players, 2), dtype=np.int64)
    _standings_into(np.ascontiguousarray(states, dtype=np.int32), num_players, out)
    return out
