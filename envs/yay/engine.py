"""The Yay! rules engine: the only place this game's rules exist (spec: ../shared/rules/yay.md).

State is one flat ``int32`` array; every function here is a small numba-compiled scalar function over it.
Chance is explicit and comes in two kinds, both supplied by the caller:

- the *start roll* (``PHASE_START``): one player's three faces, to decide who starts;
- a *throw* (``PHASE_THROW``): three faces plus the squares the dice touch. Where the dice land is the
  chance model of rules/yay.md; ``touched_squares`` turns die positions into squares and ``dice_overlap``
  says whether a landing must be drawn again, so a source can draw landings and a test can place dice.

Everything else is a decision of the player to move (``CURRENT``): write, block, throw again, cross off.
The board size, the end rule, the turn limit and the die size live in the state, so one compiled engine serves
every config. The end of the file is the game contract (``envs.common.contract``), where a chance outcome is the
three faces followed by the touched flags, drawn from four random words. No PettingZoo or Gymnasium here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.common.contract import CHANCE, NOBODY, PLAYING, TERMINATED, Sizes, float_bits
from envs.common.contract import TRUNCATED as TRUNCATED_STATUS
from envs.common.dice_outcomes import bad_faces

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
STATE_SIZE = PASSED + MAX_PLAYERS

DEFAULT_DIE_BITS = float_bits(1.27)  # the config's default die (for states rebuilt without a config)
LANDING_KEYS = 2**62  # landing keys are 0..LANDING_KEYS-1 (``sample_landing`` runs SplitMix64 from one)
CHANCE_WORDS = NUM_DICE + 1  # random words per chance event: one per face, one landing key


def num_actions(rows: int, cols: int) -> int:
    """write at s, block s, cross off own s (rows * cols each), throw again (1)."""
    return 3 * rows * cols + 1


def observation_size(num_players: int, rows: int, cols: int) -> int:
    """Per square 4 + num_players channels, then 8 + 2 * num_players scalars (see README.md)."""
    return rows * cols * (4 + num_players) + 8 + 2 * num_players


# --- squares


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
def _live(code: int) -> bool:
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


@njit(cache=True)
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


@njit(cache=True)
def touched_squares(corners: np.ndarray, die_size: float, rows: int, cols: int, out: np.ndarray) -> None:
    """``out[s] = 1`` for every square a die overlaps with positive area.

    ``corners[i] = (x, y)``: the lower corner of die i in board units (square (r, c) spans [c, c+1] x [r, r+1]).
    """
    out[: rows * cols] = 0
    for i in range(corners.shape[0]):
        x, y = corners[i, 0], corners[i, 1]
        c0, r0 = int(np.floor(x)), int(np.floor(y))
        c1, r1 = int(np.ceil(x + die_size)) - 1, int(np.ceil(y + die_size)) - 1
        for r in range(max(r0, 0), min(r1, rows - 1) + 1):
            for c in range(max(c0, 0), min(c1, cols - 1) + 1):
                out[r * cols + c] = 1


@njit(cache=True)
def dice_overlap(corners: np.ndarray, k: int, die_size: float) -> bool:
    """True if die ``k`` overlaps (with positive area) any of dice ``0..k-1``: that landing is drawn again."""
    for j in range(k):
        if abs(corners[k, 0] - corners[j, 0]) < die_size and abs(corners[k, 1] - corners[j, 1]) < die_size:
            return True
    return False


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_UNIT = 1.0 / 9007199254740992.0  # 2 ** -53
MAX_LANDING_DRAWS = 1000  # draws of one die before the whole throw is drawn again
MAX_THROW_DRAWS = 100_000  # whole throws before giving up (only on sheets the config rejects)


@njit(cache=True, inline="always")
def _splitmix(x: np.uint64) -> tuple[np.uint64, float]:
    """SplitMix64: the next generator word and a uniform float in [0, 1) (cheap enough to run per throw)."""
    x = x + _GOLDEN
    z = x
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
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
def _draw_die(x: np.uint64, k: int, high_x: float, high_y: float, die_size: float, corners: np.ndarray):
    """Draw die ``k``'s corner until it overlaps no earlier die, at most ``MAX_LANDING_DRAWS`` times: (next
    generator word, whether it found room). The default sheet needs a few draws at most."""
    for _ in range(MAX_LANDING_DRAWS):
        x, u = _splitmix(x)
        corners[k, 0] = u * high_x
        x, u = _splitmix(x)
        corners[k, 1] = u * high_y
        if not dice_overlap(corners, k, die_size):
            return x, True
    return x, False


@njit(cache=True)
def sample_landing(key: int, die_size: float, rows: int, cols: int, corners: np.ndarray) -> None:
    """Where three dice land (rules/yay.md's model), a pure function of ``key``: each die's lower corner uniform
    over the positions that keep it whole on the sheet, drawn again while it overlaps an earlier die; after
    ``MAX_LANDING_DRAWS`` failed draws of one die (the first two left too little room) the whole throw is drawn
    again, continuing the same stream. Never returns overlapping dice: on a sheet ``dice_always_fit`` accepts
    every draw ends; elsewhere, after ``MAX_THROW_DRAWS`` whole throws, a ValueError."""
    x = np.uint64(key)
    high_x, high_y = cols - die_size, rows - die_size
    for _ in range(MAX_THROW_DRAWS):
        placed = 0
        while placed < NUM_DICE:
            x, ok = _draw_die(x, placed, high_x, high_y, die_size, corners)
            if not ok:
                break  # no room left beside the dice already placed: throw all three again
            placed += 1
        if placed == NUM_DICE:
            return
    raise ValueError("sample_landing: three dice found no room without overlapping (see engine.dice_always_fit)")


@njit(cache=True)
def apply_throw(state: np.ndarray, faces: np.ndarray, touched: np.ndarray) -> None:
    """A throw of the player to move: faces 0..5 and the 0/1 touched flags of the ``rows * cols`` squares.

    A re-throw that is not higher than the previous one forces a cross-off (rule 9; decided before rule 5, as
    its points never count); a throw touching only filled squares passes the turn (rule 5); else the player decides.
    """
    squares = state[ROWS] * state[COLS]
    total = NUM_DICE
    for i in range(NUM_DICE):
        state[DICE + i] = faces[i] + 1
        total += faces[i]
    for s in range(squares):
        state[TOUCHED + s] = touched[s]
    state[TOTAL] = total
    if state[PREVIOUS] > 0 and total <= state[PREVIOUS]:
        if own_live_count(state, state[CURRENT]) > 0:
            state[PHASE] = PHASE_CROSS
        else:
            _end_turn(state, EVENT_NOT_HIGHER, -1)
        return
    for s in range(squares):
        if touched[s] and state[BOARD + s] == EMPTY:
            state[PHASE] = PHASE_DECIDE
            return
    _end_turn(state, EVENT_ALL_FILLED, -1)


# --- decisions


@njit(cache=True, inline="always")
def _beaten_by(state: np.ndarray, seat: int, square: int, total: int) -> bool:
    """An uncrossed opponent number in ``square`` that ``total`` does not beat."""
    code = state[BOARD + square]
    return code > BLOCKED and (code & _CROSSED) == 0 and owner(code) != seat and (code & 31) >= total


@njit(cache=True, inline="always")
def write_allowed(state: np.ndarray, seat: int, square: int, total: int) -> bool:
    """``total`` may go into the empty ``square``: higher than every uncrossed opponent number beside it."""
    rows, cols = state[ROWS], state[COLS]
    r, c = square // cols, square % cols
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


@njit(cache=True, inline="always")
def _may_cross(state: np.ndarray, seat: int, square: int) -> bool:
    """``seat``'s own uncrossed number, which a forced cross-off may take."""
    code = state[BOARD + square]
    return _live(code) and owner(code) == seat


@njit(cache=True, inline="always")
def _to_decide(state: np.ndarray, seat: int) -> bool:
    phase = state[PHASE]
    return seat == state[CURRENT] and (phase == PHASE_DECIDE or phase == PHASE_CROSS)


@njit(cache=True, inline="always")
def can_write_somewhere(state: np.ndarray) -> bool:
    seat, total = state[CURRENT], state[TOTAL]
    for s in range(state[ROWS] * state[COLS]):
        if _open(state, s) and write_allowed(state, seat, s, total):
            return True
    return False


@njit(cache=True)
def legal_mask(state: np.ndarray, seat: int, mask: np.ndarray) -> None:
    """0/1 legal actions of ``seat``: all zero unless it is the player to move at a decision."""
    mask[:] = 0
    if not _to_decide(state, seat):
        return
    squares = state[ROWS] * state[COLS]
    if state[PHASE] == PHASE_CROSS:
        for s in range(squares):
            if _may_cross(state, seat, s):
                mask[2 * squares + s] = 1
        return
    total = state[TOTAL]
    any_write = False
    for s in range(squares):
        if _open(state, s) and write_allowed(state, seat, s, total):
            mask[s] = 1
            any_write = True
    if not any_write:  # blocking only when no touched square allows writing
        for s in range(squares):
            if _open(state, s):
                mask[squares + s] = 1
    if state[FIRST_DONE + seat]:  # the first throw counts
        mask[3 * squares] = 1


@njit(cache=True)
def is_legal(state: np.ndarray, seat: int, action: int) -> bool:
    """``legal_mask(...)[action] == 1``, without building the mask (the same predicates, one action)."""
    squares = state[ROWS] * state[COLS]
    if action < 0 or action > 3 * squares or not _to_decide(state, seat):
        return False
    kind, s = action // squares, action % squares
    if state[PHASE] == PHASE_CROSS:
        return kind == 2 and _may_cross(state, seat, s)
    if kind == 3:
        return state[FIRST_DONE + seat] == 1
    if kind == 2 or not _open(state, s):
        return False
    if kind == 0:
        return write_allowed(state, seat, s, state[TOTAL])
    return not can_write_somewhere(state)


@njit(cache=True)
def apply_action(state: np.ndarray, seat: int, action: int) -> None:
    """Play ``seat``'s *legal* action (check with ``is_legal``: ``seat`` is the player to move)."""
    rows, cols = state[ROWS], state[COLS]
    squares = rows * cols
    if action == 3 * squares:  # throw again: the next throw must beat this one
        state[PREVIOUS] = state[TOTAL]
        state[PHASE] = PHASE_THROW
        return
    kind, s = action // squares, action % squares
    if kind == 2:
        state[BOARD + s] |= _CROSSED
        _end_turn(state, EVENT_CROSSED, s)
        return
    if kind == 1:
        state[BOARD + s] = BLOCKED
        event = EVENT_BLOCKED
    else:
        total = state[TOTAL]
        state[BOARD + s] = number_code(seat, total)
        r, c = s // cols, s % cols
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < rows and 0 <= cc < cols:
                t = rr * cols + cc
                code = state[BOARD + t]
                if _live(code) and owner(code) != seat:
                    state[BOARD + t] = code | _CROSSED
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
    state[CURRENT] = (seat + 1) % state[NUM_PLAYERS]
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
def _any_full_line(state: np.ndarray, lines: int, length: int, line_step: int, square_step: int) -> bool:
    """True if one of ``lines`` lines (squares ``i * line_step + j * square_step``, j < ``length``) has no
    empty square: rows are (rows, cols, cols, 1), columns (cols, rows, 1, cols)."""
    for i in range(lines):
        full = True
        for j in range(length):
            if state[BOARD + i * line_step + j * square_step] == EMPTY:
                full = False
                break
        if full:
            return True
    return False


@njit(cache=True)
def line_filled(state: np.ndarray) -> bool:
    """The game's end: a full row or a full column (``END_ROW_OR_COLUMN``), or both (``END_ROW_AND_COLUMN``)."""
    rows, cols = state[ROWS], state[COLS]
    full_row = _any_full_line(state, rows, cols, cols, 1)
    full_col = _any_full_line(state, cols, rows, 1, cols)
    if state[END_MODE] == END_ROW_AND_COLUMN:
        return full_row and full_col
    return full_row or full_col


# --- scoring


@njit(cache=True, inline="always")
def own_live_count(state: np.ndarray, seat: int) -> int:
    n = 0
    for s in range(state[ROWS] * state[COLS]):
        code = state[BOARD + s]
        if _live(code) and owner(code) == seat:
            n += 1
    return n


@njit(cache=True, inline="always")
def own_live_sum(state: np.ndarray, seat: int) -> int:
    n = 0
    for s in range(state[ROWS] * state[COLS]):
        code = state[BOARD + s]
        if _live(code) and owner(code) == seat:
            n += value_of(code)
    return n


@njit(cache=True, inline="always")
def rank_key(state: np.ndarray, seat: int) -> int:
    """Uncrossed numbers first, their sum breaks ties (a sum stays below 2048 unless 114+ numbers survive)."""
    return own_live_count(state, seat) * 2048 + own_live_sum(state, seat)


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
    counts = np.zeros(MAX_PLAYERS, dtype=np.int32)
    for s in range(squares):
        code = state[BOARD + s]
        if code > BLOCKED and (code & _CROSSED) == 0:
            counts[owner(code)] += 1
    for seat in range(n):
        best = 0
        for other in range(n):
            if other != seat and counts[other] > best:
                best = counts[other]
        out[seat] = (counts[seat] - best) / squares


# --- observation


@njit(cache=True)
def encode_observation(state: np.ndarray, seat: int, obs: np.ndarray) -> None:
    """The sheet from ``seat``'s side (layout in README.md): per square empty, blocked, touched, crossed, own
    number / 18, each opponent's uncrossed number / 18 in relative seat order; then the scalars, ending with each
    seat's rule-5 flag (a passed turn changes nothing else a player could see).

    One pass writing every slot (no clearing pass, counts gathered on the way): the batched engine encodes
    every game at every step, so this loop is most of its time."""
    n = state[NUM_PLAYERS]
    squares = state[ROWS] * state[COLS]
    channels = 4 + n
    started = state[PHASE] != PHASE_START
    counts = np.zeros(MAX_PLAYERS, dtype=np.int32)
    for s in range(squares):
        code = state[BOARD + s]
        base = s * channels
        obs[base] = 1.0 if code == EMPTY else 0.0
        obs[base + 1] = 1.0 if code == BLOCKED else 0.0
        obs[base + 2] = state[TOUCHED + s] if started else 0
        live = code > BLOCKED and (code & _CROSSED) == 0
        obs[base + 3] = 1.0 if code > BLOCKED and not live else 0.0
        for rel in range(n):
            obs[base + 4 + rel] = 0.0
        if live:
            rel = owner(code) - seat
            if rel < 0:
                rel += n
            obs[base + 4 + rel] = (code & 31) / MAX_TOTAL
            counts[rel] += 1
    k = squares * channels
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
    for rel in range(n):
        obs[k + 8 + rel] = counts[rel] / squares
        obs[k + 8 + n + rel] = state[PASSED + (seat + rel) % n]


# --- The game contract (envs.common.contract): the same names and arity in every game


def sizes(config) -> Sizes:
    """Array lengths under ``config`` (a YayConfig); a chance outcome is 3 faces then the touched flags."""
    n, rows, cols = config.num_players, config.rows, config.cols
    return Sizes(n, STATE_SIZE, observation_size(n, rows, cols), num_actions(rows, cols), NUM_DICE + rows * cols,
                 CHANCE_WORDS)  # fmt: skip


def header(config) -> np.ndarray:
    """The rule knobs ``init_state`` writes into a state: players, sheet, end rule, turn limit, die size.

    ``shaping`` is refused: the contract pays final rewards only (``rewards``), so the generic faces would silently
    drop it; Yay!'s own faces (``envs.yay_v0``, ``BatchedYay``, the seat env) pay it."""
    if config.shaping:
        raise NotImplementedError(
            "Yay!: 'shaping' is not on the game contract (its faces pay final rewards only); use envs.yay_v0.env(), "
            "envs.yay.batched.BatchedYay or YayVsOpponents-v0 for shaped rewards"
        )
    return np.array([*config.engine_args()], dtype=np.int32)


@njit(cache=True, inline="always")
def init_state(state: np.ndarray, head: np.ndarray) -> None:
    start_game(state, head[0], head[1], head[2], head[3], head[4], head[5])


@njit(cache=True, inline="always")
def die_size_of(state: np.ndarray) -> float:
    """The die's side in squares, from the header's float32 bits (as float64: one compiled landing for all)."""
    return np.float64(state[DIE_SIZE : DIE_SIZE + 1].view(np.float32)[0])


@njit(cache=True, inline="always")
def to_act(state: np.ndarray) -> int:
    phase = state[PHASE]
    if phase == PHASE_DECIDE or phase == PHASE_CROSS:
        return state[CURRENT]
    return NOBODY if phase == PHASE_OVER else CHANCE


@njit(cache=True, inline="always")
def current_seat(state: np.ndarray) -> int:
    """Whose turn it is, also at the end: a throw at ``max_turns`` can end the game in the next player's turn, and
    the AEC env selects that player, as ``envs.yay_v0`` does."""
    return state[CURRENT]


@njit(cache=True, inline="always")
def status(state: np.ndarray) -> int:
    if state[PHASE] != PHASE_OVER:
        return PLAYING
    return TRUNCATED_STATUS if state[TRUNCATED] else TERMINATED


@njit(cache=True, inline="always")
def rewards(state: np.ndarray, out: np.ndarray) -> None:
    """``final_reward`` of every seat: +1 a winner (a shared win too), -1 the others, 0 mid-game or truncated."""
    out[:] = 0.0
    for seat in range(state[NUM_PLAYERS]):
        out[seat] = final_reward(state, seat)


@njit(cache=True, inline="always")
def observe(state: np.ndarray, seat: int, out: np.ndarray) -> None:
    encode_observation(state, seat, out)


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
    touched = outcome[NUM_DICE : NUM_DICE + rows * cols]
    if not needs_landing(state):
        touched[:] = 0
        return
    die_size = die_size_of(state)
    corners = np.empty((NUM_DICE, 2))
    sample_landing(words[NUM_DICE] % LANDING_KEYS, die_size, rows, cols, corners)
    touched_squares(corners, die_size, rows, cols, touched)


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
        apply_throw(state, outcome[:NUM_DICE], outcome[NUM_DICE:])
    else:
        apply_start_roll(state, outcome[:NUM_DICE])


@njit(cache=True)
def enumerate_outcomes(state: np.ndarray, outcomes: np.ndarray, probs: np.ndarray) -> int:
    """-1: landings are continuous, so a throw's outcomes are not enumerable (sample ``draw_outcome`` instead)."""
    return -1
