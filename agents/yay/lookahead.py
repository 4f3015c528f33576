"""Yay! lookahead baseline: plans the push-your-luck decision (write now or throw again) with the engine itself.

Why an engine state: whether a re-throw pays depends on rules that interact (the next throw must beat this one,
a throw that does not forces a cross-off, a throw may land on filled squares only, writing is allowed only above
the opponent numbers beside a square and crosses them, a full line ends the game). Re-deriving any of that here
would be a second copy of the rules, so the agent plans on the engine state itself (``reads_state = True``:
``act_states`` gets the batched engine's states; in PettingZoo ``act(obs, mask, state=env.state(), seat=)``) and
lets the engine (``apply_action``, ``apply_throw``, ``legal_mask``, ``sample_landing``, ``touched_squares``,
``final_reward``) compute every afterstate on a scratch copy. The sheet, the players, the end rule and the die
size are the state's header, so nothing about the game is a constructor argument.

The copy. Each decision plans on a copy of the state with the turn limit lifted (``MAX_TURNS`` 0: truncation pays
nothing and is no decision anyway), so an afterstate at the last turn is valued like any other.

The value ``V`` of a board for the seat it decides for (weights are constructor arguments; "best opponent": most
uncrossed numbers, then the higher sum, ties to the first in seat order after it):

    lead = (own uncrossed numbers - the best opponent's) + sum_weight * (own sum - the best opponent's sum)
           - own_risk * sum over empty squares e of (own numbers beside e) * P(3d6 > the highest own number beside e)
           + opp_risk * sum over empty squares e of (the best opponent's numbers beside e)
                                                    * P(3d6 > the highest opponent number beside e)
    V = tanh(lead / (lead_scale + time_scale * m)),  m = the fewest empty squares of any row or column

In the code the value is a table (``table``: per m, the weights of the lead's four terms and the scale). A learned
value (``learned_lookahead``, the ``yay_td`` agent, trained by ``learned_values``) replaces it by a small network
over the board's features (``board_features``: these terms and what they leave out) and plays through this same
search.

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

The batch loop is one numba function (evaluation plays thousands of games), with scratch arrays reused per row;
from ``PARALLEL_ROWS`` rows on, the rows are cut into ranges spread over every thread, with the same moves (each
row's simulated throws are drawn before the loop).

Measured (8x8, defaults): against ``yay_greedy`` with seats alternated it wins 0.62-0.63 of two-player games (3000
games on each of two dice seeds; shared wins count). A Monte Carlo decision is some 150 us on one core. Batched
(``dicearena.agents.evaluation.play.head_to_head``, 2,048 games with the agent in both seats) it plays 178 games/s on
one thread and
345 on two (2026-12-03). Its weights are a local optimum against itself: each of the six set to half or to twice
its value won 0.46-0.51 of 2,048 games against the defaults.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from dicearena.envs.common.batching import ThreadChoice
from dicearena.envs.yay import engine as E
from dicearena.envs.yay.chance import LANDING_KEYS

from .board_features import NUM_FEATURES, board_features, closest_end, neighbours
from .heuristics import BEAT, StatePlanner, read_states

__all__ = ["NO_NET", "NUM_TERMS", "VALUE_ROWS", "YayLookaheadAgent", "closest_end", "lead_terms"]

# ``lead_terms`` slots: the lead's terms for the seat valued, each against the best opponent
L_COUNT = 0  # own uncrossed numbers - the best opponent's
L_SUM = 1  # own sum - the best opponent's sum
L_OWN_EXPOSED = 2  # own exposure
L_OPP_EXPOSED = 3  # the best opponent's exposure
NUM_TERMS = 4
# The value table (``YayLookaheadAgent.table``): one row per m = 0..MAX_SIDE, the weights of the four terms, then
# the scale: V = tanh(sum_k table[m, k] * term_k / table[m, NUM_TERMS]). The hand-set value is one such table.
VALUE_ROWS = E.MAX_SIDE + 1
NO_NET = (np.zeros((NUM_FEATURES, 0)), np.zeros(0), np.zeros(0), np.zeros(1))
"""A network with no hidden unit: the value is the table's (``_value``)."""
PARALLEL_ROWS = 16  # batches from this size use every thread (the same moves: each row's throws are drawn first)

# ``tally`` rows: per seat relative to the planner (0 = itself, then the next seats in turn order), uncrossed
# numbers, their sum, exposure, numbers beside the empty square at hand
T_COUNT = 0
T_SUM = 1
T_EXPOSED = 2
T_BESIDE = 3


# --- numba: value, plan -------------------------------------------------------------------------------------


@njit(cache=True)
def lead_terms(state, seat, beat, tally, terms):
    """``terms[L_*]``: the lead's terms (module docstring) of an unfinished board for ``seat``; ``tally``:
    (4, MAX_PLAYERS) scratch, by relative seat."""
    n, rows, cols = state[E.NUM_PLAYERS], state[E.ROWS], state[E.COLS]
    tally[:] = 0.0
    for s in range(rows * cols):
        code = state[E.BOARD + s]
        if E.is_live(code):
            rel = (E.owner(code) - seat) % n
            tally[T_COUNT, rel] += 1.0
            tally[T_SUM, rel] += E.value_of(code)
            continue
        if code != E.EMPTY:
            continue
        # an empty square: whoever writes a total above the other players' numbers beside it crosses them all
        own_max, opp_max = 0, 0
        tally[T_BESIDE, :] = 0.0
        for t in neighbours(s, rows, cols):
            near = state[E.BOARD + t] if t >= 0 else E.EMPTY
            if not E.is_live(near):
                continue
            rel, value = (E.owner(near) - seat) % n, E.value_of(near)
            tally[T_BESIDE, rel] += 1.0
            if rel == 0:
                own_max = max(own_max, value)
            else:
                opp_max = max(opp_max, value)
        tally[T_EXPOSED, 0] += tally[T_BESIDE, 0] * beat[own_max]
        for rel in range(1, n):
            tally[T_EXPOSED, rel] += tally[T_BESIDE, rel] * beat[opp_max]
    best = 1
    for rel in range(2, n):
        more = tally[T_COUNT, rel] > tally[T_COUNT, best]
        if more or (tally[T_COUNT, rel] == tally[T_COUNT, best] and tally[T_SUM, rel] > tally[T_SUM, best]):
            best = rel
    terms[L_COUNT] = tally[T_COUNT, 0] - tally[T_COUNT, best]
    terms[L_SUM] = tally[T_SUM, 0] - tally[T_SUM, best]
    terms[L_OWN_EXPOSED] = tally[T_EXPOSED, 0]
    terms[L_OPP_EXPOSED] = tally[T_EXPOSED, best]


@njit(cache=True, inline="always")
def _net_value(state, seat, beat, w1, b1, w2, b2, m, features):
    """A learned value: ``tanh(z / 2)`` = 2 P(win) - 1, with z the network's log-odds of winning from the board's
    features (``board_features``): w1 (F, H), b1 (H,), w2 (H,), b2 (1,), one tanh hidden layer."""
    board_features(state, seat, beat, m, features)
    z = b2[0]
    for j in range(w1.shape[1]):
        h = b1[j]
        for i in range(w1.shape[0]):
            h += features[i] * w1[i, j]
        z += np.tanh(h) * w2[j]
    return np.tanh(0.5 * z)


@njit(cache=True)
def _value(state, seat, beat, value, tally):
    """``V`` of the module docstring for ``seat``. ``value``: (end weight, the value table, then a network's four
    arrays, used if it has hidden units: ``_net_value``; one flat tuple, as numba's parallel build takes no nested
    one); ``tally``: scratch (4, MAX_PLAYERS), the terms (NUM_TERMS,) and the features (NUM_FEATURES,)."""
    end_weight, table, w1, b1, w2, b2 = value
    if state[E.PHASE] == E.PHASE_OVER:
        return end_weight * E.final_reward(state, seat)
    counts, terms, features = tally
    m = closest_end(state)
    if w1.shape[1] > 0:
        return _net_value(state, seat, beat, w1, b1, w2, b2, m, features)
    lead_terms(state, seat, beat, counts, terms)
    w = table[m]
    lead = terms[L_COUNT] * w[L_COUNT] + terms[L_SUM] * w[L_SUM] + terms[L_OWN_EXPOSED] * w[L_OWN_EXPOSED]
    return np.tanh((lead + terms[L_OPP_EXPOSED] * w[L_OPP_EXPOSED]) / w[NUM_TERMS])


@njit(cache=True)
def _after(state, seat, action, scratch, beat, value, tally):
    """``V`` after ``seat`` plays the legal ``action`` (on ``scratch``, a copy)."""
    scratch[:] = state
    E.apply_action(scratch, seat, action)
    return _value(scratch, seat, beat, value, tally)


@njit(cache=True)
def _best_settle(state, seat, mask, first, last, scratch, beat, value, tally):
    """(best V, its action) over the legal actions ``first..last-1`` of ``mask`` (-inf, -1 if none is legal)."""
    best, chosen = -np.inf, -1
    for a in range(first, last):
        if mask[a] == 0:
            continue
        v = _after(state, seat, a, scratch, beat, value, tally)
        if v > best:
            best, chosen = v, a
    return best, chosen


@njit(cache=True)
def _throw_again_value(state, seat, faces, keys, scratch, thrown, mask, corners, touched, beat, value, tally):
    """Mean over the sampled throws of the best settling afterstate after throwing again (module docstring)."""
    rows, cols = state[E.ROWS], state[E.COLS]
    squares = rows * cols
    die_size = E.die_size_of(state)
    total = 0.0
    crossed = np.nan
    for i in range(faces.shape[0]):
        thrown[:] = state
        E.apply_action(thrown, seat, 3 * squares)  # throw again: PREVIOUS = this total, a throw is pending
        E.sample_landing(keys[i], die_size, rows, cols, corners)
        E.touched_squares(corners, die_size, rows, cols, touched)
        E.apply_throw(thrown, faces[i], touched)
        phase = thrown[E.PHASE]
        if phase == E.PHASE_CROSS:  # not higher: the same board whatever was thrown, so valued once
            if np.isnan(crossed):
                E.legal_mask(thrown, seat, mask)
                crossed = _best_settle(thrown, seat, mask, 2 * squares, 3 * squares, scratch, beat, value, tally)[0]
            total += crossed
        elif phase == E.PHASE_DECIDE:  # the best write or block
            E.legal_mask(thrown, seat, mask)
            total += _best_settle(thrown, seat, mask, 0, 2 * squares, scratch, beat, value, tally)[0]
        else:  # the turn passed: not higher with nothing to cross off, or only filled squares touched
            total += _value(thrown, seat, beat, value, tally)
    return total / faces.shape[0]


@njit(cache=True)
def _choose_range(states, masks, seats, faces, keys, beat, value, out, first, last):
    """The module docstring's policy for rows ``first..last-1``; -1 for a row with no legal action."""
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    scratch = np.zeros(E.STATE_SIZE, dtype=np.int32)
    thrown = np.zeros(E.STATE_SIZE, dtype=np.int32)
    mask = np.zeros(3 * E.MAX_SQUARES + 1, dtype=np.int8)
    corners = np.zeros((E.NUM_DICE, 2), dtype=np.float64)
    touched = np.zeros(E.MAX_SQUARES, dtype=np.int32)
    tally = (np.zeros((4, E.MAX_PLAYERS)), np.zeros(NUM_TERMS), np.zeros(NUM_FEATURES))
    for b in range(first, last):
        state[:] = states[b]
        state[E.MAX_TURNS] = 0  # the copy planned on: no turn limit (module docstring)
        seat, row = seats[b], masks[b]
        again = 3 * state[E.ROWS] * state[E.COLS]
        # a pending cross-off, or a write / block (throwing again, the last action id, is weighed below)
        best, chosen = _best_settle(state, seat, row, 0, again, scratch, beat, value, tally)
        if row[again] != 0:
            q = _throw_again_value(state, seat, faces[b], keys[b], scratch, thrown, mask, corners, touched, beat,
                                   value, tally)  # fmt: skip
            if chosen < 0 or q > best:
                chosen = again
        out[b] = chosen


@njit(cache=True, parallel=True)
def _choose_parallel(states, masks, seats, faces, keys, beat, value, out, chunks):
    """The rows cut into ``chunks`` ranges, spread over the threads (a row's throws are drawn beforehand, so the
    moves are those of one thread)."""
    n = states.shape[0]
    for c in prange(chunks):
        _choose_range(states, masks, seats, faces, keys, beat, value, out, c * n // chunks, (c + 1) * n // chunks)


@njit(cache=True)
def _board_values(states, beat, value, out):
    """``out[b, seat]``: ``V`` of ``states[b]`` for every seat (``_value``; a finished game: ``end_weight`` times its
    final reward)."""
    tally = (np.zeros((4, E.MAX_PLAYERS)), np.zeros(NUM_TERMS), np.zeros(NUM_FEATURES))
    for b in range(states.shape[0]):
        for seat in range(out.shape[1]):
            out[b, seat] = _value(states[b], seat, beat, value, tally)


# --- Python side ------------------------------------------------------------------------------------------------


def _number(value: object) -> bool:
    """A finite real number (not a bool)."""
    return (
        isinstance(value, int | float | np.integer | np.floating)
        and not isinstance(value, bool)
        and bool(np.isfinite(value))
    )


class YayLookaheadAgent(StatePlanner):
    """Yay! baseline that scores afterstates with the engine and plans throwing again by Monte Carlo (module
    docstring); batched, seeded."""

    name = "yay_lookahead"

    def __init__(
        self,
        samples: int = 32,
        own_risk: float = 0.4,
        opp_risk: float = 0.25,
        sum_weight: float = 0.01,
        end_weight: float = 1.5,
        lead_scale: float = 2.0,
        time_scale: float = 0.5,
        seed: int | None = None,
    ) -> None:
        """``samples``: throws simulated per throw-again decision. The weights and scales: ``V`` of the module
        docstring. ``seed``: the generator of the simulated throws. The game (sheet, players, end rule, die size)
        is read off each state."""
        if isinstance(samples, bool) or not isinstance(samples, int | np.integer) or not 1 <= samples <= 10_000:
            raise ValueError(f"{self.name}: 'samples' must be an integer 1..10000, got {samples!r}")
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
        self.end_weight = float(end_weight)
        m = np.arange(VALUE_ROWS, dtype=np.float64)
        scale = (lead_scale + time_scale * m)[:, None]
        self.table = np.concatenate([np.broadcast_to([1.0, sum_weight, -own_risk, opp_risk], (VALUE_ROWS, 4)), scale],
                                    axis=1)  # fmt: skip
        self.net = NO_NET  # the table values boards; a learned network replaces it (``learned_lookahead``)
        self.samples = int(samples)
        self.rng = np.random.default_rng(seed)
        self.thread_choice = ThreadChoice()  # the rows on numba's threads while that is faster (a busy machine)

    def board_value(self, states: np.ndarray) -> np.ndarray:
        """(k, P): this agent's ``V`` of k engine states for every seat, in the final rewards' units (``V`` stands
        for ``2 P(win) - 1``; a finished game is worth its final reward): the search agent's leaf evaluator,
        ``SearchAgent("yay", evaluator=agent.board_value)``."""
        states = np.ascontiguousarray(states, dtype=np.int32)
        if states.ndim != 2 or states.shape[1] != E.STATE_SIZE:
            raise ValueError(f"{self.name}: board_value takes (k, {E.STATE_SIZE}) Yay! engine states, got shape "
                             f"{states.shape}")  # fmt: skip
        out = np.zeros((states.shape[0], int(states[0, E.NUM_PLAYERS]) if len(states) else 2), dtype=np.float64)
        _board_values(states, BEAT, (1.0, self.table, *self.net), out)
        return out

    def reset(self, seed: int | None = None) -> None:
        """Reseed the generator of the simulated throws (None keeps the current stream)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act_states(self, states: np.ndarray, action_masks: np.ndarray, seats: np.ndarray) -> np.ndarray:
        st, masks, seat = read_states(self.name, states, action_masks, seats)
        batch = st.shape[0]
        faces = self.rng.integers(0, E.NUM_FACES, size=(batch, self.samples, E.NUM_DICE))
        keys = self.rng.integers(0, LANDING_KEYS, size=(batch, self.samples))
        out = np.empty(batch, dtype=np.int64)
        threads = numba.get_num_threads()
        args = (st, masks, seat, faces, keys, BEAT, (self.end_weight, self.table, *self.net), out)
        if batch >= PARALLEL_ROWS and threads > 1:
            self.thread_choice.run(batch, lambda: _choose_range(*args, 0, batch),
                                   lambda: _choose_parallel(*args, 4 * threads))  # fmt: skip
        else:
            _choose_range(*args, 0, batch)
        return out
