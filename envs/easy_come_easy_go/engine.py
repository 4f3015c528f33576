"""The Easy Come, Easy Go rules engine: the only place this game's rules exist.

State is one flat ``int32`` array (Pgx style); every function here is a small numba-compiled scalar
function over it, called once per step by the AEC env and looped over the batch by the batched engine.
Chance is explicit (OpenSpiel style): a state is either a *chance node* (``dice_needed(state) > 0``: the
caller supplies that many faces to ``apply_chance``) or a *decision node* for ``state[CURRENT]``.
No PettingZoo or Gymnasium here.

``inline="always"``: the batched loops call these once per game; inlined, numba can drop the per-call
reference counting of the state view, which otherwise costs more than the rules themselves.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicearena.envs.common.contract import CHANCE, NOBODY, PLAYING, TERMINATED, Sizes, float64_bits
from dicearena.envs.common.contract import TRUNCATED as TRUNCATED_STATUS
from dicearena.envs.common.dice_outcomes import bad_faces, draw_faces
from dicearena.envs.common.rewards import zero_sum_rewards

from .prize_chances import build_tables

NUM_DICE = 4
NUM_FACES = 6
NUM_PRIZES = 9
FREEZE_OFFSET = 8  # action = FREEZE_OFFSET + subset mask (1..15)
NUM_ACTIONS = NUM_PRIZES + 15
ALL_FROZEN = (1 << NUM_DICE) - 1
MAX_PLAYERS = 6
PRIZES_TO_WIN = 3
CENTRE = -1

PRIZE_NAMES = (
    "3 of a kind - all even",
    "3 of a kind - all odd",
    "17 or more",
    "7 exactly",
    "4 of a kind",
    "Straight",
    "13 exactly",
    "3 or less",
    "2 pairs",
)

# Phases.
PHASE_SETUP = 0  # chance: the next roll-off contender rolls four dice
PHASE_ROLL = 1  # chance: the unfrozen dice are (re-)rolled
PHASE_DECIDE = 2  # decision: the current player collects or freezes
PHASE_OVER = 3  # terminal: won, or truncated by max_turns

# State slots.
NUM_PLAYERS = 0
PHASE = 1
CURRENT = 2
TURN = 3  # number of the turn in progress (1-based); 0 during the roll-off
MAX_TURNS = 4
VARIANT = 5  # 1 when four of a kind also counts as two pairs
DICE = 6  # 6..9: the four dice (valid from the first roll of a turn)
FROZEN = 10  # bit i set = die i frozen this turn
ROLLS = 11  # rolls made this turn (1..4)
OWNER = 12  # 12..20: seat holding each prize, CENTRE if none
WINNER = 21  # seat of the winner, -1 while playing or after truncation
TRUNCATED = 22  # 1 when max_turns ended the game
SETUP_CONTENDERS = 23  # bitmask of seats still in the starting roll-off
SETUP_ROLLER = 24  # seat to roll next in the roll-off
SETUP_TOTALS = 25  # 25..30: roll-off totals of this round
LAST_PRIZE = 31  # prize collected by the last finished turn, -1 for none
LAST_FROM = 32  # who held it before (CENTRE or a seat)
LAST_PLAYER = 33  # seat that played the last finished turn, -1 before the first
REWARDS = 34  # 34..37: float64 bits of win_reward then loss_reward (two int32 slots each; 8-byte aligned)
ZERO_SUM = 38  # 1: zero-sum final rewards (config zero_sum) instead of REWARDS
PRIZE_FEATURES = 39  # 1: observations append the per-prize chance slots (config prize_features)
STATE_SIZE = 40  # even, so every row of a (B, STATE_SIZE) batch keeps REWARDS 8-byte aligned

# apply_action outcomes.
TURN_CONTINUES = -2
TURN_ENDED_EMPTY = -1


def _prize_bits(dice: tuple[int, ...], four_is_two_pairs: bool) -> int:
    """The rules file's prize table for one roll; compiled into PRIZE_TABLE below."""
    counts = [dice.count(f) for f in range(NUM_FACES)]
    total = sum(dice)
    most = max(counts)
    values = sorted(dice)
    satisfied = [
        most >= 3 and all(d % 2 == 0 for d in dice),
        most >= 3 and all(d % 2 == 1 for d in dice),
        total >= 17,
        total == 7,
        most == 4,
        values in ([0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5]),
        total == 13,
        total <= 3,
        sorted(counts)[-2:] == [2, 2] or (four_is_two_pairs and most == 4),
    ]
    return sum(1 << p for p, ok in enumerate(satisfied) if ok)


def _build_prize_table() -> np.ndarray:
    table = np.zeros((2, NUM_FACES**NUM_DICE), dtype=np.int32)
    for code in range(NUM_FACES**NUM_DICE):
        dice = tuple(int(d) for d in np.unravel_index(code, (NUM_FACES,) * NUM_DICE))
        table[0, code] = _prize_bits(dice, False)
        table[1, code] = _prize_bits(dice, True)
    return table


PRIZE_TABLE = _build_prize_table()  # [variant, dice code] -> bitmask of satisfied prizes
# [frozen mask, dice code] -> position row; [variant, row, prize] -> exact chance of securing it this turn
CHANCE_POSITION, PRIZE_CHANCE = build_tables(PRIZE_TABLE)


def dice_code(dice: np.ndarray) -> int:
    """Index of four dice in PRIZE_TABLE (die 0 most significant)."""
    return int(((dice[0] * NUM_FACES + dice[1]) * NUM_FACES + dice[2]) * NUM_FACES + dice[3])


@njit(cache=True, inline="always")
def satisfied_prizes(state: np.ndarray) -> int:
    """Bitmask of prizes the four dice satisfy (whoever holds them)."""
    code = ((state[DICE] * NUM_FACES + state[DICE + 1]) * NUM_FACES + state[DICE + 2]) * NUM_FACES + state[DICE + 3]
    return PRIZE_TABLE[state[VARIANT], code]


@njit(cache=True, inline="always")
def prizes_held(state: np.ndarray, seat: int) -> int:
    n = 0
    for p in range(NUM_PRIZES):
        if state[OWNER + p] == seat:
            n += 1
    return n


DEFAULT_REWARD_BITS = float64_bits(1.0, -1.0)


@njit(cache=True, inline="always")
def start_game(state: np.ndarray, num_players: int, max_turns: int, variant: int, first_player: int) -> None:
    """A new game: prizes in the centre, then the roll-off (or ``first_player``'s first turn if >= 0); rewards
    +1 / -1 (``init_state`` sets the config's)."""
    state[:] = 0
    state[REWARDS : REWARDS + 4] = DEFAULT_REWARD_BITS
    state[NUM_PLAYERS] = num_players
    state[MAX_TURNS] = max_turns
    state[VARIANT] = variant
    for p in range(NUM_PRIZES):
        state[OWNER + p] = CENTRE
    state[WINNER] = -1
    state[LAST_PRIZE] = -1
    state[LAST_FROM] = CENTRE
    state[LAST_PLAYER] = -1
    if first_player >= 0:
        _start_turn(state, first_player)
    else:
        state[PHASE] = PHASE_SETUP
        state[SETUP_CONTENDERS] = (1 << num_players) - 1
        state[SETUP_ROLLER] = 0


@njit(cache=True, inline="always")
def init_turn_state(state: np.ndarray, variant: int) -> None:
    """One solitary turn (the turn task): one seat, prizes in the centre, about to roll."""
    start_game(state, 1, 1, variant, 0)


@njit(cache=True, inline="always")
def _start_turn(state: np.ndarray, player: int) -> None:
    state[CURRENT] = player
    if prizes_held(state, player) >= PRIZES_TO_WIN:
        state[WINNER] = player
        state[PHASE] = PHASE_OVER
    elif state[TURN] >= state[MAX_TURNS]:
        state[TRUNCATED] = 1
        state[PHASE] = PHASE_OVER
    else:
        state[TURN] += 1
        state[FROZEN] = 0
        state[ROLLS] = 0
        state[PHASE] = PHASE_ROLL


@njit(cache=True, inline="always")
def dice_needed(state: np.ndarray) -> int:
    """How many faces the pending chance event needs (0 at decision and terminal nodes)."""
    phase = state[PHASE]
    if phase == PHASE_SETUP:
        return NUM_DICE
    if phase == PHASE_ROLL:
        n = 0
        for i in range(NUM_DICE):
            if not (state[FROZEN] >> i) & 1:
                n += 1
        return n
    return 0


@njit(cache=True, inline="always")
def apply_chance(state: np.ndarray, faces: np.ndarray) -> None:
    """Resolve the pending chance event with ``faces[:dice_needed(state)]``."""
    if state[PHASE] == PHASE_ROLL:
        j = 0
        for i in range(NUM_DICE):
            if not (state[FROZEN] >> i) & 1:
                state[DICE + i] = faces[j]
                j += 1
        state[ROLLS] += 1
        state[PHASE] = PHASE_DECIDE
        return
    # Roll-off: highest total starts; the tied highest roll again among themselves.
    roller = state[SETUP_ROLLER]
    state[SETUP_TOTALS + roller] = faces[0] + faces[1] + faces[2] + faces[3]
    contenders = state[SETUP_CONTENDERS]
    n = state[NUM_PLAYERS]
    for seat in range(roller + 1, n):
        if (contenders >> seat) & 1:
            state[SETUP_ROLLER] = seat
            return
    best = -1
    for seat in range(n):
        if (contenders >> seat) & 1 and state[SETUP_TOTALS + seat] > best:
            best = state[SETUP_TOTALS + seat]
    tied = 0
    first = -1
    for seat in range(n):
        if (contenders >> seat) & 1 and state[SETUP_TOTALS + seat] == best:
            tied |= 1 << seat
            if first < 0:
                first = seat
    if tied == 1 << first:
        state[SETUP_CONTENDERS] = 0
        _start_turn(state, first)
    else:
        state[SETUP_CONTENDERS] = tied
        state[SETUP_ROLLER] = first


@njit(cache=True, inline="always")
def legal_mask(state: np.ndarray, seat: int, mask: np.ndarray) -> None:
    """Write ``seat``'s action mask (all zero off decision nodes and for a seat not to move)."""
    mask[:] = 0
    if state[PHASE] != PHASE_DECIDE or seat != state[CURRENT]:
        return
    satisfied = satisfied_prizes(state)
    me = state[CURRENT]
    for p in range(NUM_PRIZES):
        if (satisfied >> p) & 1 and state[OWNER + p] != me:
            mask[p] = 1
    frozen = state[FROZEN]
    for m in range(1, ALL_FROZEN + 1):
        if m & frozen == 0:
            mask[FREEZE_OFFSET + m] = 1


@njit(cache=True, inline="always")
def is_legal(state: np.ndarray, seat: int, action: int) -> bool:
    if state[PHASE] != PHASE_DECIDE or seat != state[CURRENT] or action < 0 or action >= NUM_ACTIONS:
        return False
    if action < NUM_PRIZES:
        return (satisfied_prizes(state) >> action) & 1 == 1 and state[OWNER + action] != state[CURRENT]
    return (action - FREEZE_OFFSET) & state[FROZEN] == 0


@njit(cache=True, inline="always")
def _end_turn(state: np.ndarray, prize: int, previous_owner: int) -> None:
    state[LAST_PRIZE] = prize
    state[LAST_FROM] = previous_owner
    state[LAST_PLAYER] = state[CURRENT]
    _start_turn(state, (state[CURRENT] + 1) % state[NUM_PLAYERS])


@njit(cache=True, inline="always")
def apply_action(state: np.ndarray, seat: int, action: int) -> int:
    """Play ``seat``'s legal action (check ``is_legal`` first).

    Returns the prize collected (0..8), TURN_ENDED_EMPTY when every die got frozen, or TURN_CONTINUES
    when unfrozen dice now await a re-roll.
    """
    if action < NUM_PRIZES:
        previous = state[OWNER + action]
        state[OWNER + action] = state[CURRENT]
        _end_turn(state, action, previous)
        return action
    state[FROZEN] |= action - FREEZE_OFFSET
    if state[FROZEN] == ALL_FROZEN:
        _end_turn(state, -1, CENTRE)
        return TURN_ENDED_EMPTY
    state[PHASE] = PHASE_ROLL
    return TURN_CONTINUES


@njit(cache=True, inline="always")
def final_rewards(state: np.ndarray, win: float, loss: float, out: np.ndarray) -> None:
    """Terminal rewards per seat: ``win``/``loss`` after a win, 0 for all after truncation or mid-game."""
    out[:] = 0.0
    winner = state[WINNER]
    if state[PHASE] != PHASE_OVER or winner < 0:
        return
    for seat in range(state[NUM_PLAYERS]):
        out[seat] = win if seat == winner else loss


# --- Observation (the PettingZoo/batched encoding; layout documented in envs/easy_come_easy_go/README.md)

OBS_DICE = 0  # 24: one-hot face of each die (die i, face f at 6i+f), while dice are on the table
OBS_FROZEN = 24  # 4: die frozen this turn
OBS_ROLL = 28  # 4: one-hot roll number of this turn (1st..4th)
OBS_SATISFIED = 32  # 9: prizes the dice satisfy now
OBS_OWNERS = 41  # 9*(P+1): per prize, one-hot holder: centre, me, next seat, ...
# With prize_features, appended at base = observation_size(P): 9 chances, then 9 holders relative to the mover
PRIZE_FEATURE_SIZE = 2 * NUM_PRIZES


@njit(cache=True, inline="always")
def _base_observation_size(num_players: int) -> int:
    return OBS_OWNERS + NUM_PRIZES * (num_players + 1) + 2 * num_players + 1


def observation_size(num_players: int, prize_features: bool = False) -> int:
    """Observation length; ``prize_features`` appends PRIZE_FEATURE_SIZE slots after the default ones."""
    return _base_observation_size(num_players) + (PRIZE_FEATURE_SIZE if prize_features else 0)


@njit(cache=True, inline="always")
def encode_observation(state: np.ndarray, seat: int, out: np.ndarray) -> None:
    """The game as seen from ``seat``: own data first, opponents in relative seat order."""
    out[:] = 0.0
    n = state[NUM_PLAYERS]
    if state[PHASE] == PHASE_DECIDE:
        for i in range(NUM_DICE):
            out[OBS_DICE + NUM_FACES * i + state[DICE + i]] = 1.0
            out[OBS_FROZEN + i] = (state[FROZEN] >> i) & 1
        out[OBS_ROLL + state[ROLLS] - 1] = 1.0
        satisfied = satisfied_prizes(state)
        for p in range(NUM_PRIZES):
            out[OBS_SATISFIED + p] = (satisfied >> p) & 1
    counts_at = OBS_OWNERS + NUM_PRIZES * (n + 1)
    for p in range(NUM_PRIZES):
        owner = state[OWNER + p]
        rel = 0 if owner == CENTRE else 1 + (owner - seat) % n
        out[OBS_OWNERS + p * (n + 1) + rel] = 1.0
        if owner != CENTRE:
            out[counts_at + (owner - seat) % n] += 1.0 / PRIZES_TO_WIN
    if state[PHASE] != PHASE_OVER and state[PHASE] != PHASE_SETUP:
        out[counts_at + n + (state[CURRENT] - seat) % n] = 1.0
    out[counts_at + 2 * n] = state[TURN] / state[MAX_TURNS]


@njit(cache=True, inline="always")
def encode_prize_features(state: np.ndarray, out: np.ndarray, at: int) -> None:
    """The mover's exact chance of securing each prize this turn (``prize_chances``; 0 for a prize they hold) at
    ``at``, then its holder's seat offset from the mover / (P - 1) (0: centre or the mover), at ``at + 9``; all 0
    unless a player is deciding. The offset is in the mover's frame, whoever observes."""
    for p in range(PRIZE_FEATURE_SIZE):
        out[at + p] = 0.0
    if state[PHASE] != PHASE_DECIDE:
        return
    n = state[NUM_PLAYERS]
    mover = state[CURRENT]
    code = ((state[DICE] * NUM_FACES + state[DICE + 1]) * NUM_FACES + state[DICE + 2]) * NUM_FACES + state[DICE + 3]
    row = CHANCE_POSITION[state[FROZEN], code]
    for p in range(NUM_PRIZES):
        owner = state[OWNER + p]
        if owner == mover:
            continue
        out[at + p] = PRIZE_CHANCE[state[VARIANT], row, p]
        if owner != CENTRE:
            out[at + NUM_PRIZES + p] = ((owner - mover) % n) / (n - 1)


# --- The game contract (dicearena.envs.common.contract): the same names and arity in every game


def sizes(config) -> Sizes:
    """Array lengths under ``config`` (an EasyComeEasyGoConfig)."""
    n = config.num_players
    return Sizes(n, STATE_SIZE, observation_size(n, config.prize_features), NUM_ACTIONS, NUM_DICE, NUM_DICE)


def header(config) -> np.ndarray:
    """The rule knobs ``init_state`` writes into a state: players, turn limit, variant, first player, rewards
    (win, loss: float64 bits), zero_sum, prize_features."""
    first = -1 if config.first_player is None else config.first_player
    knobs = np.array([config.num_players, config.max_turns, int(config.four_of_a_kind_is_two_pairs), first], np.int32)
    flags = np.array([int(config.zero_sum), int(config.prize_features)], np.int32)
    return np.concatenate([knobs, float64_bits(config.win_reward, config.loss_reward), flags])


@njit(cache=True, inline="always")
def init_state(state: np.ndarray, head: np.ndarray) -> None:
    start_game(state, head[0], head[1], head[2], head[3])
    state[REWARDS : REWARDS + 4] = head[4:8]
    state[ZERO_SUM] = head[8]
    state[PRIZE_FEATURES] = head[9]


@njit(cache=True, inline="always")
def to_act(state: np.ndarray) -> int:
    phase = state[PHASE]
    if phase == PHASE_DECIDE:
        return state[CURRENT]
    return NOBODY if phase == PHASE_OVER else CHANCE


@njit(cache=True, inline="always")
def current_seat(state: np.ndarray) -> int:
    """Whose turn it is; at the end the winner (decided as their turn starts) or the seat truncation stopped."""
    return state[CURRENT]


@njit(cache=True, inline="always")
def status(state: np.ndarray) -> int:
    if state[PHASE] != PHASE_OVER:
        return PLAYING
    return TRUNCATED_STATUS if state[TRUNCATED] else TERMINATED


@njit(cache=True, inline="always")
def rewards(state: np.ndarray, out: np.ndarray) -> None:
    """The final rewards of the config (``win_reward`` / ``loss_reward``, kept in the state), 0 mid-game and
    after truncation; with ``zero_sum``: +1 the winner, -1/(P-1) the others (``dicearena.envs.common.rewards``)."""
    if state[ZERO_SUM]:
        winner = state[WINNER]
        won = state[PHASE] == PHASE_OVER and winner >= 0
        zero_sum_rewards((1 << winner) if won else 0, state[NUM_PLAYERS], out)
        return
    values = state[REWARDS : REWARDS + 4].view(np.float64)
    final_rewards(state, values[0], values[1], out)


@njit(cache=True, inline="always")
def observe(state: np.ndarray, seat: int, out: np.ndarray) -> None:
    encode_observation(state, seat, out)
    if state[PRIZE_FEATURES]:
        encode_prize_features(state, out, _base_observation_size(state[NUM_PLAYERS]))


@njit(cache=True, inline="always")
def chance_words(state: np.ndarray) -> int:
    """One random word per die to roll (the roll-off rolls all four)."""
    return dice_needed(state)


@njit(cache=True, inline="always")
def draw_outcome(state: np.ndarray, words: np.ndarray, outcome: np.ndarray) -> None:
    """Fair dice (``dicearena.envs.common.dice_outcomes``)."""
    draw_faces(dice_needed(state), words, outcome)


@njit(cache=True, inline="always")
def check_outcome(state: np.ndarray, outcome: np.ndarray) -> int:
    """0 if the first ``dice_needed`` values are faces 0..5 (1 otherwise)."""
    return 1 if bad_faces(dice_needed(state), outcome) else 0


@njit(cache=True, inline="always")
def apply_outcome(state: np.ndarray, outcome: np.ndarray) -> None:
    apply_chance(state, outcome)


@njit(cache=True)
def enumerate_outcomes(state: np.ndarray, outcomes: np.ndarray, probs: np.ndarray) -> int:
    """Every roll of the dice to roll, in order (6**k rolls of probability 6**-k); -1 if ``outcomes`` is too small."""
    k = dice_needed(state)
    count = NUM_FACES**k
    if outcomes.shape[0] < count:
        return -1
    for code in range(count):
        rest = code
        for i in range(NUM_DICE):
            outcomes[code, i] = 0
        for i in range(k - 1, -1, -1):
            outcomes[code, i] = rest % NUM_FACES
            rest //= NUM_FACES
        probs[code] = 1.0 / count
    return count
