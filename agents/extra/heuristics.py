"""Extra! agents: greedy, a planning heuristic, and a one-throw expectimax.

All three are planning agents (``reads_state = True``): they read the engine state and the seat they decide for
(``act_states``; the sheet layout and the children rule are in the state), copy that seat's sheet into a
one-player scratch state and score each legal action's *afterstate*, which the engine itself computes
(``apply_action`` on the scratch copy): no rule is re-implemented here. The other seats' sheets and any choices
they have already recorded on this throw are not read (the decisions are simultaneous).

- ``GreedyAgent``: the afterstate's sheet score (``engine.score``: a row in the minus zone is -200 at once).
- ``PlannerAgent``: the afterstate's *planning value* ``V`` (below); an action that finishes the game is
  worth its true final score.
- ``ExpectimaxAgent``: ``Q(a) = E_throw[max_a' V(after(after(a), a'))]`` over the 252 distinct next throws
  (exact probabilities), with the true final score wherever a game ends; i.e. the planner looking one throw
  further ahead.

Planning value ``V`` of a sheet (weights in ``PlannerAgent.DEFAULTS``):
- a row past the minus zone: its score; an unchecked row: 0;
- a row inside the minus zone with ``need`` checks still missing to its 0 box: ``-penalty * (need / (M + 1))
  ** alpha`` (the rows near zero are planned for: each check that brings a row closer is worth a lot);
- EXTRA chart: ``-extra_weight * sum_j checks_j / (length_j - checks_j + 1)`` (columns near their end are
  costly, so the longer columns are used first and the game lasts), and ``rare_bonus`` for each EXTRA number
  that is a 1 or a 6 (the rarest pair material for the middle rows, so setting them aside costs least).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from dicearena.agents.base import StatePlanner
from dicearena.envs.common.batching import ThreadChoice
from dicearena.envs.extra import engine as E
from dicearena.envs.extra.config import ExtraConfig

__all__ = ["ExpectimaxAgent", "GreedyAgent", "PlannerAgent"]

KIND_GREEDY = 0
KIND_PLANNER = 1
KIND_EXPECTIMAX = 2


def _throws() -> tuple[np.ndarray, np.ndarray]:
    """The 252 distinct throws of five dice (0-based faces, sorted) and their probabilities: the engine's
    ``enumerate_outcomes`` at a chance node, so the agents hold no chance model of their own."""
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.init_state(state, E.header(ExtraConfig(num_players=1)))
    faces = np.zeros((E.NUM_THROWS, E.NUM_DICE), dtype=np.int32)
    probs = np.zeros(E.NUM_THROWS, dtype=np.float64)
    count = E.enumerate_outcomes(state, faces, probs)
    return faces[:count].astype(np.int64), probs[:count]


THROWS, THROW_PROBS = _throws()


# --- numba: a seat's sheet on its own, value sheets, choose ----------------------------------------------


PARALLEL_ROWS = 8  # expectimax batches from this size use every thread (same results)
MAX_CHECKS = 31  # table width: more than any row (12 + 6) or column (30) can hold
# The state slots holding the sheet layout (penalty; minus boxes, points, EXTRA column lengths): the tables' key.
SHEET_SLOTS = np.array([E.PENALTY, *range(E.MINUS, E.COLUMN_LENGTH + E.NUM_COLUMNS)], dtype=np.int64)


def planning_tables(sheet: tuple[int, ...], params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``V`` of the sheet ``state[SHEET_SLOTS]`` as lookup tables: row part (11, 31) and column part (3, 31), by
    checks (the EXTRA number bonus is the same for every sheet)."""
    alpha, extra_weight = float(params[0]), float(params[1])
    penalty, minus, points = sheet[0], sheet[1 : 1 + E.NUM_ROWS], sheet[1 + E.NUM_ROWS : 1 + 2 * E.NUM_ROWS]
    rows = np.zeros((E.NUM_ROWS, MAX_CHECKS))
    for r, (m, pts) in enumerate(zip(minus, points, strict=True)):
        for c in range(1, m + 1 + E.NUM_FACTORS + 1):
            rows[r, c] = pts * (c - m - 1) if c > m else -penalty * ((m + 1 - c) / (m + 1)) ** alpha
    cols = np.zeros((E.NUM_COLUMNS, MAX_CHECKS))
    for j, length in enumerate(sheet[1 + 2 * E.NUM_ROWS :]):
        for c in range(length + 1):
            cols[j, c] = -extra_weight * c / (length - c + 1)
    return rows, cols


def number_bonus(params: np.ndarray) -> np.ndarray:
    """``V``'s bonus by EXTRA number (7,): ``rare_bonus`` for a 1 or a 6."""
    numbers = np.zeros(7)
    numbers[[1, 6]] = float(params[2])
    return numbers


@njit(cache=True, inline="always")
def _planning_value(state: np.ndarray, rows: np.ndarray, cols: np.ndarray, numbers: np.ndarray) -> float:
    """``V`` of seat 0's sheet (see the module docstring), from ``planning_tables``."""
    base = E.PLAYERS
    total = 0.0
    for r in range(E.NUM_ROWS):
        total += rows[r, state[base + E.P_ROWS + r]]
    for j in range(E.NUM_COLUMNS):
        total += cols[j, state[base + E.P_CHECKS + j]] + numbers[state[base + E.P_NUMBER + j]]
    return total


@njit(cache=True, inline="always")
def _leaf(state: np.ndarray, kind: int, rows: np.ndarray, cols: np.ndarray, numbers: np.ndarray) -> float:
    """Value of an afterstate: the true score if the game is over, else the kind's estimate."""
    if kind == KIND_GREEDY or state[E.PHASE] == E.PHASE_OVER:
        return float(E.score(state, 0))
    return _planning_value(state, rows, cols, numbers)


_SAVED_SEAT = 2 + E.NUM_DICE  # saved: phase, round, dice, then seat 0's block


@njit(cache=True, inline="always")
def _save(state: np.ndarray, saved: np.ndarray) -> None:
    saved[0] = state[E.PHASE]
    saved[1] = state[E.ROUND]
    for i in range(E.NUM_DICE):
        saved[2 + i] = state[E.DICE + i]
    for i in range(E.PLAYER_SIZE):
        saved[_SAVED_SEAT + i] = state[E.PLAYERS + i]


@njit(cache=True, inline="always")
def _restore(state: np.ndarray, saved: np.ndarray) -> None:
    state[E.PHASE] = saved[0]
    state[E.ROUND] = saved[1]
    for i in range(E.NUM_DICE):
        state[E.DICE + i] = saved[2 + i]
    for i in range(E.PLAYER_SIZE):
        state[E.PLAYERS + i] = saved[_SAVED_SEAT + i]


@njit(cache=True, inline="always")
def _effect_key(state: np.ndarray, action: int) -> int:
    """Actions with equal pair sums, fifth-die value and column lead to the same afterstate: one key."""
    e = action // 9
    p = (action // 3) % 3
    d = E.DICE
    s1 = state[d + E.PAIRINGS[e, p, 0]] + state[d + E.PAIRINGS[e, p, 1]]
    s2 = state[d + E.PAIRINGS[e, p, 2]] + state[d + E.PAIRINGS[e, p, 3]]
    lo, hi = min(s1, s2), max(s1, s2)
    return ((lo * 13 + hi) * 7 + state[d + e]) * 3 + action % 3


@njit(cache=True, inline="always")
def _first_of_its_effect(state, action, keys, n_keys) -> bool:
    """True (and its key recorded at ``keys[n_keys]``) unless an action of the same effect was seen already."""
    key = _effect_key(state, action)
    for k in range(n_keys):
        if keys[k] == key:
            return False
    keys[n_keys] = key
    return True


@njit(cache=True, inline="always")
def _best_next(state, rows, cols, numbers, throws, probs, mask, keys, saved) -> float:
    """E over the next throw of the best afterstate value (state: an afterstate waiting for a throw)."""
    _save(state, saved[0])
    expected = 0.0
    for t in range(throws.shape[0]):
        E.apply_chance(state, throws[t])
        E.legal_mask(state, 0, mask)
        _save(state, saved[1])
        best = -1e18
        n_keys = 0
        for a in range(E.NUM_ACTIONS):
            if mask[a] == 0:
                continue
            if not _first_of_its_effect(state, a, keys, n_keys):
                continue
            n_keys += 1
            E.apply_action(state, 0, a)
            value = _leaf(state, KIND_PLANNER, rows, cols, numbers)
            if value > best:
                best = value
            _restore(state, saved[1])
        expected += probs[t] * best
        _restore(state, saved[0])
    return expected


@njit(cache=True, inline="always")
def _seat_alone(source: np.ndarray, seat: int, state: np.ndarray) -> None:
    """``state`` = ``seat``'s position in ``source`` as a one-player game: the header (sheet layout, children rule,
    throw, round, phase) and the seat's sheet in seat 0, undecided; so ``apply_action(state, 0, a)`` resolves the
    seat's choice at once, whatever the other seats do."""
    state[:] = 0
    for i in range(E.PLAYERS):
        state[i] = source[i]
    state[E.NUM_PLAYERS] = 1
    base = E.PLAYERS + seat * E.PLAYER_SIZE
    for i in range(E.PLAYER_SIZE):
        state[E.PLAYERS + i] = source[base + i]
    state[E.PLAYERS + E.P_PENDING] = -1


@njit(cache=True, inline="always")
def _choose_row(source, seat, mask_row, kind, row_values, col_values, numbers, throws, probs, values, scratch) -> int:
    """The best legal action of one decision (first of equal values); ``values`` (45,) gets every legal action's
    value (an action sharing an effect with an earlier one gets its value) and -inf elsewhere."""
    state, mask, keys, inner_keys, key_values, saved = scratch
    _seat_alone(source, seat, state)
    _save(state, saved[2])
    best = -1e18
    chosen = -1
    n_keys = 0
    for a in range(E.NUM_ACTIONS):
        values[a] = -np.inf
        if mask_row[a] == 0:
            continue
        if chosen < 0:
            chosen = a
        key = _effect_key(state, a)
        seen = -1
        for k in range(n_keys):
            if keys[k] == key:
                seen = k
                break
        if seen >= 0:
            values[a] = key_values[seen]
            continue
        keys[n_keys] = key
        E.apply_action(state, 0, a)
        if kind == KIND_EXPECTIMAX and state[E.PHASE] != E.PHASE_OVER:
            value = _best_next(state, row_values, col_values, numbers, throws, probs, mask, inner_keys, saved)
        else:
            value = _leaf(state, kind, row_values, col_values, numbers)
        key_values[n_keys] = value
        n_keys += 1
        values[a] = value
        if value > best:
            best = value
            chosen = a
        _restore(state, saved[2])
    return chosen


@njit(cache=True, inline="always")
def _scratch():
    return (np.zeros(E.STATE_SIZE, dtype=np.int32), np.zeros(E.NUM_ACTIONS, dtype=np.int8),
            np.zeros(E.NUM_ACTIONS, dtype=np.int64), np.zeros(E.NUM_ACTIONS, dtype=np.int64),
            np.zeros(E.NUM_ACTIONS), np.zeros((3, _SAVED_SEAT + E.PLAYER_SIZE), dtype=np.int32))  # fmt: skip


@njit(cache=True)
def _choose(states, masks, seats, sheet_of, kind, rows, cols, numbers, throws, probs, out, values):
    """Best legal action of every row for the agent ``kind``, and each action's value (``values`` (k, 45));
    row b's sheet values are ``rows[sheet_of[b]]``, ``cols[sheet_of[b]]``."""
    scratch = _scratch()
    for b in range(states.shape[0]):
        out[b] = _choose_row(states[b], seats[b], masks[b], kind, rows[sheet_of[b]], cols[sheet_of[b]], numbers,
                             throws, probs, values[b], scratch)  # fmt: skip


@njit(cache=True, parallel=True)
def _choose_parallel(states, masks, seats, sheet_of, kind, rows, cols, numbers, throws, probs, out, values, chunks):
    """``_choose`` with the rows cut into ``chunks`` ranges, one per thread (expectimax costs ~0.4 ms a decision)."""
    n = states.shape[0]
    for c in prange(chunks):
        scratch = _scratch()
        for b in range(c * n // chunks, (c + 1) * n // chunks):
            out[b] = _choose_row(states[b], seats[b], masks[b], kind, rows[sheet_of[b]], cols[sheet_of[b]], numbers,
                                 throws, probs, values[b], scratch)  # fmt: skip


@njit(cache=True)
def _board_values(states, sheet_of, kind, rows, cols, numbers, centre, scale, out) -> None:
    """``out[i, seat]`` = tanh((V - centre) / scale), V the seat's own planning value (its score once finished)."""
    alone = np.zeros(E.STATE_SIZE, dtype=np.int32)
    for i in range(states.shape[0]):
        for seat in range(states[i, E.NUM_PLAYERS]):
            if states[i, E.PLAYERS + seat * E.PLAYER_SIZE + E.P_DONE] != 0:  # a final sheet: its score
                value = float(E.score(states[i], seat))
            else:
                _seat_alone(states[i], seat, alone)
                value = _leaf(alone, kind, rows[sheet_of[i]], cols[sheet_of[i]], numbers)
            out[i, seat] = np.tanh((value - centre) / scale)


class _SheetAgent(StatePlanner):
    """Shared plumbing: input checks, the planning tables of each sheet layout met, the compiled chooser."""

    game_title = "Extra!"
    kind = KIND_GREEDY
    advice_scale = 100.0  # action values are sheet points: 100 is a row's worth (dicearena.agents.advice)
    DEFAULTS: tuple[float, ...] = (1.0, 0.0, 0.0)

    def __init__(self, params: tuple[float, ...] | None = None) -> None:
        """``params``: the planning value's weights (alpha, extra_weight, rare_bonus; the planner's and
        expectimax's ``DEFAULTS``). The sheet layout and the children rule are read from each state."""
        self.params = np.asarray(self.DEFAULTS if params is None else params, dtype=np.float64)
        if self.params.shape != (3,) or not np.isfinite(self.params).all():
            raise ValueError(f"{self.name}: params must be 3 finite numbers (alpha, extra_weight, rare_bonus)")
        self._numbers = number_bonus(self.params)
        self._tables: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
        self.thread_choice = ThreadChoice()  # expectimax on numba's threads while that is faster (a busy machine)

    def _sheet_tables(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(index of each state's sheet layout (k,), row tables (L, 11, 31), column tables (L, 3, 31))."""
        sheets = states[:, SHEET_SLOTS]
        if (sheets == sheets[0]).all():  # the usual batch: one config
            layouts, sheet_of = sheets[:1], np.zeros(len(states), dtype=np.int64)
        else:
            layouts, sheet_of = np.unique(sheets, axis=0, return_inverse=True)
        tables = []
        for layout in layouts:
            key = tuple(int(v) for v in layout)
            if key not in self._tables:
                self._tables[key] = planning_tables(key, self.params)
            tables.append(self._tables[key])
        rows = np.stack([t[0] for t in tables])
        cols = np.stack([t[1] for t in tables])
        return np.ascontiguousarray(sheet_of.reshape(-1), dtype=np.int64), rows, cols

    def board_value(self, states: np.ndarray, centre: float = -500.0, scale: float = 1000.0) -> np.ndarray:
        """(k, P): each seat's own planning value ``V`` (its score once it has finished, as the final sheet is), as
        ``tanh((V - centre) / scale)``: the search agent's leaf evaluator, ``SearchAgent("extra", depth=3,
        evaluator=agent.board_value)``. Each seat is valued alone, the others ignored, as this agent plays: a
        squashed score, not a chance of winning. ``centre`` and ``scale`` put a game's values (about -1,000 to -250
        points) inside the final rewards' +-1 without flattening them."""
        states = np.ascontiguousarray(states, dtype=np.int32)
        if states.ndim != 2 or states.shape[1] != E.STATE_SIZE:
            raise ValueError(f"{self.name}: board_value takes (k, {E.STATE_SIZE}) Extra! engine states, got shape "
                             f"{states.shape}")  # fmt: skip
        if not (np.isfinite(centre) and np.isfinite(scale) and scale > 0):
            raise ValueError(f"{self.name}: board_value needs a finite centre and a positive scale, got {centre}, "
                             f"{scale}")  # fmt: skip
        players = int(states[0, E.NUM_PLAYERS]) if len(states) else 1
        out = np.zeros((len(states), players), dtype=np.float64)
        if len(states):
            sheet_of, rows, cols = self._sheet_tables(states)
            _board_values(states, sheet_of, self.kind, rows, cols, self._numbers, float(centre), float(scale), out)
        return out

    def act_states(self, states: np.ndarray, action_masks: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Actions for engine states (k, STATE_SIZE) at decision nodes, deciding for ``seats`` (k,) under the legal
        ``action_masks`` (k, 45); -1 for a row whose mask is empty."""
        return self.advise(states, action_masks, seats)[0]

    def advise(self, states: np.ndarray, action_masks: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the actions ``act_states`` plays (k,), every action's value (k, 45): the afterstate value this agent
        maximises, in points; -inf where the mask is 0). What ``dicearena.agents.advice`` turns into observation
        features."""
        states = np.atleast_2d(np.asarray(states))
        masks = np.atleast_2d(np.asarray(action_masks))
        if states.ndim != 2 or states.shape[1] != E.STATE_SIZE or masks.shape != (len(states), E.NUM_ACTIONS):
            raise ValueError(f"{self.name}: need engine states (k, {E.STATE_SIZE}) and masks (k, {E.NUM_ACTIONS}); "
                             f"got {states.shape}, {masks.shape}")  # fmt: skip
        seats = np.broadcast_to(np.asarray(seats, dtype=np.int64), (len(states),))
        out = np.empty(len(states), dtype=np.int64)
        values = np.full((len(states), E.NUM_ACTIONS), -np.inf)
        if len(states) == 0:
            return out, values
        if ((seats < 0) | (seats >= states[:, E.NUM_PLAYERS])).any():
            raise ValueError(f"{self.name}: seats {seats.tolist()} are not all seats of their games")
        sheet_of, rows, cols = self._sheet_tables(states)
        threads = numba.get_num_threads()
        args = (np.ascontiguousarray(states, dtype=np.int32), np.ascontiguousarray(masks, dtype=np.int8),
                np.ascontiguousarray(seats), sheet_of, self.kind, rows, cols, self._numbers, THROWS, THROW_PROBS,
                out, values)  # fmt: skip
        if self.kind == KIND_EXPECTIMAX and len(states) >= PARALLEL_ROWS and threads > 1:
            self.thread_choice.run(len(states), lambda: _choose(*args),
                                   lambda: _choose_parallel(*args, min(len(states), threads)))  # fmt: skip
        else:
            _choose(*args)
        return out, values


class GreedyAgent(_SheetAgent):
    """Best immediate sheet value: the action whose afterstate has the highest score."""

    name = "extra_greedy"
    kind = KIND_GREEDY


class PlannerAgent(_SheetAgent):
    """Best planning value ``V`` of the afterstate (rows near zero, EXTRA numbers and columns: module doc)."""

    name = "extra_planner"
    kind = KIND_PLANNER
    DEFAULTS = (0.5, 20.0, 30.0)


class ExpectimaxAgent(_SheetAgent):
    """One-throw expectimax over the planner's value: ``Q(a) = E_throw[max_a' V(after(after(a), a'))]``."""

    name = "extra_expectimax"
    kind = KIND_EXPECTIMAX
    DEFAULTS = PlannerAgent.DEFAULTS
