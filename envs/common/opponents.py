"""One learning seat against fixed opponents: the vectorised games and the Gymnasium env every game shares.

Why: the question researchers ask of a full game is "can a policy trained at one seat beat these players?".
Opponents are any objects with ``act_batch(observations (k, D), masks (k, A)) -> (k,)`` (the ``agents/``
protocol; envs never import agents). The N games live in a game's batched core; the opponents' moves are made
inside ``step`` in batches, so the learner sees only its own decisions. A game's subclass says who is to act and
how a round is played (sequential turns or simultaneous choices). No stable-baselines3 here: ``OpponentsVecEnv``
and ``TurnOpponentsVecEnv`` (the SB3 ``VecEnv`` twins, ``vec_games.sb3_names``) import it when first used.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .batching import LegalDiscrete
from .seating import Policy, choose, seat_opponents
from .vec_games import CoreGames, StepReturn, sb3_names

__all__ = ["OpponentsGames", "Policy", "SingleGameEnv", "TurnOpponentsGames", "seat_opponents"]


class OpponentsGames(CoreGames):
    """N games, the learner at ``learner_seat``, the other seats played by fixed policies; auto-reset.

    After ``reset`` and every ``step`` each game waits for a learner decision. A step's reward is the learner's
    reward from its move and the opponents' moves that follow, up to the game's end; ``done`` = the game ended
    (``info``: ``terminal_observation`` from the learner's seat, ``won``, ``episode``, the game's own keys).

    Subclasses give what ``CoreGames`` asks (the core's ``step`` takes ``(actions, active)``) and ``_to_act()``
    and ``_play(learner_actions | None, active)``; ``_final_infos`` has ``won``.
    """

    _GAME_ATTRS = ("learner_seat",)

    def _init_opponents(
        self, core: Any, opponents: Any, num_players: int, learner_seat: int, observation_space: spaces.Space,
        action_space: spaces.Space,
    ) -> None:  # fmt: skip
        self.opponents = seat_opponents(opponents, num_players, learner_seat)
        self.learner_seat = self._seat = learner_seat
        self._init_core(core, observation_space, action_space)
        self._carry = np.zeros(core.num_envs)  # rewards of an episode earned before the learner's first decision

    def _to_act(self) -> np.ndarray:
        """bool (N,): the learner must decide now."""
        raise NotImplementedError

    def _play(self, learner_actions: np.ndarray | None, active: np.ndarray) -> np.ndarray:
        """One engine step in the ``active`` games (the learner's actions if given, the opponents' otherwise or
        alongside); return the indices of games that ended."""
        raise NotImplementedError

    def reset(self) -> np.ndarray:
        """Start all N games and play the opponents up to each learner decision (a ``seed()`` is used once)."""
        seed = self._reset_core()
        if seed is not None:  # seeded opponents too, so a seeded reset replays the same games
            for k, policy in enumerate({id(p): p for p in self.opponents.values()}.values()):
                if callable(getattr(policy, "reset", None)):
                    policy.reset(seed + 1 + k)
        rewards = np.zeros(self.num_envs)
        done = np.zeros(self.num_envs, dtype=bool)
        self._advance(rewards, done, [{} for _ in range(self.num_envs)])
        if done.any():
            raise RuntimeError(f"{type(self).__name__}: a game ended before the learner's first decision")
        self._carry = rewards  # paid with the learner's first step (shaped rewards of the opponents' first moves)
        return self._obs().copy()

    def step_wait(self) -> StepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions, self._actions = np.asarray(self._actions), None
        if actions.shape == (self.num_envs, 1):
            actions = actions[:, 0]
        self._check_learner_actions(actions)
        rewards, self._carry = self._carry, np.zeros(self.num_envs)
        done = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = self._play(actions, np.ones(self.num_envs, dtype=bool))
        self._lengths += 1
        self._collect(ended, rewards, done, infos)
        self._advance(rewards, done, infos)
        return self._obs().copy(), rewards.astype(np.float32), done, infos

    def _check_learner_actions(self, actions: np.ndarray) -> None:
        """Shape, type and legality, before any opponent moves: a rejected step changes nothing."""
        name = type(self).__name__
        if actions.shape != (self.num_envs,):
            raise ValueError(f"{name}: actions must have shape ({self.num_envs},), got {actions.shape}")
        if not np.issubdtype(actions.dtype, np.integer):
            raise TypeError(f"{name}: actions must be integers in 0..{self.action_space.n - 1}, got {actions.dtype}")
        masks = self._masks()
        inside = (actions >= 0) & (actions < masks.shape[1])
        legal = inside & (masks[np.arange(self.num_envs), np.where(inside, actions, 0)] != 0)
        if not legal.all():
            b = int(np.flatnonzero(~legal)[0])
            raise ValueError(
                f"{name}: game {b}: action {int(actions[b])} is illegal; legal actions: "
                f"{np.flatnonzero(masks[b]).tolist()}"
            )

    def _advance(self, rewards: np.ndarray, done: np.ndarray, infos: list[dict[str, Any]]) -> None:
        """Opponents' moves until every game waits for the learner."""
        while True:
            waiting = ~self._to_act()
            if not waiting.any():
                return
            try:
                ended = self._play(None, waiting)
            except ValueError as exc:  # the engine rejected a move no learner made
                raise ValueError(f"{type(self).__name__}: an opponent's move was rejected: {exc}") from None
            self._collect(ended, rewards, done, infos, waiting)

    def _collect(
        self, ended: np.ndarray, rewards: np.ndarray, done: np.ndarray, infos: list[dict[str, Any]],
        active: np.ndarray | None = None,
    ) -> None:  # fmt: skip
        """Add the learner's rewards of the games still in their episode; close the episodes of ``ended``.

        A game restarted earlier in this step (``done``) is in its next episode: its rewards (shaping on the
        opponents' first moves) count towards that episode and are paid with the learner's next step."""
        step_rewards = self._core.rewards[:, self.learner_seat].astype(np.float64)
        moved = np.ones(self.num_envs, dtype=bool) if active is None else active
        open_games = moved & ~done
        next_episode = moved & done
        again = ended[done[ended]]
        if again.size:  # a restarted game ended before the learner's first decision
            raise RuntimeError(f"{type(self).__name__}: games {again.tolist()} ended twice within one step")
        rewards[open_games] += step_rewards[open_games]
        self._carry[next_episode] += step_rewards[next_episode]
        self._returns[moved] += step_rewards[moved]
        self._close_episodes(ended, infos)
        done[ended] = True


class TurnOpponentsGames(OpponentsGames):
    """``OpponentsGames`` for games where one player moves at a time (Easy Come, Easy Go; Yay!).

    The core observes each game's player to move (``obs``, ``masks``) and ``states[:, _current_slot]`` names
    that seat; the opponents due to move are asked once per seat (``seating.choose``: a planning agent gets the
    engine states).
    """

    _current_slot: int

    def _to_act(self) -> np.ndarray:
        return self._core.states[:, self._current_slot] == self.learner_seat

    def _play(self, learner_actions: np.ndarray | None, active: np.ndarray) -> np.ndarray:
        core = self._core
        if learner_actions is not None:
            return core.step(learner_actions, active)
        actions = np.full(self.num_envs, -1, dtype=np.int64)  # ignored where not active
        seats = np.where(active, core.states[:, self._current_slot], -1)
        for seat, policy in self.opponents.items():
            rows = np.flatnonzero(seats == seat)
            if rows.size:
                actions[rows] = choose(policy, core.obs[rows], core.masks[rows], core.states[rows], seat)
        return core.step(actions, active)

    def _obs(self) -> np.ndarray:
        return self._core.obs

    def _masks(self) -> np.ndarray:
        return self._core.masks


class SingleGameEnv(gymnasium.Env):
    """One game of an ``OpponentsGames`` as a Gymnasium env (``action_masks()``, ``info["action_mask"]``).

    Why a wrapper: the rules, the opponents' play and the rewards stay in one place (the vec env with N = 1).
    ``reset(seed)`` starts a new game (the seed makes it and every later game reproducible); ``step`` after the
    end raises until the next ``reset``.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, vec_env: OpponentsGames) -> None:
        if vec_env.num_envs != 1:
            raise ValueError(f"SingleGameEnv needs a 1-game vec env, got {vec_env.num_envs}")
        self.vec_env = vec_env
        self.observation_space = vec_env.observation_space
        self.action_space = LegalDiscrete(vec_env.action_space.n, self._mask, env=self)  # sample(): a legal action
        self._obs: np.ndarray | None = None
        self._over = True

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        if seed is not None or self._obs is None or not self._over:  # else: the game auto-reset after the last
            if seed is not None:  # SB3's seed(None) would draw a fresh seed; without one the chance stream goes on
                self.vec_env.seed(seed)
            self._obs = self.vec_env.reset()[0]
        self.action_space.game_started(seed)  # reproducible action_space.sample() rollouts too
        self._over = False
        return self._obs.copy(), {"action_mask": self._mask()}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._obs is None:
            raise RuntimeError(f"{type(self.vec_env).__name__}: step() before reset(): call reset() to start a game")
        if self._over:
            raise RuntimeError(f"{type(self.vec_env).__name__}: the game is over: call reset() for a new one")
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise TypeError(f"action must be an int in 0..{self.action_space.n - 1}, got {action!r}")
        obs, rewards, dones, infos = self.vec_env.step(np.array([action], dtype=np.int64))
        info = dict(infos[0])
        self._obs = obs[0]
        if dones[0]:
            self._over = True
            final = info.pop("terminal_observation")
            info.pop("episode", None)
            info["action_mask"] = np.zeros(self.action_space.n, dtype=np.int8)
            return final, float(rewards[0]), True, False, info
        info["action_mask"] = self._mask()
        return self._obs.copy(), float(rewards[0]), False, False, info

    def action_masks(self) -> np.ndarray:
        """Legal actions as bools; all False once the game is over."""
        return self._mask().astype(bool)

    def _mask(self) -> np.ndarray:
        if self._over:
            return np.zeros(self.action_space.n, dtype=np.int8)
        return self.vec_env._masks()[0].astype(np.int8)


__getattr__ = sb3_names(__name__, OpponentsGames, TurnOpponentsGames)
