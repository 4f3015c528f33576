"""The batched face of Easy Come, Easy Go: B games stepped at once by numba loops over the engine.

Why: evaluation and fast training need millions of game steps per second, which a per-game Python env
cannot give. The loops below call the same engine functions as the AEC env, once per game, so there is
still one copy of the rules. They also drive the vectorised turn task (``turn_task.py``): a ``mode``
switch picks how a game starts and how it is observed; everything else is shared.

Chance stream: one NumPy generator; every *chance round* draws ``rng.integers(0, 6, size=(n, 4))`` for
the ``n`` games that need dice, in game order, each using the first ``dice_needed`` faces of its row. With
B = 1 a round is one chance event, so the stream is exactly ``SeededDice``'s (``integers(0, 6, size=4)``
per event) and the batched engine replays the single-game env with the same seed and actions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from envs.common.batching import MAX_BATCH, BatchedFace, check_num_envs
from envs.common.config import validate_config

from .config import EasyComeEasyGoConfig
from .engine import (
    CURRENT,
    NUM_ACTIONS,
    NUM_DICE,
    NUM_FACES,
    NUM_PRIZES,
    PHASE,
    PHASE_OVER,
    STATE_SIZE,
    TURN,
    TURN_CONTINUES,
    WINNER,
    apply_action,
    apply_chance,
    dice_needed,
    encode_observation,
    final_rewards,
    init_turn_state,
    is_legal,
    legal_mask,
    observation_size,
    start_game,
)
from .turn_encoding import TURN_OBS_SIZE, encode_turn_observation

__all__ = ["BatchedEasyComeEasyGo", "MAX_BATCH", "MODE_GAME", "MODE_TURN"]

MODE_GAME = 0  # full game, observed by the player to move; rewards per seat
MODE_TURN = 1  # one solitary turn (the turn task); reward = value of the prize collected

DONE_NO = 0
DONE_TERMINATED = 1
DONE_TRUNCATED = 2


# --- The shared numba loops (a handful of compiled functions; the engine does all the rules) --------


@njit(cache=True)
def _start_game(state, mode, num_players, max_turns, variant, first_player):
    if mode == MODE_GAME:
        start_game(state, num_players, max_turns, variant, first_player)
    else:
        init_turn_state(state, variant)


@njit(cache=True)
def _start_all(states, mode, num_players, max_turns, variant, first_player):
    """Start every game; return how many need dice."""
    needy = 0
    for b in range(states.shape[0]):
        _start_game(states[b], mode, num_players, max_turns, variant, first_player)
        needy += dice_needed(states[b]) > 0
    return needy


@njit(cache=True)
def _act(
    states, actions, active, mode, num_players, max_turns, variant, first_player, win, loss, values, scaled,
    out_rewards, done, final_obs, final_states,
):  # fmt: skip
    """Apply one action per game with ``active[b]`` (the others wait), or none at all if any is illegal (return
    -(b+1) for the first bad b).

    Games that end are recorded (rewards, ``done`` code, terminal observation from every seat, terminal
    state) and restarted. Return how many games now need dice.
    """
    n = states.shape[0]
    for b in range(n):
        if active[b] and not is_legal(states[b], states[b, CURRENT], actions[b]):
            return -(b + 1)
    needy = 0
    for b in range(n):
        state = states[b]
        out_rewards[b, :] = 0.0
        done[b] = DONE_NO
        if not active[b]:
            continue  # at a decision node, so it needs no dice
        result = apply_action(state, state[CURRENT], actions[b])
        if mode == MODE_GAME:
            if state[PHASE] == PHASE_OVER:
                final_rewards(state, win, loss, out_rewards[b])
                done[b] = DONE_TERMINATED if state[WINNER] >= 0 else DONE_TRUNCATED
                for seat in range(num_players):
                    encode_observation(state, seat, final_obs[b, seat])
        elif result != TURN_CONTINUES:
            if result >= 0:
                out_rewards[b, 0] = values[b, result]
            done[b] = DONE_TERMINATED
            encode_turn_observation(state, scaled[b], final_obs[b, 0])
        if done[b] != DONE_NO:
            final_states[b, :] = state
            _start_game(state, mode, num_players, max_turns, variant, first_player)
        needy += dice_needed(state) > 0
    return needy


@njit(cache=True)
def _chance_round(states, faces):
    """Give row j of ``faces`` to the j-th game needing dice; return how many still need dice."""
    j = 0
    needy = 0
    for b in range(states.shape[0]):
        if dice_needed(states[b]) > 0:
            apply_chance(states[b], faces[j])
            j += 1
            needy += dice_needed(states[b]) > 0
    return needy


@njit(cache=True)
def _encode(states, mode, scaled, obs, masks):
    """Observation of the player to move and legal-action mask of every game."""
    for b in range(states.shape[0]):
        legal_mask(states[b], states[b, CURRENT], masks[b])
        if mode == MODE_GAME:
            encode_observation(states[b], states[b, CURRENT], obs[b])
        else:
            encode_turn_observation(states[b], scaled[b], obs[b])


# --- The Python side shared by the batched game and the vectorised turn task ----------------------


class GameBatch:
    """Buffers, the chance stream and input checks around the shared loops (one ``mode``).

    ``value_sampler(rng, k)`` (turn mode) draws the (k, 9) prize values of k new episodes from the same
    generator as the dice, before their first roll, as the single turn env does.
    """

    def __init__(
        self,
        num_envs: int,
        mode: int,
        *,
        num_players: int = 1,
        max_turns: int = 1,
        variant: bool = False,
        first_player: int | None = None,
        win: float = 1.0,
        loss: float = -1.0,
        values: np.ndarray | None = None,
        value_scale: float = 1.0,
        value_sampler: Callable[[np.random.Generator, int], np.ndarray] | None = None,
        seed: int | None = None,
    ) -> None:
        self.num_envs = n = check_num_envs(num_envs)
        self.mode = mode
        self.seats = num_players if mode == MODE_GAME else 1
        self.obs_dim = observation_size(num_players) if mode == MODE_GAME else TURN_OBS_SIZE
        self._params = (mode, num_players, max_turns, int(variant), -1 if first_player is None else first_player)
        self._win, self._loss = float(win), float(loss)
        self.rng = np.random.default_rng(seed)
        self.states = np.zeros((n, STATE_SIZE), dtype=np.int32)
        self.obs = np.zeros((n, self.obs_dim), dtype=np.float32)
        self.masks = np.zeros((n, NUM_ACTIONS), dtype=np.int8)
        self.rewards = np.zeros((n, self.seats), dtype=np.float32)
        self.done = np.zeros(n, dtype=np.int8)
        self.final_obs = np.zeros((n, self.seats, self.obs_dim), dtype=np.float32)
        self.final_states = np.zeros((n, STATE_SIZE), dtype=np.int32)
        self.values = np.zeros((n, NUM_PRIZES), dtype=np.float64)
        if values is not None:
            self.values[:] = values
        self.value_scale = float(value_scale)
        self.scaled = self.values / self.value_scale
        self._value_sampler = value_sampler
        self._all = np.ones(n, dtype=np.bool_)
        self.started = False

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed(seed)
        needy = _start_all(self.states, *self._params)
        if self._value_sampler is not None:
            self._new_values(np.arange(self.num_envs))
        self._roll(needy)
        self.done[:] = DONE_NO
        self.rewards[:] = 0.0
        self.started = True

    def step(self, actions: Any, active: np.ndarray | None = None) -> np.ndarray:
        """Apply ``actions`` (one per game) to the games where ``active`` (bool (N,), default all; the others wait
        and their action is ignored); return the indices of games that ended (and restarted)."""
        if not self.started:
            raise RuntimeError("call reset() before step()")
        actions = self._check_actions(actions)
        active = self._all if active is None else active
        needy = _act(
            self.states, actions, active, *self._params, self._win, self._loss, self.values, self.scaled, self.rewards,
            self.done, self.final_obs, self.final_states,
        )  # fmt: skip
        if needy < 0:
            b = -needy - 1
            legal = np.zeros(NUM_ACTIONS, dtype=np.int8)
            legal_mask(self.states[b], self.states[b, CURRENT], legal)
            raise ValueError(
                f"game {b}: action {int(actions[b])} is illegal; legal actions: {np.flatnonzero(legal).tolist()}"
            )
        ended = np.flatnonzero(self.done)
        if self._value_sampler is not None and ended.size:
            self._new_values(ended)
        self._roll(needy)
        return ended

    def _check_actions(self, actions: Any) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},) (one per game), got {a.shape}")
        if not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"actions must be integers in 0..{NUM_ACTIONS - 1}, got dtype {a.dtype}")
        return np.ascontiguousarray(a, dtype=np.int64)

    def _new_values(self, games: np.ndarray) -> None:
        self.values[games] = self._value_sampler(self.rng, games.size)
        self.scaled[games] = self.values[games] / self.value_scale

    def _roll(self, needy: int) -> None:
        """Chance rounds until every game is at a decision node, then observe them all."""
        while needy:
            needy = _chance_round(self.states, self.rng.integers(0, NUM_FACES, size=(needy, NUM_DICE)))
        _encode(self.states, self._params[0], self.scaled, self.obs, self.masks)


# --- The public batched full game -------------------------------------------------------------------


class BatchedEasyComeEasyGo(BatchedFace):
    """B full games of Easy Come, Easy Go, each observed by its player to move; finished games restart.

    ``reset(seed)`` -> ``(obs (B, D) float32, masks (B, 24) int8, info)``;
    ``step(actions (B,))`` -> ``(obs, masks, rewards (B, P) float32 per seat, terminated (B,), truncated (B,),
    info)``. ``info["current_player"]`` is each game's seat to move; for games that ended this step,
    ``info["ended"]`` holds their indices and ``info["final_observation"]`` (k, P, D, from every seat),
    ``info["final_winner"]`` (k,, -1 after truncation), ``info["final_state"]`` (k, 34) their last state;
    the returned obs/masks are already those of the restarted games. ``copy=False`` returns the internal
    buffers (overwritten by the next step) to save a copy.
    """

    def __init__(
        self,
        num_envs: int,
        config: EasyComeEasyGoConfig | dict[str, Any] | None = None,
        seed: int | None = None,
        copy: bool = True,
        **config_overrides: Any,
    ) -> None:
        self.config = cfg = validate_config(EasyComeEasyGoConfig, config, **config_overrides)
        self._core = GameBatch(
            num_envs,
            MODE_GAME,
            num_players=cfg.num_players,
            max_turns=cfg.max_turns,
            variant=cfg.four_of_a_kind_is_two_pairs,
            first_player=cfg.first_player,
            win=cfg.win_reward,
            loss=cfg.loss_reward,
            seed=seed,
        )
        self.num_envs = self._core.num_envs
        self.num_players = cfg.num_players
        self.observation_size = self._core.obs_dim
        self.num_actions = NUM_ACTIONS
        self.copy = copy

    @property
    def current_player(self) -> np.ndarray:
        return self._core.states[:, CURRENT].copy()

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """Start all B games; ``seed`` reseeds the chance stream (later resets and restarts continue it)."""
        self._core.reset(seed)
        return self._out(self._core.obs), self._out(self._core.masks), {"current_player": self.current_player}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        core = self._core
        ended = core.step(actions)
        final = core.final_states[ended]
        info = {
            "current_player": self.current_player,
            "ended": ended,
            "final_observation": core.final_obs[ended],
            "final_winner": final[:, WINNER].copy(),
            "final_turns": final[:, TURN].copy(),
            "final_state": final,
        }
        terminated = core.done == DONE_TERMINATED
        truncated = core.done == DONE_TRUNCATED
        return self._out(core.obs), self._out(core.masks), self._out(core.rewards), terminated, truncated, info

    def legal_actions(self, game: int) -> list[int]:
        return np.flatnonzero(self._core.masks[game]).tolist()
