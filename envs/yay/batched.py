"""The batched face of Yay!: B games stepped at once by numba loops over the engine.

Why: evaluation and fast training need millions of decisions per second, which a per-game Python env cannot
give. The loops call the same engine functions as the AEC env, game by game, so there is one copy of the rules.

Chance stream: one NumPy generator; every *chance round* draws ``rng.integers(0, 6, size=(n, 3))`` faces and
``rng.integers(0, LANDING_KEYS, size=n)`` landing keys for the ``n`` games at a chance node, in game order. With
B = 1 that is exactly ``SeededThrows``' stream, so a 1-game batch replays the AEC env with the same seed and actions.
A game that ends inside a round (its turn ended by a throw at ``max_turns``) restarts there and makes its start
rolls in the next rounds, as the AEC env's next ``reset`` draws them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from envs.common.batching import MAX_BATCH, BatchedFace, check_num_envs
from envs.common.config import validate_config

from . import engine as E
from .chance import LANDING_KEYS
from .config import YayConfig

__all__ = ["BatchedYay", "MAX_BATCH", "YayBatchCore"]

DONE_NO = 0
DONE_TERMINATED = 1
DONE_TRUNCATED = 2


# --- The numba loops (the engine does all the rules) -----------------------------------------------


@njit(cache=True)
def _start_all(states, num_players, rows, cols, end_mode, max_turns, die_bits):
    """Start every game; return how many are at a chance node (all of them: the start rolls)."""
    for b in range(states.shape[0]):
        E.start_game(states[b], num_players, rows, cols, end_mode, max_turns, die_bits)
    return states.shape[0]


@njit(cache=True, inline="always")
def _record_end(states, b, lead, num_players, rows, cols, end_mode, max_turns, die_bits, out_rewards, done,
                final_obs, final_states):  # fmt: skip
    """Game ``b`` just ended (at an action or inside a chance round): record it and restart it.

    Records the ``done`` code, every seat's final reward minus ``lead[seat]`` (with shaping the seat's current
    potential, so that its shaped return is still the final reward; else 0), the terminal observation from every
    seat and the terminal state. One place for both ends, so an end inside chance is recorded exactly like one at
    an action."""
    state = states[b]
    done[b] = DONE_TRUNCATED if state[E.TRUNCATED] else DONE_TERMINATED
    for s in range(num_players):
        out_rewards[b, s] += E.final_reward(state, s) - lead[s]
        E.encode_observation(state, s, final_obs[b, s])
    for k in range(state.shape[0]):
        final_states[b, k] = state[k]
    E.start_game(state, num_players, rows, cols, end_mode, max_turns, die_bits)


@njit(cache=True)
def _act(states, actions, active, num_players, rows, cols, end_mode, max_turns, die_bits, shaping, out_rewards,
         done, final_obs, final_states):  # fmt: skip
    """Apply one action per game with ``active[b]`` (the others wait), or none at all if any is illegal (return
    -(b+1) for the first bad b). Rewards: every seat's final reward when the game ends, and with ``shaping`` every
    seat's change of ``potentials`` (the last step: final reward - potential). Ended games are recorded and
    restarted (``_record_end``). Return how many games are now at a chance node."""
    n = states.shape[0]
    for b in range(n):
        if active[b] and not E.is_legal(states[b], states[b, E.CURRENT], actions[b]):
            return -(b + 1)
    before = np.zeros(E.MAX_PLAYERS)
    after = np.zeros(E.MAX_PLAYERS)
    needy = 0
    for b in range(n):
        state = states[b]
        for s in range(num_players):
            out_rewards[b, s] = 0.0
        done[b] = DONE_NO
        if not active[b]:
            continue  # waits at its decision node
        if shaping:
            E.potentials(state, before)
        E.apply_action(state, state[E.CURRENT], actions[b])
        if state[E.PHASE] == E.PHASE_OVER:
            _record_end(states, b, before, num_players, rows, cols, end_mode, max_turns, die_bits, out_rewards,
                        done, final_obs, final_states)  # fmt: skip
        elif shaping:
            E.potentials(state, after)
            for s in range(num_players):
                out_rewards[b, s] = after[s] - before[s]
        needy += E.dice_needed(state) > 0
    return needy


@njit(cache=True)
def _chance_round(states, faces, keys, die_size, corners, touched, num_players, rows, cols, end_mode, max_turns,
                  die_bits, shaping, out_rewards, done, final_obs, final_states):  # fmt: skip
    """Give row j of ``faces`` and ``keys[j]`` to the j-th game at a chance node; return how many still are.

    A throw can end a game (a turn ended by rule 9 or rule 5 reaches ``max_turns``): it is recorded like an end at
    an action, paying on top of this step's rewards, and restarted, so it needs start rolls in the next round."""
    lead = np.zeros(E.MAX_PLAYERS)  # stays 0 without shaping
    j = 0
    needy = 0
    for b in range(states.shape[0]):
        state = states[b]
        if E.dice_needed(state) == 0:
            continue
        if E.needs_landing(state):
            E.sample_landing(keys[j], die_size, rows, cols, corners)
            E.touched_squares(corners, die_size, rows, cols, touched)
            E.apply_throw(state, faces[j], touched)
            if state[E.PHASE] == E.PHASE_OVER:
                if shaping:
                    E.potentials(state, lead)
                _record_end(states, b, lead, num_players, rows, cols, end_mode, max_turns, die_bits, out_rewards,
                            done, final_obs, final_states)  # fmt: skip
        else:
            E.apply_start_roll(state, faces[j])
        j += 1
        needy += E.dice_needed(state) > 0
    return needy


@njit(cache=True)
def _encode(states, obs, masks):
    """Observation of the player to move and its legal-action mask, every game."""
    for b in range(states.shape[0]):
        seat = states[b, E.CURRENT]
        E.encode_observation(states[b], seat, obs[b])
        E.legal_mask(states[b], seat, masks[b])


@njit(cache=True)
def _standings(states, num_players, out):
    for b in range(states.shape[0]):
        for s in range(num_players):
            out[b, s, 0] = E.own_live_count(states[b], s)
            out[b, s, 1] = E.own_live_sum(states[b], s)


@njit(cache=True)
def _outcomes(states, num_players, out):
    for b in range(states.shape[0]):
        for s in range(num_players):
            out[b, s] = E.final_reward(states[b], s)


# --- The Python side -------------------------------------------------------------------------------


class YayBatchCore:
    """Buffers, the chance stream and input checks around the loops (used by ``BatchedYay`` and the seat
    vec env)."""

    def __init__(self, num_envs: int, config: YayConfig, seed: int | None = None) -> None:
        self.num_envs = n = check_num_envs(num_envs)
        self.config = config
        self.num_players = p = config.num_players
        self._args = config.engine_args()
        self.obs_dim = E.observation_size(p, config.rows, config.cols)
        self.num_actions = E.num_actions(config.rows, config.cols)
        self.rng: Any = np.random.default_rng(seed)
        self.states = np.zeros((n, E.STATE_SIZE), dtype=np.int32)
        self.obs = np.zeros((n, self.obs_dim), dtype=np.float32)
        self.masks = np.zeros((n, self.num_actions), dtype=np.int8)
        self.rewards = np.zeros((n, p), dtype=np.float32)
        self.done = np.zeros(n, dtype=np.int8)
        self.final_obs = np.zeros((n, p, self.obs_dim), dtype=np.float32)
        self.final_states = np.zeros((n, E.STATE_SIZE), dtype=np.int32)
        self._corners = np.zeros((E.NUM_DICE, 2), dtype=np.float64)
        self._touched = np.zeros(config.rows * config.cols, dtype=np.int32)
        self._all = np.ones(n, dtype=np.bool_)
        self.started = False

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed(seed)
        self._roll(_start_all(self.states, *self._args))
        self.done[:] = DONE_NO
        self.rewards[:] = 0.0
        self.started = True

    def step(self, actions: Any, active: np.ndarray | None = None) -> np.ndarray:
        """Apply ``actions`` (one per game, by its player to move) where ``active`` (bool (N,), default all; the
        others wait and their action is ignored); return the indices of games that ended (and restarted)."""
        if not self.started:
            raise RuntimeError("Yay! batched engine: call reset() before step()")
        actions = self._check_actions(actions)
        active = self._all if active is None else active
        needy = _act(
            self.states, actions, active, *self._args, self.config.shaping, self.rewards, self.done, self.final_obs,
            self.final_states,
        )  # fmt: skip
        if needy < 0:
            b = -needy - 1
            raise ValueError(
                f"Yay! game {b}, player_{int(self.states[b, E.CURRENT])}: action {int(actions[b])} is illegal; "
                f"legal actions: {np.flatnonzero(self.masks[b]).tolist()}"
            )
        self._roll(needy)
        return np.flatnonzero(self.done)

    def _check_actions(self, actions: Any) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"Yay! batched engine: actions must have shape ({self.num_envs},) (one per game), "
                             f"got {a.shape}")  # fmt: skip
        if not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"Yay! batched engine: actions must be integers in 0..{self.num_actions - 1}, got "
                            f"dtype {a.dtype}")  # fmt: skip
        return np.ascontiguousarray(a, dtype=np.int64)

    def _roll(self, needy: int) -> None:
        """Chance rounds until every game is at a decision node, then observe them all (a game that ends inside a
        round is recorded and restarted there, and rolls its start in the next round)."""
        cfg = self.config
        while needy:
            faces = self.rng.integers(0, E.NUM_FACES, size=(needy, E.NUM_DICE))
            keys = self.rng.integers(0, LANDING_KEYS, size=needy)
            needy = _chance_round(
                self.states, faces, keys, cfg.die_size, self._corners, self._touched, *self._args, cfg.shaping,
                self.rewards, self.done, self.final_obs, self.final_states,
            )  # fmt: skip
        _encode(self.states, self.obs, self.masks)


def final_standings(states: np.ndarray, num_players: int) -> np.ndarray:
    """(k, P, 2): uncrossed numbers and their sum per seat of k engine states."""
    out = np.zeros((states.shape[0], num_players, 2), dtype=np.int64)
    _standings(np.ascontiguousarray(states, dtype=np.int32), num_players, out)
    return out


def final_outcomes(states: np.ndarray, num_players: int) -> np.ndarray:
    """(k, P): the engine's final reward per seat of k ended games (+1 a winner, a shared win included; -1 a loser;
    0 after truncation), whatever reward shaping paid on the way."""
    out = np.zeros((states.shape[0], num_players), dtype=np.float64)
    _outcomes(np.ascontiguousarray(states, dtype=np.int32), num_players, out)
    return out


class BatchedYay(BatchedFace):
    """B games of Yay!, each observed by its player to move; finished games restart at once.

    ``reset(seed)`` -> ``(obs (B, D) float32, masks (B, A) int8, info)``; ``step(actions (B,))`` -> ``(obs, masks,
    rewards (B, P) float32 per seat, terminated (B,), truncated (B,), info)``. ``info["current_player"]``: each
    game's seat to move. For games that ended this step: ``info["ended"]`` (their indices),
    ``info["final_observation"]`` (k, P, D, from every seat), ``info["final_standings"]`` (k, P, 2: uncrossed
    numbers and their sum), ``info["final_state"]`` (k, STATE_SIZE); the returned obs/masks are already those of
    the restarted games. ``copy=False`` returns the internal buffers (overwritten by the next step).
    """

    def __init__(
        self,
        num_envs: int,
        config: YayConfig | dict[str, Any] | None = None,
        seed: int | None = None,
        copy: bool = True,
        **config_overrides: Any,
    ) -> None:
        self.config = validate_config(YayConfig, config, **config_overrides)
        self._core = YayBatchCore(num_envs, self.config, seed)
        self.num_envs = self._core.num_envs
        self.num_players = self.config.num_players
        self.observation_size = self._core.obs_dim
        self.num_actions = self._core.num_actions
        self.copy = copy

    @property
    def current_player(self) -> np.ndarray:
        return self._core.states[:, E.CURRENT].copy()

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """Start all B games; ``seed`` reseeds the chance stream (later resets and restarts continue it)."""
        self._core.reset(seed)
        return self._out(self._core.obs), self._out(self._core.masks), {"current_player": self.current_player}

    def step(
        self, actions: Any, active: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One decision in every game, or only where ``active`` (bool (B,); the others wait, their actions ignored)."""
        core = self._core
        ended = core.step(actions, active)
        final = core.final_states[ended]
        info = {
            "current_player": self.current_player,
            "ended": ended,
            "final_observation": core.final_obs[ended],
            "final_standings": final_standings(final, self.num_players),
            "final_state": final,
        }
        terminated = core.done == DONE_TERMINATED
        truncated = core.done == DONE_TRUNCATED
        return self._out(core.obs), self._out(core.masks), self._out(core.rewards), terminated, truncated, info

    def legal_actions(self, game: int) -> list[int]:
        return np.flatnonzero(self._core.masks[game]).tolist()
