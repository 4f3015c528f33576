"""The batched face of Extra!: B games stepped at once by numba loops over the engine.

Why: evaluation and fast training need millions of decisions per second, which a per-game Python env cannot
give. The loops call the same engine functions as the PettingZoo faces, game by game, so there is one copy
of the rules. Every seat that must decide on a throw decides in the same ``step`` (the game is simultaneous):
``actions`` is (B, P), the entries of seats that do not act (finished) are ignored (conventionally -1).

Chance stream: one NumPy generator; each *chance round* draws ``rng.integers(0, 6, size=(n, 5))`` for the
``n`` games that need a throw, in game order. With B = 1 that is exactly ``SeededDice(faces=6, block=5)``'s
stream, so a 1-game batch replays the Parallel env with the same seed and actions.

It also drives the solitaire vec env (``solitaire_task.py``): there P = 1 and reward = score.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from envs.common.batching import MAX_BATCH, BatchedFace, check_num_envs
from envs.common.config import validate_config

from . import engine as E
from .config import ExtraConfig

__all__ = ["BatchedExtra", "MAX_BATCH"]

_NO_FACES = np.zeros((0, E.NUM_DICE), dtype=np.int64)


# --- The numba loops (a handful of compiled functions; the engine does all the rules) ----------------


@njit(cache=True)
def _start_all(states, head):
    """Start every game; return how many need a throw."""
    needy = 0
    for b in range(states.shape[0]):
        E.init_state(states[b], head)
        needy += E.dice_needed(states[b]) > 0
    return needy


@njit(cache=True)
def _first_illegal(states, actions, active):
    """-1 if every seat that must act in an active game has a legal action, else b * P + seat of the first that
    has not."""
    num_players = actions.shape[1]
    for b in range(states.shape[0]):
        for s in range(num_players):
            if active[b] & E.must_act(states[b], s) & ~E.is_legal(states[b], s, actions[b, s]):
                return b * num_players + s
    return -1


@njit(cache=True)
def _act(states, actions, active, mode, shaping, head, out_rewards, finished, done, final_obs, final_states):
    """Play one round in every game with ``active[b]`` (the others wait; all actions checked by ``_first_illegal``).

    ``finished[b, s]``: seat s checked a last EXTRA box this round; ``done[b]``: the game ended. Ended games
    are recorded (terminal observation from every seat, terminal state) and restarted. Return how many games
    need a throw. Element loops, not slice assignments: a slice is an array view, whose set-up costs more than
    the few stores it replaces.
    """
    num_players = actions.shape[1]
    needy = 0
    scratch = E.new_scratch(states[0])  # every game has the same sheet
    for b in range(states.shape[0]):
        state = states[b]
        done[b] = 0
        for s in range(num_players):
            out_rewards[b, s] = 0.0
            finished[b, s] = False
        if not active[b]:
            continue  # waits at its decision node: nothing happens, no throw needed
        for s in range(num_players):
            if E.must_act(state, s):
                E.apply_action(state, s, actions[b, s])
        for s in range(num_players):
            base = E.PLAYERS + s * E.PLAYER_SIZE
            if (state[base + E.P_DONE] == 1) & (state[base + E.P_FINISH_ROUND] == state[E.ROUND]):
                finished[b, s] = True
                if (mode == E.REWARD_SCORE) & (shaping == 0):
                    out_rewards[b, s] = E.final_reward(state, s, mode)
            if (mode == E.REWARD_SCORE) & (shaping != 0):
                out_rewards[b, s] = E.shaped_reward(state, s)  # 0 for a seat that did not play this round
        if state[E.PHASE] == E.PHASE_OVER:
            done[b] = 1
            if mode == E.REWARD_WIN:
                E.final_rewards(state, mode, out_rewards[b])
            E.encode_observations(state, final_obs[b], scratch)
            for k in range(state.shape[0]):
                final_states[b, k] = state[k]
            E.init_state(state, head)
        needy += E.dice_needed(state) > 0
    return needy


@njit(cache=True)
def _chance_round(states, faces, obs, masks):
    """Give row j of ``faces`` to the j-th game needing a throw and observe (obs, mask of every seat) each game
    now at a decision or terminal node; return how many still need a throw. One pass: the states are read
    once per step, not once per stage."""
    j = 0
    needy = 0
    scratch = E.new_scratch(states[0])  # every game has the same sheet
    for b in range(states.shape[0]):
        state = states[b]
        if E.dice_needed(state) > 0:
            E.apply_chance(state, faces[j])
            j += 1
            if E.dice_needed(state) > 0:
                needy += 1
                continue
        E.encode_observations(state, obs[b], scratch)
        seat_masks = masks[b]
        for s in range(masks.shape[1]):
            E.legal_mask(state, s, seat_masks[s])
    return needy


@njit(cache=True)
def _scores(states, out):
    for k in range(states.shape[0]):
        for s in range(out.shape[1]):
            out[k, s] = E.score(states[k], s)


@njit(cache=True)
def _winners(states, out):
    for k in range(states.shape[0]):
        for s in range(out.shape[1]):
            out[k, s] = E.wins(states[k], s)


# --- The Python side ---------------------------------------------------------------------------------


class ExtraBatchCore:
    """Buffers, the chance stream and input checks around the loops; shared by ``BatchedExtra`` and the
    solitaire vec env."""

    def __init__(self, num_envs: int, config: ExtraConfig, seed: int | None = None, fresh_obs: bool = False) -> None:
        self.num_envs = n = check_num_envs(num_envs)
        self.config = config
        self.num_players = p = config.num_players
        self.obs_dim = E.observation_size(p)
        self._header = E.header(config)
        self.mode = config.reward_mode
        self.shaping = int(config.shaping)
        self.rng: Any = np.random.default_rng(seed)
        self.states = np.zeros((n, E.STATE_SIZE), dtype=np.int32)
        self.obs = np.zeros((n, p, self.obs_dim), dtype=np.float32)
        self.masks = np.zeros((n, p, E.NUM_ACTIONS), dtype=np.int8)
        self.rewards = np.zeros((n, p), dtype=np.float32)
        self.finished = np.zeros((n, p), dtype=np.bool_)
        self.done = np.zeros(n, dtype=np.int8)
        self.final_obs = np.zeros((n, p, self.obs_dim), dtype=np.float32)
        self.final_states = np.zeros((n, E.STATE_SIZE), dtype=np.int32)
        self.fresh_obs = fresh_obs
        self._all = np.ones(n, dtype=np.bool_)
        self.started = False

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        needy = _start_all(self.states, self._header)
        self._roll(needy)
        self.done[:] = 0
        self.rewards[:] = 0.0
        self.finished[:] = False
        self.started = True

    def step(self, actions: Any, active: np.ndarray | None = None) -> np.ndarray:
        """Play one round in every game where ``active`` (bool (N,), default all; the others wait and their actions
        are ignored); return the indices of games that ended (and restarted)."""
        if not self.started:
            raise RuntimeError("Extra! batched engine: call reset() before step()")
        actions = self._check_actions(actions)
        active = self._all if active is None else active
        bad = _first_illegal(self.states, actions, active)
        if bad >= 0:
            b, s = divmod(int(bad), self.num_players)
            legal = np.flatnonzero(self.masks[b, s]).tolist()
            raise ValueError(
                f"Extra! game {b}, seat player_{s}: action {int(actions[b, s])} is illegal; legal actions: {legal}"
            )
        needy = _act(
            self.states, actions, active, self.mode, self.shaping, self._header, self.rewards, self.finished, self.done,
            self.final_obs, self.final_states,
        )  # fmt: skip
        self._roll(needy)
        return np.flatnonzero(self.done)

    def _check_actions(self, actions: Any) -> np.ndarray:
        a = np.asarray(actions)
        shape = (self.num_envs, self.num_players)
        if self.num_players == 1 and a.shape == (self.num_envs,):
            a = a[:, None]
        if a.shape != shape:
            raise ValueError(
                f"Extra! batched engine: actions must have shape {shape} (one per game and seat; -1 for seats "
                f"that do not act), got {a.shape}"
            )
        if not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"Extra! batched engine: actions must be integers in 0..44, got dtype {a.dtype}")
        return np.ascontiguousarray(a, dtype=np.int64)

    def _roll(self, needy: int) -> None:
        """Chance rounds until every game is at a decision node, observing every seat of each game reached.

        With ``fresh_obs`` the observations go into a new array (the caller may keep it), not a buffer to copy.
        """
        if self.fresh_obs:
            self.obs = np.empty_like(self.obs)
        while True:
            faces = self.rng.integers(0, E.NUM_FACES, size=(needy, E.NUM_DICE)) if needy else _NO_FACES
            needy = _chance_round(self.states, faces, self.obs, self.masks)
            if not needy:
                return


class BatchedExtra(BatchedFace):
    """B games of Extra!, every seat observed; every seat that must decide does so in the same step.

    ``reset(seed)`` -> ``(obs (B, P, D) float32, masks (B, P, 45) int8, info)``, seat s's view in ``obs[:, s]``
    (the engine's observation, own sheet first). ``step(actions (B, P))`` -> ``(obs, masks, rewards (B, P)
    float32, terminated (B, P) bool, truncated (B, P) bool, info)``. A seat's mask is all zero when it does not
    act (finished); its action is ignored. ``terminated[b, s]``: seat s finished in this step (as the Parallel
    env reports it); rewards follow the Parallel env (``"score"``: score / 100 to a seat when it finishes, or with
    ``shaping`` each round's score change / 100; ``"win"``: +-1 to every seat when the game ends). Games that ended
    are restarted at once: ``info["ended"]`` holds their indices, ``info["final_observation"]`` (k, P, D),
    ``info["final_scores"]`` (k, P), ``info["final_state"]`` (k, STATE_SIZE); the returned obs/masks are those of
    the new games. ``truncated`` is always False (every game ends). ``copy=False`` returns internal buffers
    (overwritten by the next step).
    """

    def __init__(
        self,
        num_envs: int,
        config: ExtraConfig | dict[str, Any] | None = None,
        seed: int | None = None,
        copy: bool = True,
        **config_overrides: Any,
    ) -> None:
        self.config = validate_config(ExtraConfig, config, **config_overrides)
        self._core = ExtraBatchCore(num_envs, self.config, seed, fresh_obs=copy)
        self.num_envs = self._core.num_envs
        self.num_players = self.config.num_players
        self.observation_size = self._core.obs_dim
        self.num_actions = E.NUM_ACTIONS
        self.copy = copy

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """Start all B games; ``seed`` reseeds the chance stream (later resets and restarts continue it)."""
        self._core.reset(seed)
        return self._core.obs, self._out(self._core.masks), {}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        core = self._core
        ended = core.step(actions)
        final = core.final_states[ended]
        info = {
            "ended": ended,
            "final_observation": core.final_obs[ended],
            "final_scores": final_scores(final, self.num_players),
            "final_state": final,
        }
        truncated = np.zeros_like(core.finished)
        return (
            core.obs,  # a new array each step when copying (fresh_obs), else the buffer
            self._out(core.masks),
            self._out(core.rewards),
            core.finished.copy(),
            truncated,
            info,
        )

    def legal_actions(self, game: int, seat: int = 0) -> list[int]:
        return np.flatnonzero(self._core.masks[game, seat]).tolist()


def final_scores(states: np.ndarray, num_players: int) -> np.ndarray:
    """(k, P) scores of k engine states (the engine's ``score``)."""
    out = np.zeros((states.shape[0], num_players), dtype=np.int64)
    _scores(np.ascontiguousarray(states, dtype=np.int32), out)
    return out


def final_winners(states: np.ndarray, num_players: int) -> np.ndarray:
    """(k, P) bool: the seats that win k ended games (the engine's ``wins``: a top score, shared ones included)."""
    out = np.zeros((states.shape[0], num_players), dtype=np.bool_)
    _winners(np.ascontiguousarray(states, dtype=np.int32), out)
    return out
