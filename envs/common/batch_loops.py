"""The batched engine's loops, written once for every contract game (``dicearena.envs.common.contract``).

Why: B games stepped per compiled call is where the suite's speed comes from, and the loop around the engine
(check every action first, apply, record and restart ended games, resolve chance, observe) is the same for
every game. These functions are ``inline="always"`` and take the engine's functions as arguments; each game
gets them compiled in a module generated from its engine (``dicearena.envs.common.kernels``), whose
``@njit(cache=True)``
kernels pass its own engine functions in (a closure factory or a cached function taking functions as arguments
misses numba's on-disk cache).

Games ``lo..hi-1``: every loop works on a range of games, and games are independent (each draws its chance words
from its own keyed stream, ``dicearena.envs.common.streams``), so the kernels' drivers (``drive_step``, ``drive_start``)
split the batch into chunks and, compiled with ``parallel=True``, run the chunks on numba's threads: the same
results for any number of chunks. The range kernels are compiled once and called by both drivers, and each
driver is small, so a parallel build costs little compile time.

``done`` codes are the contract's status: 0 playing, ``TERMINATED``, ``TRUNCATED``.

Shaping: a game whose engine has ``shaping_potentials(state, out)`` (each seat's potential, 0 in a new game and
whenever its config does not shape) passes it as ``potentials``: every action and chance event pays the change
of potential, and the end the final reward minus the potential before it, so each seat's return is still its
final reward (``rewards.pay_shaping``: the settlement, written once for every face). A game without passes
``no_potentials``. ``pot`` (B, 2, P) float64, ``words`` (B, W) and ``outcome`` (B, O) are scratch with a row per game.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .rewards import pay_shaping
from .rows import row
from .streams import draw_words

__all__ = [
    "ILLEGAL", "act_joint_range", "act_one", "act_range", "chance_one", "check_joint_range", "check_range",
    "drive_start", "drive_step", "encode_game", "encode_joint_all_game", "encode_joint_game", "encode_range",
    "no_potentials", "no_scratch", "observe_one", "record_one", "settle_range", "start_range",
]  # fmt: skip

ILLEGAL = -3  # act_one: the action was not legal (the state is unchanged)


@njit(inline="always")
def no_potentials(state, out):
    """The ``potentials`` of a game that never shapes its rewards (``pot`` stays all zero)."""


@njit(inline="always")
def no_scratch(state):
    """The encoder work space of a game that needs none."""
    return np.zeros(1, dtype=np.int64)


@njit(inline="always")
def _finish(states, b, head, out_rewards, done, final_rewards, final_obs, final_states, status, rewards, observe,
            init_state, pay=True):  # fmt: skip
    """Game ``b`` ended (at an action or a chance event): record rewards (paid into ``out_rewards`` unless they
    came as step rewards), status, every seat's terminal observation and the terminal state, then restart it."""
    state = row(states, b)
    done[b] = status(state)
    rewards(state, row(final_rewards, b))
    for s in range(out_rewards.shape[1]):
        if pay:
            out_rewards[b, s] += final_rewards[b, s]
        observe(state, s, row(row(final_obs, b), s))
    final_states[b, :] = state
    init_state(state, head)


@njit(inline="always")
def _clear(b, out_rewards, done):
    for s in range(out_rewards.shape[1]):
        out_rewards[b, s] = 0.0
    done[b] = 0


@njit(inline="always")
def start_range(states, lo, hi, head, out_rewards, done, init_state):
    """Start games ``lo..hi-1`` (their chance comes next: ``settle_range``)."""
    for b in range(lo, hi):
        init_state(row(states, b), head)
        _clear(b, out_rewards, done)


# --- actions


@njit(inline="always")
def check_range(states, actions, active, lo, hi, to_act, is_legal):
    """0 if every active game of the range may play its action, else ``-(b + 1)`` for the first that may not."""
    for b in range(lo, hi):
        if active[b]:
            state = row(states, b)
            seat = to_act(state)
            if seat < 0 or not is_legal(state, seat, actions[b]):
                return -(b + 1)
    return 0


@njit(inline="always")
def act_range(states, actions, active, lo, hi, head, out_rewards, done, final_rewards, final_obs, final_states, pot,
              to_act, apply_action, status, rewards, observe, init_state, potentials):  # fmt: skip
    """One action per active game of the range (checked before; the others wait): applied, an end recorded and
    the game restarted, shaping paid."""
    for b in range(lo, hi):
        _clear(b, out_rewards, done)
        if not active[b]:
            continue
        state = row(states, b)
        game_pot = row(pot, b)
        potentials(state, row(game_pot, 0))
        apply_action(state, to_act(state), actions[b])
        ended = status(state) != 0
        if ended:
            _finish(states, b, head, out_rewards, done, final_rewards, final_obs, final_states, status, rewards,
                    observe, init_state)  # fmt: skip
        pay_shaping(state, ended, row(game_pot, 0), row(game_pot, 1), row(out_rewards, b), potentials)


@njit(inline="always")
def check_joint_range(states, actions, active, lo, hi, seats, acting, is_legal):
    """A simultaneous game's ``check_range``: ``actions[b, s]`` for every seat ``acting`` marks (written into
    ``seats`` (B, P), the acting buffer); ``-(b * P + s + 1)`` for the first illegal entry."""
    num_players = actions.shape[1]
    for b in range(lo, hi):
        if active[b]:
            state = row(states, b)
            acting(state, row(seats, b))
            for s in range(num_players):
                if seats[b, s] and not is_legal(state, s, actions[b, s]):
                    return -(b * num_players + s + 1)
    return 0


@njit(inline="always")
def act_joint_range(states, actions, active, lo, hi, head, out_rewards, done, final_rewards, final_obs, final_states,
                    seats, acting, apply_action, status, rewards, step_rewards, observe, init_state):  # fmt: skip
    """A simultaneous game's round in every active game of the range (checked before): the deciding seats'
    choices, the round's step rewards if it resolved, an end recorded and restarted (its rewards came as step
    rewards). ``seats`` (B, P) int8 is scratch."""
    for b in range(lo, hi):
        _clear(b, out_rewards, done)
        if not active[b]:
            continue
        state = row(states, b)
        acting(state, row(seats, b))
        resolved = 0
        for s in range(actions.shape[1]):
            if seats[b, s]:
                resolved = apply_action(state, s, actions[b, s])
        if resolved:
            step_rewards(state, row(out_rewards, b))
        if status(state) != 0:
            _finish(states, b, head, out_rewards, done, final_rewards, final_obs, final_states, status, rewards,
                    observe, init_state, False)  # fmt: skip


# --- chance and observations


@njit(inline="always")
def settle_range(states, lo, hi, words, outcome, streams, hold, head, out_rewards, done, final_rewards, final_obs,
                 final_states, pot, obs, masks, seats, scratch, draw_outcome, apply_outcome, status, rewards, observe,
                 init_state, chance_words, potentials, encode_one):  # fmt: skip
    """Each game's chance events from its own stream until it waits for a decision, then its observation
    (``encode_one``); with ``hold`` (B = 1) a game that ended is left at its restart's first chance event, for
    ``reset()``, and not observed."""
    for b in range(lo, hi):
        state = row(states, b)
        game_pot = row(pot, b)
        while chance_words(state) > 0 and not (hold and done[b] != 0):
            draw_words(streams, b, row(words, b))
            draw_outcome(state, row(words, b), row(outcome, b))
            potentials(state, row(game_pot, 0))
            apply_outcome(state, row(outcome, b))
            ended = status(state) != 0
            if ended and done[b] != 0:  # its restart ended too, before any decision: one end per step, so this
                init_state(state, head)  # one is dealt again, unreported and unpaid (as a seat env skips a game)
                continue
            if ended:
                _finish(states, b, head, out_rewards, done, final_rewards, final_obs, final_states, status, rewards,
                        observe, init_state)  # fmt: skip
            pay_shaping(state, ended, row(game_pot, 0), row(game_pot, 1), row(out_rewards, b), potentials)
        if not (hold and done[b] != 0):
            encode_one(state, b, row(obs, b), row(masks, b), seats, scratch)


@njit(inline="always")
def encode_range(states, lo, hi, obs, masks, seats, scratch, encode_one):
    """Every game's observation of the range (what ``settle_range`` ends with)."""
    for b in range(lo, hi):
        encode_one(row(states, b), b, row(obs, b), row(masks, b), seats, scratch)


@njit(inline="always")
def encode_game(state, b, obs, masks, seats, scratch, to_act, observe, legal_mask):
    """A sequential game's seat to move, its observation from that seat, and that seat's legal mask.

    The encoders take game ``b``'s rows of the state, observation and mask buffers (``row`` views), not the
    buffers: bound to a whole buffer, an inlined encoder cost an atomic increment and decrement of that buffer's
    reference count per game, which numba's pruning left in ``settle_range`` (found with gdb on ``NRT_incref``)."""
    seat = to_act(state)
    seats[b] = seat
    observe(state, seat, obs)
    legal_mask(state, seat, masks)


@njit(inline="always")
def encode_joint_game(state, b, obs, masks, seats, scratch, acting, observe, legal_mask):
    """A simultaneous game's observation from every seat (``obs``: game b's (P, D) row), the legal masks ((P, A)) of
    the seats that must decide (others all zero) and who they are (``seats`` (B, P) int8)."""
    acting(state, row(seats, b))
    for s in range(obs.shape[0]):
        observe(state, s, row(obs, s))
        if seats[b, s]:
            legal_mask(state, s, row(masks, s))
        else:
            masks[s, :] = 0


@njit(inline="always")
def encode_joint_all_game(state, b, obs, masks, seats, scratch, acting, observe_all, legal_mask):
    """``encode_joint_game`` with every seat observed in one ``observe_all(state, obs[b], scratch)`` call, the
    engine hook for games whose seats' views share work (Extra!: 1.8x faster than ``observe`` seat by seat, measured
    with 2 players); ``scratch`` is ``observe_scratch`` of any game of the batch (they share a config), made once
    per range."""
    acting(state, row(seats, b))
    observe_all(state, obs, scratch)
    for s in range(obs.shape[0]):
        legal_mask(state, s, row(masks, s))  # the engine's mask is all zero for a seat that does not decide


# --- drivers: the batch in ``chunks`` ranges (``codes.shape[0]``), parallel when compiled with ``parallel=True``


@njit(inline="always")
def _bounds(c, chunks, n):
    return c * n // chunks, (c + 1) * n // chunks


@njit(inline="always")
def drive_step(states, actions, active, head, out_rewards, done, final_rewards, final_obs, final_states, pot, words,
               outcome, streams, hold, obs, masks, seats, codes, scratch_base, check, act, settle):  # fmt: skip
    """Check every chunk's actions, then (all legal) act and settle every chunk: 0, or the first illegal action's
    code (then nothing changed). ``codes`` (chunks,) int64 is scratch; ``check``/``act``/``settle``: the kernels
    of one range; ``scratch_base(states)``: the encoder's work space, made once and copied for each chunk."""
    chunks, n = codes.shape[0], states.shape[0]
    base = scratch_base(states)
    scratch = np.empty((chunks, base.shape[0]), dtype=base.dtype)
    for c in prange(chunks):
        lo, hi = _bounds(c, chunks, n)
        codes[c] = check(states, actions, active, lo, hi, seats)
    for c in range(chunks):
        if codes[c] != 0:
            return codes[c]
    for c in prange(chunks):
        lo, hi = _bounds(c, chunks, n)
        act(states, actions, active, lo, hi, head, out_rewards, done, final_rewards, final_obs, final_states, pot,
            seats)  # fmt: skip
        scratch[c, :] = base
        settle(states, lo, hi, words, outcome, streams, hold, head, out_rewards, done, final_rewards, final_obs,
               final_states, pot, obs, masks, seats, row(scratch, c))  # fmt: skip
    return 0


@njit(inline="always")
def drive_start(states, head, out_rewards, done, final_rewards, final_obs, final_states, pot, words, outcome, streams,
                obs, masks, seats, codes, scratch_base, start, settle):  # fmt: skip
    """Start every game, resolve its chance and observe it, chunk by chunk (``codes``, ``scratch_base``: as
    ``drive_step``'s)."""
    chunks, n = codes.shape[0], states.shape[0]
    for c in prange(chunks):
        lo, hi = _bounds(c, chunks, n)
        start(states, lo, hi, head, out_rewards, done)
    base = scratch_base(states)  # of a started game (before, the states may be all zero)
    scratch = np.empty((chunks, base.shape[0]), dtype=base.dtype)
    for c in prange(chunks):
        lo, hi = _bounds(c, chunks, n)
        scratch[c, :] = base
        settle(states, lo, hi, words, outcome, streams, False, head, out_rewards, done, final_rewards, final_obs,
               final_states, pot, obs, masks, seats, row(scratch, c))  # fmt: skip


# --- one game (the AEC and Parallel envs)


@njit(inline="always")
def act_one(state, seat, action, is_legal, apply_action, to_act):
    """One game's move (the AEC env's step in one compiled call): ``ILLEGAL`` and nothing changed, or the
    ``to_act`` after it."""
    if not is_legal(state, seat, action):
        return ILLEGAL
    apply_action(state, seat, action)
    return to_act(state)


@njit(inline="always")
def record_one(state, seat, action, is_legal, apply_action):
    """A simultaneous game's choice for one seat (the AEC env's step): ``ILLEGAL`` and nothing changed, else 1 if
    it resolved the round, 0 if other seats still decide."""
    if not is_legal(state, seat, action):
        return ILLEGAL
    return apply_action(state, seat, action)


@njit(inline="always")
def observe_one(state, seat, obs, mask, to_act, observe, legal_mask):
    """``seat``'s observation, and its legal mask if it is to act (else all zero), in one compiled call."""
    observe(state, seat, obs)
    if to_act(state) == seat:
        legal_mask(state, seat, mask)
    else:
        mask[:] = 0


@njit(inline="always")
def chance_one(state, outcome, apply_outcome, to_act):
    """One game's chance outcome applied; the ``to_act`` after it."""
    apply_outcome(state, outcome)
    return to_act(state)
