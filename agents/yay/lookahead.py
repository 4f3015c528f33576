"""Yay! lookahead baseline: plans the push-your-luck decision (write now or throw again) with the engine itself.

Why an engine state: whether a re-throw pays depends on rules that interact (the next throw must beat this one,
a throw that does not forces a cross-off, a throw may land on filled squares only, writing is allowed only above
the opponent numbers beside a square and crosses them, a full line ends the game). Re-deriving any of that here
would be a second copy of the rules, so the agent rebuilds an engine state from the observation and lets the
engine (``apply_action``, ``apply_throw``, ``legal_mask``, ``sample_landing``, ``touched_squares``,
``final_reward``) compute every afterstate on a scratch copy.

The rebuild. The observer becomes seat 0 and the opponents seats 1..P-1 in relative order; numbers come from the
per-square channels. A crossed-off number only says "crossed" (owner and value are not observed), and it only
matters as a filled square (it never restricts a write, never counts, cannot be crossed again), so it is stored
as a crossed number of an arbitrary owner. The phase is ``PHASE_CROSS`` when a cross-off is pending, else
``PHASE_DECIDE``; the first-turn slot gives seat 0's ``FIRST_DONE`` (opponents: 1); there is no turn limit (the
observation gives turns / max_turns, not max_turns; truncation is no decision anyway). The die size and the end
rule are not in the observation: they are constructor arguments (the config's defaults). The tests check that
the rebuilt state gives exactly the env's legal mask, which is what proves the rebuild.

The value ``V`` of a board for seat 0 (weights are constructor arguments; "best opponent": most uncrossed
numbers, then the higher sum):

    lead = (own uncrossed numbers - the best opponent's) + sum_weight * (own sum - the best opponent's sum)
           - own_risk * sum over empty squares e of (own numbers beside e) * P(3d6 > the highest own number beside e)
           + opp_risk * sum over empty squares e of (the best opponent's numbers beside e)
                                                    * P(3d6 > the highest opponent number beside e)
    V = tanh(lead / (lead_scale + time_scale * m)),  m = the fewest empty squares of any row or column

- The lead decides the game (the sum breaks ties), so it is the core. Only the best opponent's count enters it,
  so only that opponent's exposure counts.
- Exposure: a number is lost only when someone writes a higher total into an empty square beside it, and that
  total must also beat every other number of the same side beside that square, which crosses them all. So the
  risk is counted per empty square, with the chance that three dice beat the *highest* number guarding it
  (``heuristics.BEAT``): a low number in the open is worth less than it counts, a high neighbour shields it, and
  an opponent's exposed number is a chance to cross it. (Counted per number instead, as the greedy agent does:
  0.59 instead of 0.60 wins against it over 1000 games, a gain within the noise, kept because it is how the rule
  works.)
- ``tanh``: ``V`` estimates the chance to win, not the margin. Behind, a gamble that may catch up is worth more
  than the margin says; ahead, a safe write is. The scale shrinks as a line nears completion (``m``), because a
  lead counts for more the fewer turns are left. (Against the greedy agent: the plain lead with the end worth 4
  leads won 0.56-0.57, tanh with a fixed scale 0.58-0.59 over 1000 games; the shrinking scale 0.61-0.62 over
  3000.)
- An afterstate that ends the game (``line_filled``) is worth the true result, ``end_weight * final_reward``,
  above every unfinished board (|V| < 1): the agent finishes games it wins and does not fill a line while behind.
  Larger is not better: with the end worth 100 leads, the one sampled re-throw in 32 that could end the game
  dominated the Monte Carlo mean and the agent threw away good writes (it then won only 42% against the greedy).

The decisions:
- write or block: ``V`` of the afterstate (``apply_action`` also passes the turn, which ``V`` ignores);
- throw again: Monte Carlo over ``samples`` throws (faces uniform, landings by ``engine.sample_landing`` from keys
  of the agent's own generator, which ``reset(seed)`` reseeds). Each throw is applied to a copy after
  ``apply_action(throw again)`` (which records the previous total as the engine does): a forced cross-off is
  worth its best cross-off afterstate, a throw touching only filled squares the unchanged board, otherwise the
  best write or block afterstate. One level only (no second re-throw inside the plan): it keeps a decision cheap,
  and a later re-throw is planned again when that position is real. A throw that is not higher leaves the same
  board whatever it was, so its cross-off is valued once per decision. Throw again when the mean beats the best
  immediate action;
- cross-off pending: the own number whose loss lowers ``V`` least (usually the lowest and most exposed one).

The batch loop is one numba function (evaluation plays thousands of games), with scratch arrays reused per row.

Measured (one core, 8x8, defaults): against ``yay_greedy`` with seats alternated it wins 0.62-0.63 of two-player
games (3000 games on each of two dice seeds; shared wins count); about 7000 decisions/s batched (a Monte Carlo
decision is some 150 us), a two-player game with the agent in both seats 8-10 ms.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numba import njit

from agents.base import Agent
from envs.yay import engine as E
from envs.yay.chance import LANDING_KEYS

from .heuristics import BEAT
from .reading import check_sheet, num_players_of, read_batch

__all__ = ["CROSSED_NUMBER", "YayLookaheadAgent", "rebuild_state"]

# A crossed number of an arbitrary owner: the observation says only "crossed". The engine has no public helper
# that crosses a code (``apply_action`` does it in place), so its flag is read from the engine, not copied.
CROSSED_NUMBER = int(E.crossed_code(0, E.MAX_TOTAL))

# ``weights`` slots (constructor arguments of the same names)
W_OWN_RISK = 0
W_OPP_RISK = 1
W_SUM = 2
W_END = 3
W_LEAD_SCALE = 4
W_TIME_SCALE = 5

# ``tally`` rows: per seat, uncrossed numbers, their sum, exposure, numbers beside the empty square at hand
T_COUNT = 0
T_SUM = 1
T_EXPOSED = 2
T_BESIDE = 3


# --- numba: rebuild, value, plan ------------------------------------------------------------------------------


@njit(cache=True)
def _rebuild(obs, b, rows, cols, n, end_mode, state):
    """The engine state seen by row ``b``'s observer, as seat 0 (module docstring: the rebuild)."""
    E.start_game(state, n, rows, cols, end_mode, 0, E.DEFAULT_DIE_BITS)  # max_turns 0: no truncation
    squares = rows * cols
    channels = 4 + n
    for s in range(squares):
        base = s * channels
        code = E.EMPTY
        if obs[b, base + 1] > 0.5:
            code = E.BLOCKED
        elif obs[b, base + 3] > 0.5:
            code = CROSSED_NUMBER
        elif obs[b, base] < 0.5:
            for rel in range(n):
                if obs[b, base + 4 + rel] > 0.0:
                    code = E.number_code(rel, int(round(obs[b, base + 4 + rel] * E.MAX_TOTAL)))
                    break
        state[E.BOARD + s] = code
        state[E.TOUCHED + s] = 1 if obs[b, base + 2] > 0.5 else 0
    k = squares * channels
    state[E.CURRENT] = 0
    state[E.TOTAL] = int(round(obs[b, k + 1] * E.MAX_TOTAL))
    state[E.PREVIOUS] = int(round(obs[b, k + 2] * E.MAX_TOTAL))
    state[E.FIRST_DONE] = 0 if obs[b, k + 3] > 0.5 else 1
    for seat in range(1, n):
        state[E.FIRST_DONE + seat] = 1
    state[E.PHASE] = E.PHASE_CROSS if obs[b, k + 4] > 0.5 else E.PHASE_DECIDE


@njit(cache=True)
def _closest_end(state):
    """Empty squares still missing before the game can end: the fewest in any row or column (the larger of the
    two fewest under END_ROW_AND_COLUMN)."""
    rows, cols = state[E.ROWS], state[E.COLS]
    best_row = cols
    for r in range(rows):
        missing = 0
        for c in range(cols):
            missing += state[E.BOARD + r * cols + c] == E.EMPTY
        best_row = min(best_row, missing)
    best_col = rows
    for c in range(cols):
        missing = 0
        for r in range(rows):
            missing += state[E.BOARD + r * cols + c] == E.EMPTY
        best_col = min(best_col, missing)
    if state[E.END_MODE] == E.END_ROW_AND_COLUMN:
        return max(best_row, best_col)
    return min(best_row, best_col)


@njit(cache=True)
def _value(state, beat, weights, tally):
    """``V`` of the module docstring for seat 0; ``tally``: (4, MAX_PLAYERS) scratch."""
    if state[E.PHASE] == E.PHASE_OVER:
        return weights[W_END] * E.final_reward(state, 0)
    n, rows, cols = state[E.NUM_PLAYERS], state[E.ROWS], state[E.COLS]
    tally[:] = 0.0
    for s in range(rows * cols):
        code = state[E.BOARD + s]
        if code > E.BLOCKED and not E.is_crossed(code):
            tally[T_COUNT, E.owner(code)] += 1.0
            tally[T_SUM, E.owner(code)] += E.value_of(code)
            continue
        if code != E.EMPTY:
            continue
        # an empty square: whoever writes a total above the other players' numbers beside it crosses them all
        r, c = s // cols, s % cols
        own_max, opp_max = 0, 0
        tally[T_BESIDE, :] = 0.0
        for t in (s - cols if r > 0 else -1, s + cols if r < rows - 1 else -1, s - 1 if c > 0 else -1,
                  s + 1 if c < cols - 1 else -1):  # fmt: skip
            if t < 0:
                continue
            near = state[E.BOARD + t]
            if near <= E.BLOCKED or E.is_crossed(near):
                continue
            seat, value = E.owner(near), E.value_of(near)
            tally[T_BESIDE, seat] += 1.0
            if seat == 0:
                own_max = max(own_max, value)
            else:
                opp_max = max(opp_max, value)
        tally[T_EXPOSED, 0] += tally[T_BESIDE, 0] * beat[own_max]
        for seat in range(1, n):
            tally[T_EXPOSED, seat] += tally[T_BESIDE, seat] * beat[opp_max]
    best = 1
    for seat in range(2, n):
        more = tally[T_COUNT, seat] > tally[T_COUNT, best]
        if more or (tally[T_COUNT, seat] == tally[T_COUNT, best] and tally[T_SUM, seat] > tally[T_SUM, best]):
            best = seat
    lead = (
        tally[T_COUNT, 0]
        - tally[T_COUNT, best]
        + weights[W_SUM] * (tally[T_SUM, 0] - tally[T_SUM, best])
        - weights[W_OWN_RISK] * tally[T_EXPOSED, 0]
        + weights[W_OPP_RISK] * tally[T_EXPOSED, best]
    )
    return np.tanh(lead / (weights[W_LEAD_SCALE] + weights[W_TIME_SCALE] * _closest_end(state)))


@njit(cache=True)
def _after(state, action, scratch, beat, weights, tally):
    """``V`` after seat 0 plays the legal ``action`` (on ``scratch``, a copy)."""
    scratch[:] = state
    E.apply_action(scratch, 0, action)
    return _value(scratch, beat, weights, tally)


@njit(cache=True)
def _best_settle(state, mask, first, last, scratch, beat, weights, tally):
    """(best V, its action) over the legal actions ``first..last-1`` of ``mask`` (-inf, -1 if none is legal)."""
    best, chosen = -np.inf, -1
    for a in range(first, last):
        if mask[a] == 0:
            continue
        v = _after(state, a, scratch, beat, weights, tally)
        if v > best:
            best, chosen = v, a
    return best, chosen


@njit(cache=True)
def _throw_again_value(state, faces, keys, die_size, scratch, thrown, mask, corners, touched, beat, weights, tally):
    """Mean over the sampled throws of the best settling afterstate after throwing again (module docstring)."""
    rows, cols = state[E.ROWS], state[E.COLS]
    squares = rows * cols
    total = 0.0
    crossed = np.nan
    for i in range(faces.shape[0]):
        thrown[:] = state
        E.apply_action(thrown, 0, 3 * squares)  # throw again: PREVIOUS = this total, a throw is pending
        E.sample_landing(keys[i], die_size, rows, cols, corners)
        E.touched_squares(corners, die_size, rows, cols, touched)
        E.apply_throw(thrown, faces[i], touched)
        phase = thrown[E.PHASE]
        if phase == E.PHASE_CROSS:  # not higher: the same board whatever was thrown, so valued once
            if np.isnan(crossed):
                E.legal_mask(thrown, 0, mask)
                crossed = _best_settle(thrown, mask, 2 * squares, 3 * squares, scratch, beat, weights, tally)[0]
            total += crossed
        elif phase == E.PHASE_DECIDE:  # the best write or block
            E.legal_mask(thrown, 0, mask)
            total += _best_settle(thrown, mask, 0, 2 * squares, scratch, beat, weights, tally)[0]
        else:  # the turn passed: not higher with nothing to cross off, or only filled squares touched
            total += _value(thrown, beat, weights, tally)
    return total / faces.shape[0]


@njit(cache=True)
def _choose(obs, masks, rows, cols, n, end_mode, die_size, faces, keys, beat, weights, out):
    """The module docstring's policy for every row; -1 for a row with no legal action."""
    squares = rows * cols
    again = 3 * squares
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    scratch = np.zeros(E.STATE_SIZE, dtype=np.int32)
    thrown = np.zeros(E.STATE_SIZE, dtype=np.int32)
    mask = np.zeros(again + 1, dtype=np.int8)
    corners = np.zeros((E.NUM_DICE, 2), dtype=np.float64)
    touched = np.zeros(E.MAX_SQUARES, dtype=np.int32)
    tally = np.zeros((4, E.MAX_PLAYERS))
    for b in range(obs.shape[0]):
        row = masks[b]
        _rebuild(obs, b, rows, cols, n, end_mode, state)
        # a pending cross-off, or a write / block (throwing again, the last action id, is weighed below)
        best, chosen = _best_settle(state, row, 0, again, scratch, beat, weights, tally)
        if row[again] != 0:
            q = _throw_again_value(state, faces[b], keys[b], die_size, scratch, thrown, mask, corners, touched,
                                   beat, weights, tally)  # fmt: skip
            if chosen < 0 or q > best:
                chosen = again
        out[b] = chosen


# --- Python side ------------------------------------------------------------------------------------------------


def rebuild_state(observation: np.ndarray, rows: int = 8, cols: int = 8, end_when: str = "row_or_column") -> np.ndarray:
    """The engine state the agent plans on, rebuilt from one observation (the observer is seat 0); for tests and
    notebooks."""
    obs = np.ascontiguousarray(np.atleast_2d(observation), dtype=np.float32)
    n = num_players_of(obs.shape[1], rows, cols)
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    _rebuild(obs, 0, rows, cols, n, _end_mode(end_when), state)
    return state


def _number(value: object) -> bool:
    """A finite real number (not a bool)."""
    return (
        isinstance(value, int | float | np.integer | np.floating)
        and not isinstance(value, bool)
        and bool(np.isfinite(value))
    )


def _end_mode(end_when: str) -> int:
    if end_when not in ("row_or_column", "row_and_column"):
        raise ValueError(f"yay_lookahead: 'end_when' must be 'row_or_column' or 'row_and_column', got {end_when!r}")
    return E.END_ROW_AND_COLUMN if end_when == "row_and_column" else E.END_ROW_OR_COLUMN


class YayLookaheadAgent(Agent):
    """Yay! baseline that scores afterstates with the engine and plans throwing again by Monte Carlo (module
    docstring); batched, seeded."""

    name = "yay_lookahead"

    def __init__(
        self,
        rows: int | None = None,
        cols: int | None = None,
        samples: int = 32,
        die_size: float = 1.27,
        end_when: Literal["row_or_column", "row_and_column"] = "row_or_column",
        own_risk: float = 0.4,
        opp_risk: float = 0.25,
        sum_weight: float = 0.01,
        end_weight: float = 1.5,
        lead_scale: float = 2.0,
        time_scale: float = 0.5,
        seed: int | None = None,
    ) -> None:
        """``rows``/``cols``: the sheet of the game played; None reads a square sheet off the mask length (give
        both for any other shape; the player count is read from the observation length). ``samples``: throws
        simulated per throw-again decision. ``die_size``, ``end_when``: the game's config (not observable). The
        weights and scales: ``V`` of the module docstring. ``seed``: the generator of the simulated throws."""
        self.rows, self.cols = check_sheet(self.name, rows, cols)
        if isinstance(samples, bool) or not isinstance(samples, int | np.integer) or not 1 <= samples <= 10_000:
            raise ValueError(f"{self.name}: 'samples' must be an integer 1..10000, got {samples!r}")
        if not _number(die_size) or die_size <= 0:
            raise ValueError(f"{self.name}: 'die_size' must be a positive number, got {die_size!r}")
        self.end_mode = _end_mode(end_when)
        weights = {"own_risk": own_risk, "opp_risk": opp_risk, "sum_weight": sum_weight, "end_weight": end_weight,
                   "lead_scale": lead_scale, "time_scale": time_scale}  # fmt: skip
        for key, value in weights.items():
            if not _number(value):
                raise ValueError(f"{self.name}: '{key}' must be a finite number, got {value!r}")
        if lead_scale <= 0 or time_scale < 0:
            raise ValueError(
                f"{self.name}: 'lead_scale' must be positive and 'time_scale' at least 0, got {lead_scale!r} and "
                f"{time_scale!r}"
            )
        self.weights = np.array(list(weights.values()), dtype=np.float64)
        self.samples = int(samples)
        self.die_size = float(die_size)
        self.end_when = end_when
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the generator of the simulated throws (None keeps the current stream)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs, masks, rows, cols, n = read_batch(self.name, observations, action_masks, self.rows, self.cols)
        if not E.dice_always_fit(rows, cols, self.die_size):  # the config's rule: the sampled throws need room
            raise ValueError(
                f"{self.name}: 'die_size' {self.die_size} does not fit a {rows}x{cols} sheet (three dice must always "
                f"fit: die_size at most {E.largest_die(rows, cols):.4g})"
            )
        batch = obs.shape[0]
        faces = self.rng.integers(0, E.NUM_FACES, size=(batch, self.samples, E.NUM_DICE))
        keys = self.rng.integers(0, LANDING_KEYS, size=(batch, self.samples))
        out = np.empty(batch, dtype=np.int64)
        _choose(
            obs,
            masks,
            rows,
            cols,
            n,
            self.end_mode,
            self.die_size,
            faces,
            keys,
            BEAT,
            self.weights,
            out,
        )
        return out
