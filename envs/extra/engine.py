"""The Extra! rules engine: the only place this game's rules exist.

State is one flat ``int32`` array; every function here is a small numba-compiled scalar function over it,
called once per step by the PettingZoo faces and looped over the batch by the batched engine's kernels
(``game.py``).
Chance is explicit: a state is either a *chance node* (``dice_needed(state) > 0``: the caller supplies five
faces to ``apply_chance``) or a *decision node* where every seat still playing decides on the same throw.

Simultaneous decisions: ``apply_action(state, seat, action)`` only records the seat's choice; when every
seat still playing has chosen, the round resolves (all sheets change at once, finishers are marked) and
the next throw is pending. So a seat deciding later in the same round never sees an earlier choice.

The score sheet (minus boxes, victory points, penalty, EXTRA column lengths) and the reward knobs live in the
state, so one compiled engine serves every config. No PettingZoo or Gymnasium here. The game contract's names
(``dicearena.envs.common.contract``) are at the end; the game's own names above are what the agents and tests call.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicearena.envs.common.contract import CHANCE, NOBODY, PLAYING, SIMULTANEOUS, TERMINATED, Sizes
from dicearena.envs.common.dice_outcomes import bad_faces, draw_faces
from dicearena.envs.common.rewards import zero_sum_rewards

NUM_DICE = 5
NUM_FACES = 6
NUM_ROWS = 11  # pair sums 2..12
MIN_SUM = 2
NUM_COLUMNS = 3  # EXTRA chart columns
NUM_FACTORS = 5  # factor boxes x1..x5 after the 0 box
NUM_PAIRINGS = 3
NUM_ACTIONS = NUM_DICE * NUM_PAIRINGS * NUM_COLUMNS  # 45: action = 9 * fifth die + 3 * pairing + column
MAX_PLAYERS = 6

# The default sheet (rules/extra.md): per row sum 2..12.
DEFAULT_MINUS_BOXES = (3, 3, 4, 5, 7, 7, 7, 5, 4, 3, 3)
DEFAULT_POINTS = (100, 70, 60, 50, 40, 30, 40, 50, 60, 70, 100)
DEFAULT_PENALTY = 200
DEFAULT_EXTRA_COLUMNS = (9, 8, 7)


def _build_pairings() -> np.ndarray:
    """PAIRINGS[e, p] = (a, b, c, d): with die e as fifth die, pairing p makes pairs (a, b) and (c, d)."""
    table = np.zeros((NUM_DICE, NUM_PAIRINGS, 4), dtype=np.int64)
    for e in range(NUM_DICE):
        a, b, c, d = (i for i in range(NUM_DICE) if i != e)
        table[e, 0] = (a, b, c, d)
        table[e, 1] = (a, c, b, d)
        table[e, 2] = (a, d, b, c)
    return table


PAIRINGS = _build_pairings()

# Phases.
PHASE_ROLL = 0  # chance: the five dice are thrown
PHASE_DECIDE = 1  # decision: every seat still playing splits the throw
PHASE_OVER = 2  # terminal: every seat has finished

# extra_rule outcomes for a fifth die (besides a fixed column 0..2).
RULE_NOT_ALLOWED = -2  # three EXTRA numbers, the throw holds one, this die is not one of them
RULE_LUCKY = -1  # three EXTRA numbers, none in the throw: no EXTRA check, column must be 0
RULE_ANY_EMPTY = 3  # a new EXTRA number: any empty column

# Reward modes.
REWARD_WIN = 0
REWARD_SCORE = 1

# State slots.
NUM_PLAYERS = 0
PHASE = 1
CHILDREN = 2  # 1: a new EXTRA number is written without checking its first box
ROUND = 3  # throws so far (1-based round in progress)
PENALTY = 4  # points lost by a row that never left the minus zone
DICE = 5  # 5..9: the throw, faces 1..6 (valid from the first throw)
MINUS = 10  # 10..20: minus boxes per row
POINTS = 21  # 21..31: victory points per row
COLUMN_LENGTH = 32  # 32..34: boxes per EXTRA column
REWARD_MODE = 35  # REWARD_WIN or REWARD_SCORE (config reward; the contract's rewards read it)
SHAPING = 36  # 1: the "score" reward is paid as each round's score change (config shaping)
ZERO_SUM = 37  # 1: the "win" reward is zero-sum (config zero_sum; ``dicearena.envs.common.rewards``)
CANONICAL = 38  # 1: one legal id per distinct resulting sheet (config canonical_actions; ``legal_mask``)
PLAYERS = 39  # per-seat blocks of PLAYER_SIZE
# Offsets inside a seat's block.
P_ROWS = 0  # 11: checks per row
P_NUMBER = 11  # 3: EXTRA number of each column, 0 = not written yet
P_CHECKS = 14  # 3: checks per EXTRA column
P_DONE = 17  # 1 once the seat has finished
P_PENDING = 18  # this round's choice, -1 while undecided
P_LAST = 19  # the choice applied in the last resolved round, -1 if none
P_FINISH_ROUND = 20  # round in which the seat finished, 0 while playing
P_GAIN = 21  # change of the seat's score in the last resolved round (0 if it did not play that round)
PLAYER_SIZE = 22
STATE_SIZE = PLAYERS + MAX_PLAYERS * PLAYER_SIZE


def decode_action(action: int) -> tuple[int, int, int]:
    """(fifth die index, pairing, column) of an action id."""
    return action // 9, (action // 3) % 3, action % 3


def encode_action(fifth: int, pairing: int, column: int) -> int:
    return 9 * fifth + 3 * pairing + column


@njit(cache=True, inline="always")
def start_game(
    state: np.ndarray,
    num_players: int,
    children: int,
    penalty: int,
    minus: np.ndarray,
    points: np.ndarray,
    columns: np.ndarray,
) -> None:
    """A new game: empty sheets for ``num_players`` seats, the first throw pending; the reward knobs 0 ("win", no
    shaping: ``init_state`` writes the config's)."""
    state[:] = 0
    state[NUM_PLAYERS] = num_players
    state[CHILDREN] = children
    state[PENALTY] = penalty
    for r in range(NUM_ROWS):
        state[MINUS + r] = minus[r]
        state[POINTS + r] = points[r]
    for j in range(NUM_COLUMNS):
        state[COLUMN_LENGTH + j] = columns[j]
    for seat in range(num_players):
        base = PLAYERS + seat * PLAYER_SIZE
        state[base + P_PENDING] = -1
        state[base + P_LAST] = -1
    state[PHASE] = PHASE_ROLL


@njit(cache=True, inline="always")
def dice_needed(state: np.ndarray) -> int:
    """How many faces the pending chance event needs (0 at decision and terminal nodes)."""
    return NUM_DICE if state[PHASE] == PHASE_ROLL else 0


@njit(cache=True, inline="always")
def apply_chance(state: np.ndarray, faces: np.ndarray) -> None:
    """Resolve the throw with ``faces[:5]`` (0-based, 0..5; stored as pips 1..6)."""
    for i in range(NUM_DICE):
        state[DICE + i] = faces[i] + 1
    state[ROUND] += 1
    state[PHASE] = PHASE_DECIDE


@njit(cache=True, inline="always")
def must_act(state: np.ndarray, seat: int) -> bool:
    """True when ``seat`` still has to decide on the current throw.

    Written with ``&`` and a clamped index instead of short-circuit ``and``/``or``: in the batched loops that
    form compiled to code over ten times slower (measured), and this is called for every seat every step.
    """
    inside = (seat >= 0) & (seat < state[NUM_PLAYERS])
    base = PLAYERS + min(max(seat, 0), MAX_PLAYERS - 1) * PLAYER_SIZE
    return inside & (state[PHASE] == PHASE_DECIDE) & (state[base + P_DONE] == 0) & (state[base + P_PENDING] < 0)


@njit(cache=True, inline="always")
def _chart(state: np.ndarray, base: int) -> tuple[int, bool]:
    """(EXTRA numbers written, whether the throw holds one of them) for the seat block at ``base``."""
    present = 0  # bit f set: some die shows f pips (bit 0 never: 0 means "no number")
    for i in range(NUM_DICE):
        present |= 1 << state[DICE + i]
    written = 0
    held = 0
    for j in range(NUM_COLUMNS):
        number = state[base + P_NUMBER + j]
        written += number != 0
        held |= (present >> number) & 1
    return written, held != 0


@njit(cache=True, inline="always")
def _number_column(state: np.ndarray, base: int, value: int) -> int:
    """The column whose EXTRA number is ``value``, -1 if none (no branches: the batched loops call it a lot)."""
    column = -1
    for j in range(NUM_COLUMNS):
        column = j if state[base + P_NUMBER + j] == value else column
    return column


@njit(cache=True, inline="always")
def _other_rule(written: int, held: bool) -> int:
    """The rule for a fifth die that is not an EXTRA number, given the seat's ``_chart``."""
    return RULE_ANY_EMPTY if written < NUM_COLUMNS else (RULE_NOT_ALLOWED if held else RULE_LUCKY)


@njit(cache=True, inline="always")
def extra_rule(state: np.ndarray, seat: int, fifth: int) -> int:
    """What the EXTRA chart demands if die ``fifth`` is the fifth die: a column 0..2, or a RULE_* code."""
    base = PLAYERS + seat * PLAYER_SIZE
    column = _number_column(state, base, state[DICE + fifth])
    written, held = _chart(state, base)
    other = _other_rule(written, held)
    return column if column >= 0 else other


# The throw as five 4-bit lanes (die e at bits 4e..4e+3), so one integer operation compares all five dice.
_LANE = 0x11111  # bit 0 of every die's lane
_SEVENS = 7 * _LANE
_EIGHTS = 8 * _LANE


@njit(cache=True, inline="always")
def _throw_lanes(state: np.ndarray) -> int:
    """The throw's pips, die e in lane e (the same for every seat, so ``observe_all`` packs it once)."""
    lanes = 0
    for e in range(NUM_DICE):
        lanes |= state[DICE + e] << (4 * e)
    return lanes


@njit(cache=True, inline="always")
def _die_columns(state: np.ndarray, base: int, lanes: int) -> int:
    """The EXTRA columns (bits) the seat block at ``base`` may check with each die as the fifth die, die e in lane
    e: the column of its value if that is an EXTRA number; else every empty column, or none if the throw holds an
    EXTRA number, or column 0 on a lucky guy (three numbers, none thrown). Only sensible when the seat acts.

    Why lanes: ``legal_mask``, ``is_legal`` and the gain slots all need it per seat and step. A lane that is
    zero after XOR with a number is a die showing it (``+ 7`` carries into bit 3 of every other lane); and no
    branch, as the rule varies from game to game (measured in the batched encoder: under half the cost of die by die).
    """
    n0 = state[base + P_NUMBER]
    n1 = state[base + P_NUMBER + 1]
    n2 = state[base + P_NUMBER + 2]
    h0 = _EIGHTS & ~((lanes ^ (n0 * _LANE)) + _SEVENS)  # bit 4e + 3: die e shows n0 (never, if n0 = 0 is unwritten)
    h1 = _EIGHTS & ~((lanes ^ (n1 * _LANE)) + _SEVENS)
    h2 = _EIGHTS & ~((lanes ^ (n2 * _LANE)) + _SEVENS)
    hits = h0 | h1 | h2
    empty = (n0 == 0) | ((n1 == 0) << 1) | ((n2 == 0) << 2)
    other = empty | ((empty == 0) & (hits == 0))  # columns for a die showing no EXTRA number
    return (h0 >> 3) | (h1 >> 2) | (h2 >> 1) | (((_EIGHTS ^ hits) >> 3) * other)


def _build_mask_pattern() -> np.ndarray:
    """_MASK_PATTERN[columns] = the 9 mask entries (3 * pairing + column) of one fifth die whose allowed
    columns are the bits of ``columns``: every pairing goes with every allowed column."""
    table = np.zeros((1 << NUM_COLUMNS, NUM_PAIRINGS * NUM_COLUMNS), dtype=np.int8)
    for columns in range(1 << NUM_COLUMNS):
        for p in range(NUM_PAIRINGS):
            for c in range(NUM_COLUMNS):
                table[columns, 3 * p + c] = (columns >> c) & 1
    return table


_MASK_PATTERN = _build_mask_pattern()


@njit(cache=True, inline="always")
def legal_mask(state: np.ndarray, seat: int, mask: np.ndarray) -> None:
    """Write ``seat``'s action mask (all zero unless the seat must decide now); with ``canonical_actions`` only the
    lowest id of each resulting sheet.

    Shaped for the batched engine, which calls it for every seat of every game each step (measured 4x faster
    than the plain form): no early return or slice fill, every die's columns worked out at once
    (``_die_columns``), each die's 9 entries copied from a table.
    """
    act = must_act(state, seat)
    base = PLAYERS + min(max(seat, 0), MAX_PLAYERS - 1) * PLAYER_SIZE
    packed = _die_columns(state, base, _throw_lanes(state)) * act
    for e in range(NUM_DICE):
        columns = (packed >> (4 * e)) & 7
        for k in range(NUM_PAIRINGS * NUM_COLUMNS):
            mask[9 * e + k] = _MASK_PATTERN[columns, k]
    if state[CANONICAL] != 0:  # the same for every game of a batch: a predicted branch, the work out of line
        _canonical_mask(state, base, mask)


@njit(cache=True, inline="always")
def is_legal(state: np.ndarray, seat: int, action: int) -> bool:
    """Branch-free like ``must_act`` (indices clamped, the verdict masked): the batched engine checks every
    action of every step."""
    inside = (action >= 0) & (action < NUM_ACTIONS)
    a = min(max(action, 0), NUM_ACTIONS - 1)
    base = PLAYERS + min(max(seat, 0), MAX_PLAYERS - 1) * PLAYER_SIZE
    columns = _die_columns(state, base, _throw_lanes(state)) >> (4 * (a // 9))
    legal = inside & must_act(state, seat) & (((columns >> (a % 3)) & 1) == 1)
    if legal & (state[CANONICAL] != 0):
        legal = _canonical_id(state, base, a)
    return legal


@njit(cache=True, inline="always")
def _one_more(state: np.ndarray, r: int, checks: int) -> int:
    """Checks of row index ``r`` after one more check: a full row takes nothing."""
    return checks + (checks < state[MINUS + r] + 1 + NUM_FACTORS)


@njit(cache=True, inline="always")
def _check_row(state: np.ndarray, base: int, total: int) -> int:
    """One check in row ``total`` (2..12) in its first empty box. Returns the change of the row's score (only
    this row changes, so the seat's score changes by exactly that)."""
    r = total - MIN_SUM
    old = state[base + P_ROWS + r]
    new = _one_more(state, r, old)
    state[base + P_ROWS + r] = new
    return row_score(state, r, new) - row_score(state, r, old)


@njit(cache=True, inline="always")
def pairs_gain(state: np.ndarray, seat: int, first: int, second: int) -> int:
    """How much the seat's score would change by checking pair sums ``first`` and ``second`` (the sheet is not
    changed). Only the pairs move the score, so this is an action's immediate score change (its shaped reward
    x 100); the observation shows it for every action."""
    base = PLAYERS + seat * PLAYER_SIZE
    r1 = first - MIN_SUM
    r2 = second - MIN_SUM
    k1 = state[base + P_ROWS + r1]
    n1 = _one_more(state, r1, k1)
    k2 = state[base + P_ROWS + r2]
    k2 += (r2 == r1) * (n1 - k2)  # the same row twice: the second check comes after the first
    n2 = _one_more(state, r2, k2)
    return row_score(state, r1, n1) - row_score(state, r1, k1) + row_score(state, r2, n2) - row_score(state, r2, k2)


# --- Canonical action form (config canonical_actions): of the ids with the same resulting sheet only the lowest
# stays legal. The hot functions reach it through one branch on the option (the same for a whole batch) and an
# out-of-line call, the gain slots' once per game after every view is written: inlined, or called per seat inside
# the gain encoder, the same code made the batched encoding 16% / 9% slower with the option off (measured; 2% now).


@njit(cache=True, inline="always")
def _rows_key(state: np.ndarray, base: int, fifth: int, pairing: int) -> int:
    """Which rows the two pairs of (``fifth``, ``pairing``) really check, as the sorted pair (r1, r2) in 0..143,
    ``NUM_ROWS`` standing for a check a full row refuses: two pairings with one key leave the same rows."""
    r1 = state[DICE + PAIRINGS[fifth, pairing, 0]] + state[DICE + PAIRINGS[fifth, pairing, 1]] - MIN_SUM
    r2 = state[DICE + PAIRINGS[fifth, pairing, 2]] + state[DICE + PAIRINGS[fifth, pairing, 3]] - MIN_SUM
    k1 = state[base + P_ROWS + r1]
    n1 = _one_more(state, r1, k1)
    k2 = n1 if r2 == r1 else state[base + P_ROWS + r2]  # the same row twice: the second check comes after the first
    n2 = _one_more(state, r2, k2)
    t1 = r1 if n1 > k1 else NUM_ROWS
    t2 = r2 if n2 > k2 else NUM_ROWS
    return min(t1, t2) * (NUM_ROWS + 1) + max(t1, t2)


@njit(cache=True, inline="always")
def _canonical_pairs(state: np.ndarray, base: int) -> int:
    """Bit 3 * e + p set when (fifth die e, pairing p) is the first of its effect, so ids 9e + 3p + c are kept.

    A choice's sheet is its checked rows (``_rows_key``) and its EXTRA mark: the fifth die's value in a column, or
    nothing on a lucky-guy throw. So, outside lucky guys, a die showing an earlier die's value repeats that die's
    choices (the other four dice are the same multiset) and only pairings of one die can share a sheet; on a lucky
    guy every die's pairings are compared. Seen row keys are bits of three words (keys < 144).
    """
    written, held = _chart(state, base)
    lucky = (written == NUM_COLUMNS) & (not held)
    kept = 0
    values = 0  # bit v: an earlier die shows v
    seen0 = seen1 = seen2 = 0
    for e in range(NUM_DICE):
        value = state[DICE + e]
        repeat = ((values >> value) & 1) == 1
        values |= 1 << value
        if not lucky:
            seen0 = seen1 = seen2 = 0
        for p in range(NUM_PAIRINGS):
            key = _rows_key(state, base, e, p)
            word = key >> 6
            bit = np.int64(1) << (key & 63)
            seen = seen0 if word == 0 else (seen1 if word == 1 else seen2)
            fresh = (seen & bit) == 0
            if fresh & (lucky | (not repeat)):
                kept |= 1 << (NUM_PAIRINGS * e + p)
            if word == 0:
                seen0 |= bit
            elif word == 1:
                seen1 |= bit
            else:
                seen2 |= bit
    return kept


@njit(cache=True)
def _canonical_mask(state: np.ndarray, base: int, mask: np.ndarray) -> None:
    """Clear the ids of ``mask`` (the rules' mask of the seat block at ``base``) that a lower id's sheet repeats."""
    kept = _canonical_pairs(state, base)
    for k in range(NUM_ACTIONS):
        mask[k] = mask[k] * ((kept >> (k // NUM_COLUMNS)) & 1)


@njit(cache=True)
def _canonical_id(state: np.ndarray, base: int, action: int) -> bool:
    """Whether the rules-legal ``action`` is the lowest id of its sheet."""
    return ((_canonical_pairs(state, base) >> (action // NUM_COLUMNS)) & 1) == 1


@njit(cache=True)
def _canonical_gains(state: np.ndarray, seat: int, out: np.ndarray, row: int) -> None:
    """Zero the gain slots of ``seat``'s view at ``out[row]`` where ``canonical_actions`` masks the id out (the
    encoders' column bits zeroed the rules' illegal ids already)."""
    if not must_act(state, seat):
        return  # all zero already
    kept = _canonical_pairs(state, PLAYERS + seat * PLAYER_SIZE)
    for k in range(NUM_ACTIONS):
        if ((kept >> (k // NUM_COLUMNS)) & 1) == 0:
            out[row, OBS_GAINS + k] = 0.0


@njit(cache=True, inline="always")
def _apply_choice(state: np.ndarray, seat: int, action: int) -> None:
    """Write one seat's choice on its sheet and its score change (``P_GAIN``); mark it finished if a last EXTRA
    box got checked."""
    base = PLAYERS + seat * PLAYER_SIZE
    e = action // 9
    p = (action // 3) % 3
    c = action % 3
    rule = extra_rule(state, seat, e)  # from the sheet before this choice
    gain = _check_row(state, base, state[DICE + PAIRINGS[e, p, 0]] + state[DICE + PAIRINGS[e, p, 1]])
    gain += _check_row(state, base, state[DICE + PAIRINGS[e, p, 2]] + state[DICE + PAIRINGS[e, p, 3]])
    state[base + P_GAIN] = gain
    if rule != RULE_LUCKY:
        if state[base + P_NUMBER + c] == 0:
            state[base + P_NUMBER + c] = state[DICE + e]
            if state[CHILDREN] == 0:
                state[base + P_CHECKS + c] += 1
        else:
            state[base + P_CHECKS + c] += 1
        if state[base + P_CHECKS + c] >= state[COLUMN_LENGTH + c]:
            state[base + P_DONE] = 1
            state[base + P_FINISH_ROUND] = state[ROUND]
    state[base + P_LAST] = action
    state[base + P_PENDING] = -1


@njit(cache=True, inline="always")
def apply_action(state: np.ndarray, seat: int, action: int) -> int:
    """Record ``seat``'s legal choice (check ``is_legal`` first).

    Returns 1 when this was the last choice of the round (the round resolved: sheets updated, finishers
    marked, next throw pending or game over), else 0.
    """
    state[PLAYERS + seat * PLAYER_SIZE + P_PENDING] = action
    n = state[NUM_PLAYERS]
    for s in range(n):
        if must_act(state, s):
            return 0
    playing = 0
    for s in range(n):
        base = PLAYERS + s * PLAYER_SIZE
        state[base + P_GAIN] = 0
        if state[base + P_DONE] == 0:
            _apply_choice(state, s, state[base + P_PENDING])
            if state[base + P_DONE] == 0:
                playing += 1
    state[PHASE] = PHASE_ROLL if playing > 0 else PHASE_OVER
    return 1


@njit(cache=True, inline="always")
def row_score(state: np.ndarray, row: int, checks: int) -> int:
    """0 if unchecked; -penalty inside the minus zone; else points x highest factor (0 box -> 0).

    Branch-free (selects, not jumps): the observation evaluates it 60 times per seat and step.
    """
    minus = state[MINUS + row]
    inside = checks <= minus
    value = state[POINTS + row] * (checks - minus - 1) * (1 - inside) - state[PENALTY] * inside
    return value * (checks != 0)


@njit(cache=True, inline="always")
def score(state: np.ndarray, seat: int) -> int:
    base = PLAYERS + seat * PLAYER_SIZE
    total = 0
    for r in range(NUM_ROWS):
        total += row_score(state, r, state[base + P_ROWS + r])
    return total


@njit(cache=True, inline="always")
def wins(state: np.ndarray, seat: int) -> bool:
    """The winner rule (read once the game is over): every seat with the highest score wins, a shared top score
    included; solitaire: a score of 0 or more. The win reward, the renderers and the seat envs' ``won`` use it."""
    mine = score(state, seat)
    n = state[NUM_PLAYERS]
    if n == 1:
        return mine >= 0
    for s in range(n):
        if score(state, s) > mine:
            return False
    return True


@njit(cache=True, inline="always")
def final_reward(state: np.ndarray, seat: int, mode: int) -> float:
    """The seat's terminal reward, 0 until it is known.

    REWARD_SCORE: score / 100 once the seat has finished (its sheet is final). REWARD_WIN: once the game is
    over, +1 to every seat that ``wins`` and -1 to the others.
    """
    base = PLAYERS + seat * PLAYER_SIZE
    if mode == REWARD_SCORE:
        return score(state, seat) / 100.0 if state[base + P_DONE] == 1 else 0.0
    if state[PHASE] != PHASE_OVER:
        return 0.0
    return 1.0 if wins(state, seat) else -1.0


@njit(cache=True, inline="always")
def shaped_reward(state: np.ndarray, seat: int) -> float:
    """The optional shaping reward (config ``shaping``, ``"score"`` mode only): the change of the seat's score in
    the round that just resolved / 100, 0 for a seat that did not play it. A sheet starts at 0, so a game's
    rewards sum to its final score / 100, the unshaped return."""
    return state[PLAYERS + seat * PLAYER_SIZE + P_GAIN] / 100.0


@njit(cache=True, inline="always")
def final_rewards(state: np.ndarray, mode: int, out: np.ndarray) -> None:
    """``final_reward`` of every seat into ``out`` (a finished seat's score is known before the game ends)."""
    out[:] = 0.0
    for seat in range(state[NUM_PLAYERS]):
        out[seat] = final_reward(state, seat, mode)


# --- Observation (layout documented in envs/extra/README.md)

OBS_DICE = 0  # 30: one-hot face of each die (die i, pips f at 6i + f - 1), while the throw is on the table
OBS_TO_ACT = 30  # 1: the observer must decide on this throw
OBS_ROUND = 31  # 1: min(round, 100) / 100
OBS_GAINS = 32  # 45: per action, the observer's score change if it played it now / 100 (0 where the mask is 0)
OBS_PLAYERS = OBS_GAINS + NUM_ACTIONS  # 77: PLAYER_OBS per seat: the observer first, then the next seats in order
PO_ROW_CHECKS = 0  # 11: checks / boxes of each row (sum 2..12)
PO_ROW_VALUE = 11  # 11: the row's current score / 500
PO_EXTRA_NUMBER = 22  # 21: per column, one-hot EXTRA number at 7j + number (0 = not written)
PO_EXTRA_CHECKS = 43  # 3: checks / boxes of each EXTRA column
PO_DONE = 46  # 1: the seat has finished
PO_SCORE = 47  # 1: the seat's current score / 1000
PLAYER_OBS = 48


def observation_size(num_players: int) -> int:
    return OBS_PLAYERS + PLAYER_OBS * num_players


def observation_bound(penalty: int, points: tuple[int, ...]) -> float:
    """A bound on |slot| for a sheet (row values / 500, scores / 1000, action gains / 100), for the observation
    space. A check changes a row by at most max(penalty, points) (out of the minus zone, up a factor, or into a
    new row), an action makes two."""
    row = max(penalty, NUM_FACTORS * max(points)) / 500
    total = max(NUM_ROWS * penalty, NUM_FACTORS * sum(points)) / 1000
    gain = 2 * max(penalty, max(points)) / 100
    return float(max(1.0, row, total, gain))


# 1 / k: a product with it, rounded to float32, equals the float32-rounded quotient for the small integers
# divided here (their quotients are never within double rounding error of a float32 rounding boundary), and
# it avoids a division per slot.
_RECIPROCAL = 1.0 / np.arange(1, 64, dtype=np.float64)


@njit(cache=True, inline="always")
def _encode_block(state: np.ndarray, seat: int, out: np.ndarray, row: int, o: int) -> None:
    """Seat ``seat``'s PLAYER_OBS slots at ``out[row, o:]``; every slot is written (no zeroing pass).

    ``row_score`` written without branches (they are unpredictable over random games); same values.
    """
    base = PLAYERS + seat * PLAYER_SIZE
    penalty = state[PENALTY]
    total = 0
    for r in range(NUM_ROWS):
        checks = state[base + P_ROWS + r]
        minus = state[MINUS + r]
        over = checks - minus - 1  # factor reached; < 0 inside the minus zone
        value = state[POINTS + r] * over if over >= 0 else -penalty
        value = value if checks != 0 else 0
        total += value
        out[row, o + PO_ROW_CHECKS + r] = checks * _RECIPROCAL[minus + NUM_FACTORS]  # / (minus + 1 + NUM_FACTORS)
        out[row, o + PO_ROW_VALUE + r] = value * (1.0 / 500.0)
    for j in range(NUM_COLUMNS):
        number = state[base + P_NUMBER + j]
        for k in range(NUM_FACES + 1):
            out[row, o + PO_EXTRA_NUMBER + 7 * j + k] = 1.0 if k == number else 0.0
        out[row, o + PO_EXTRA_CHECKS + j] = state[base + P_CHECKS + j] * _RECIPROCAL[state[COLUMN_LENGTH + j] - 1]
    out[row, o + PO_DONE] = state[base + P_DONE]
    out[row, o + PO_SCORE] = total / 1000.0


MAX_MINUS_BOXES = 12  # the config's bound; with it the most checks a row can hold
MAX_CHECKS = MAX_MINUS_BOXES + 1 + NUM_FACTORS
_GAIN_ROW = 2 * (MAX_CHECKS + 1)  # per row: (gain of one more check, of two more) at 0..MAX_CHECKS checks
_PAIR_ROWS = NUM_ROWS * _GAIN_ROW
SCRATCH_SIZE = _PAIR_ROWS + 2 * NUM_DICE * NUM_PAIRINGS


@njit(cache=True, inline="always")
def observe_scratch(state: np.ndarray) -> np.ndarray:
    """The observation encoder's work space for ``state``'s sheet: a gain table, then room for the throw's rows.

    ``scratch[r * _GAIN_ROW + 2 * k + t]`` = row r's score change from t + 1 more checks at k checks. It depends on
    the sheet only, so a loop over games sharing one (the batched engine) makes it once and every seat's 15
    pairing gains are then table lookups (measured ~25% of the batched step saved against working them out).
    """
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)
    for r in range(NUM_ROWS):
        full = state[MINUS + r] + 1 + NUM_FACTORS
        for k in range(min(full, MAX_CHECKS) + 1):
            one = _one_more(state, r, k)
            now = row_score(state, r, k)
            scratch[r * _GAIN_ROW + 2 * k] = row_score(state, r, one) - now
            scratch[r * _GAIN_ROW + 2 * k + 1] = row_score(state, r, _one_more(state, r, one)) - now
    return scratch


@njit(cache=True, inline="always")
def _encode_gains(state: np.ndarray, seat: int, out: np.ndarray, row: int, scratch: np.ndarray, lanes: int) -> None:
    """The OBS_GAINS slots of ``seat``'s view at ``out[row]``: ``pairs_gain`` of each (fifth die, pairing) at the
    columns ``legal_mask`` allows, 0 at every id it does not (all zero when the seat does not act).

    Table lookups (``observe_scratch``) for the rows the throw's pairings check (filled by ``observe_all``), and
    no branch: whether a seat acts varies from game to game, and a mispredicted early return measured ~30% slower.
    """
    base = PLAYERS + min(max(seat, 0), MAX_PLAYERS - 1) * PLAYER_SIZE
    packed = _die_columns(state, base, lanes) * must_act(state, seat)  # legal_mask's column bits, 0 if not to act
    for e in range(NUM_DICE):
        columns = packed >> (4 * e)
        for p in range(NUM_PAIRINGS):
            j = NUM_PAIRINGS * e + p
            r1 = scratch[_PAIR_ROWS + 2 * j]
            r2 = scratch[_PAIR_ROWS + 2 * j + 1]
            t1 = r1 * _GAIN_ROW + 2 * state[base + P_ROWS + r1]
            t2 = r2 * _GAIN_ROW + 2 * state[base + P_ROWS + r2]
            same = r1 == r2  # the same row twice: its gain from two more checks
            gain = scratch[t1 + 1] * same + (scratch[t1] + scratch[t2]) * (1 - same)
            for c in range(NUM_COLUMNS):
                out[row, OBS_GAINS + 3 * j + c] = gain * ((columns >> c) & 1) * 0.01


@njit(cache=True, inline="always")
def _encode_throw(state: np.ndarray, seat: int, out: np.ndarray, row: int) -> None:
    """The throw (while it is on the table), whether ``seat`` must decide on it, and the round, at ``out[row]``."""
    shown = state[PHASE] == PHASE_DECIDE
    for i in range(NUM_DICE):
        face = state[DICE + i] - 1
        for f in range(NUM_FACES):
            out[row, OBS_DICE + NUM_FACES * i + f] = 1.0 if shown & (f == face) else 0.0
    out[row, OBS_TO_ACT] = 1.0 if must_act(state, seat) else 0.0
    out[row, OBS_ROUND] = min(state[ROUND], 100) / 100.0


@njit(cache=True, inline="always")
def encode_observation(state: np.ndarray, seat: int, out: np.ndarray) -> None:
    """The game as seen from ``seat``: the throw, then own sheet first, opponents in relative seat order.

    Choices recorded this round but not yet resolved are not visible (the decisions are simultaneous). One seat's
    view works out its 15 pairing gains with ``pairs_gain`` (measured 2.3x faster than building the gain table of
    ``observe_scratch`` for one view); ``observe_all``, every seat at once, reads them from the table.
    """
    view = out.reshape((1, out.shape[0]))
    _encode_throw(state, seat, view, 0)
    act = must_act(state, seat)  # no branch (see _encode_gains); rows clamped as there
    who = min(max(seat, 0), MAX_PLAYERS - 1)
    base = PLAYERS + who * PLAYER_SIZE
    packed = _die_columns(state, base, _throw_lanes(state)) * act
    for e in range(NUM_DICE):
        columns = packed >> (4 * e)
        for p in range(NUM_PAIRINGS):
            first = max(state[DICE + PAIRINGS[e, p, 0]] + state[DICE + PAIRINGS[e, p, 1]], MIN_SUM)
            second = max(state[DICE + PAIRINGS[e, p, 2]] + state[DICE + PAIRINGS[e, p, 3]], MIN_SUM)
            gain = pairs_gain(state, who, first, second)
            for c in range(NUM_COLUMNS):
                view[0, OBS_GAINS + 3 * (NUM_PAIRINGS * e + p) + c] = gain * ((columns >> c) & 1) * 0.01
    if state[CANONICAL] != 0:
        _canonical_gains(state, who, view, 0)
    n = state[NUM_PLAYERS]
    for rel in range(n):
        _encode_block(state, (seat + rel) % n, view, 0, OBS_PLAYERS + rel * PLAYER_OBS)


@njit(cache=True, inline="always")
def observe_all(state: np.ndarray, out: np.ndarray, scratch: np.ndarray) -> None:
    """``encode_observation`` of every seat into ``out[seat]`` (2-D; rows ``>= num_players`` untouched).

    Why: the batched engine observes every seat every step (``game.batch_encode``). The views share everything
    but the to-act flag, the gains and the seat order, so each seat block is encoded once (into seat 0's view) and
    copied rotated into the others; ``scratch`` is ``observe_scratch`` of any state with the same sheet, so a loop over
    many games makes it once.
    """
    n = state[NUM_PLAYERS]
    _encode_throw(state, 0, out, 0)
    for e in range(NUM_DICE):  # the rows each pairing's two pairs would check: the same for every seat
        for p in range(NUM_PAIRINGS):  # (row 0 before the first throw, when the gains are masked anyway)
            j = _PAIR_ROWS + 2 * (NUM_PAIRINGS * e + p)
            scratch[j] = max(state[DICE + PAIRINGS[e, p, 0]] + state[DICE + PAIRINGS[e, p, 1]] - MIN_SUM, 0)
            scratch[j + 1] = max(state[DICE + PAIRINGS[e, p, 2]] + state[DICE + PAIRINGS[e, p, 3]] - MIN_SUM, 0)
    lanes = _throw_lanes(state)
    _encode_gains(state, 0, out, 0, scratch, lanes)
    for rel in range(n):
        _encode_block(state, rel, out, 0, OBS_PLAYERS + rel * PLAYER_OBS)
    for seat in range(1, n):
        for k in range(OBS_TO_ACT):  # the throw
            out[seat, k] = out[0, k]
        out[seat, OBS_ROUND] = out[0, OBS_ROUND]
        out[seat, OBS_TO_ACT] = 1.0 if must_act(state, seat) else 0.0
        _encode_gains(state, seat, out, seat, scratch, lanes)
        for rel in range(n):
            src = OBS_PLAYERS + ((seat + rel) % n) * PLAYER_OBS
            dst = OBS_PLAYERS + rel * PLAYER_OBS
            for k in range(PLAYER_OBS):
                out[seat, dst + k] = out[0, src + k]
    if state[CANONICAL] != 0:
        for seat in range(n):
            _canonical_gains(state, seat, out, seat)


# --- The game contract (dicearena.envs.common.contract): the same names and arity in every game


# header(config): the rule knobs, in this order.
H_NUM_PLAYERS = 0
H_CHILDREN = 1
H_PENALTY = 2
H_REWARD_MODE = 3
H_SHAPING = 4
H_MINUS = 5  # 11 values: minus boxes of rows 2..12
H_POINTS = H_MINUS + NUM_ROWS  # 11 values: victory points of rows 2..12
H_COLUMNS = H_POINTS + NUM_ROWS  # 3 values: boxes of the EXTRA columns
H_ZERO_SUM = H_COLUMNS + NUM_COLUMNS
H_CANONICAL = H_ZERO_SUM + 1
HEADER_SIZE = H_CANONICAL + 1  # 32

NUM_THROWS = 252  # distinct throws of five dice (multisets): what enumerate_outcomes lists


def sizes(config) -> Sizes:
    """Array lengths under ``config`` (an ExtraConfig): one throw of five dice is the only chance event."""
    n = config.num_players
    return Sizes(n, STATE_SIZE, observation_size(n), NUM_ACTIONS, NUM_DICE, NUM_DICE)


def header(config) -> np.ndarray:
    """Every rule knob ``init_state`` writes into a state: players, children, penalty, reward mode, shaping, then
    the sheet (minus boxes and points of the 11 rows, the 3 EXTRA column lengths), zero_sum, canonical_actions; see
    the ``H_*`` offsets."""
    sheet = config.sheet
    knobs = [config.num_players, int(config.children), sheet.penalty, config.reward_mode, int(config.shaping)]
    tail = [int(config.zero_sum), int(config.canonical_actions)]
    return np.array([*knobs, *sheet.minus_boxes, *sheet.points, *sheet.extra_columns, *tail], dtype=np.int32)


@njit(cache=True, inline="always")
def init_state(state: np.ndarray, head: np.ndarray) -> None:
    """A new game under ``header(config)``, the first throw pending."""
    start_game(state, head[H_NUM_PLAYERS], head[H_CHILDREN], head[H_PENALTY], head[H_MINUS : H_MINUS + NUM_ROWS],
               head[H_POINTS : H_POINTS + NUM_ROWS], head[H_COLUMNS : H_COLUMNS + NUM_COLUMNS])  # fmt: skip
    state[REWARD_MODE] = head[H_REWARD_MODE]
    state[SHAPING] = head[H_SHAPING]
    state[ZERO_SUM] = head[H_ZERO_SUM]
    state[CANONICAL] = head[H_CANONICAL]


@njit(cache=True, inline="always")
def to_act(state: np.ndarray) -> int:
    """``SIMULTANEOUS`` at every decision node (even with one seat left, or some seats' choices recorded: who still
    decides is ``acting``), ``CHANCE`` while the throw is pending, ``NOBODY`` once the game is over."""
    phase = state[PHASE]
    if phase == PHASE_DECIDE:
        return SIMULTANEOUS
    return CHANCE if phase == PHASE_ROLL else NOBODY


@njit(cache=True, inline="always")
def acting(state: np.ndarray, out: np.ndarray) -> int:
    """Mark in ``out`` (one entry per seat, ``len(out)`` seats looked at) each seat that must still decide on this
    throw (1, else 0) and return how many: a seat whose choice is recorded waits for the others."""
    count = 0
    for seat in range(out.shape[0]):
        must = must_act(state, seat)
        out[seat] = must
        count += must
    return count


@njit(cache=True)
def resample_hidden(state: np.ndarray, key: int) -> None:
    """A state every player could equally be in (the contract's hook for search): the choices already recorded on
    this throw are hidden from the others (the seats choose at once), so every one is forgotten and its seat decides
    again. ``key`` is unused: nothing is drawn."""
    for seat in range(state[NUM_PLAYERS]):
        state[PLAYERS + seat * PLAYER_SIZE + P_PENDING] = -1


@njit(cache=True, inline="always")
def status(state: np.ndarray) -> int:
    """Never TRUNCATED: every round but a lucky guy's checks an EXTRA box, so every game ends."""
    return TERMINATED if state[PHASE] == PHASE_OVER else PLAYING


@njit(cache=True, inline="always")
def rewards(state: np.ndarray, out: np.ndarray) -> None:
    """The config's final rewards (the mode kept in the state) once the game is over, all 0 before: a finished
    seat's ``"score"`` reward is its final score / 100 but, as the contract says, is reported at the end. With
    ``zero_sum`` (``"win"`` only): +1/k to each of the k winners, -1/(P-k) to the others (0 to all if all win)."""
    if state[PHASE] != PHASE_OVER:
        out[:] = 0.0
    elif state[ZERO_SUM] != 0 and state[REWARD_MODE] == REWARD_WIN:
        n = state[NUM_PLAYERS]
        winners = 0
        for seat in range(n):
            if wins(state, seat):
                winners |= 1 << seat
        zero_sum_rewards(winners, n, out)
    else:
        final_rewards(state, state[REWARD_MODE], out)


@njit(cache=True, inline="always")
def seat_status(state: np.ndarray, seat: int) -> int:
    """``TERMINATED`` once ``seat`` has checked a last EXTRA box (it plays no more rounds), else ``PLAYING``."""
    return TERMINATED if state[PLAYERS + seat * PLAYER_SIZE + P_DONE] == 1 else PLAYING


@njit(cache=True, inline="always")
def step_rewards(state: np.ndarray, out: np.ndarray) -> None:
    """What the faces pay for the round resolved last (read right after the ``apply_action`` that resolved it,
    before or after the next throw). ``"score"``: a seat's final score / 100
    in the round it finishes, or with shaping each round's score change / 100; ``"win"``: ``rewards`` at the end.
    Over a game these sum to ``rewards`` at its end."""
    out[:] = 0.0
    mode = state[REWARD_MODE]
    if mode == REWARD_WIN:
        rewards(state, out)
        return
    resolved = state[ROUND] - (state[PHASE] == PHASE_DECIDE)  # the throw after it raised ROUND
    for seat in range(state[NUM_PLAYERS]):
        base = PLAYERS + seat * PLAYER_SIZE
        if state[SHAPING] != 0:
            out[seat] = shaped_reward(state, seat)
        elif (state[base + P_DONE] == 1) & (state[base + P_FINISH_ROUND] == resolved):
            out[seat] = final_reward(state, seat, REWARD_SCORE)


@njit(cache=True, inline="always")
def observe(state: np.ndarray, seat: int, out: np.ndarray) -> None:
    encode_observation(state, seat, out)


@njit(cache=True, inline="always")
def chance_words(state: np.ndarray) -> int:
    """One random word per die: five while the throw is pending, else 0."""
    return dice_needed(state)


@njit(cache=True, inline="always")
def draw_outcome(state: np.ndarray, words: np.ndarray, outcome: np.ndarray) -> None:
    """Fair dice (``dicearena.envs.common.dice_outcomes``)."""
    draw_faces(dice_needed(state), words, outcome)


@njit(cache=True, inline="always")
def check_outcome(state: np.ndarray, outcome: np.ndarray) -> int:
    """0 if the five values are faces 0..5 (1 otherwise); nothing to check off a chance node."""
    return 1 if bad_faces(dice_needed(state), outcome) else 0


@njit(cache=True, inline="always")
def apply_outcome(state: np.ndarray, outcome: np.ndarray) -> None:
    apply_chance(state, outcome)


@njit(cache=True)
def enumerate_outcomes(state: np.ndarray, outcomes: np.ndarray, probs: np.ndarray) -> int:
    """The 252 distinct throws (faces sorted ascending, in ``itertools.combinations_with_replacement`` order) with
    their multinomial probabilities 5! / (n_1! ... n_6!) / 6**5; 0 off a chance node, -1 if the arrays are short.

    Multisets, not the 7776 ordered rolls: no rule reads the dice's order (a choice picks any die as fifth and
    either split of the other four, and every rule reads faces only), so a throw and its permutations offer the
    same sheets; only the action ids (die positions) are relabelled (tests/test_extra_contract.py checks it).
    """
    if dice_needed(state) == 0:
        return 0
    if outcomes.shape[0] < NUM_THROWS or probs.shape[0] < NUM_THROWS:
        return -1
    faces = np.zeros(NUM_DICE, dtype=np.int64)
    factorial = np.array([1, 1, 2, 6, 24, 120], dtype=np.int64)
    counts = np.zeros(NUM_FACES, dtype=np.int64)
    for t in range(NUM_THROWS):
        counts[:] = 0
        for i in range(NUM_DICE):
            outcomes[t, i] = faces[i]
            counts[faces[i]] += 1
        ways = factorial[NUM_DICE]
        for f in range(NUM_FACES):
            ways //= factorial[counts[f]]
        probs[t] = ways / NUM_FACES**NUM_DICE
        i = NUM_DICE - 1  # the next non-decreasing tuple: raise the last die below 5, level the ones after it
        while i >= 0 and faces[i] == NUM_FACES - 1:
            i -= 1
        if i >= 0:
            faces[i] += 1
            for j in range(i + 1, NUM_DICE):
                faces[j] = faces[i]
    return NUM_THROWS
