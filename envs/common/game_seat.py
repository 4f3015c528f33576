"""One learning seat against fixed opponents, for every contract game: the vectorised core and its Gymnasium env.

Why: "can a policy trained at one seat beat these players?" is the question researchers ask of a full game.
The N games live in one ``BatchedGame``; the opponents' moves are made inside ``step``, one ``act_batch`` call
per opponent seat for all games waiting for it, so the learner sees only its own decisions. A step either
completes or changes nothing: an opponent that raises or returns a wrong, float or illegal move undoes the
whole step (the learner's move included) and is named in the error; so does a failing injected chance source.

A one-player game needs no opponents: a task (``contract.register_task``, e.g. Easy Come's turn task) is served by
these faces as it is, so a task costs only its rules. The single env takes injected chance (``chance=`` a contract
source, or the game's ``dice=``), checked the contract's way (``chance.given_outcome``).
"""

from __future__ import annotations

import time
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .batching import LegalDiscrete, read_only
from .chance import ChanceSource, injected_chance
from .config import ConfigError
from .contract import GameSpec
from .game_batch import BatchedGame
from .seating import FixedSeating, Seating, choose
from .table import check_seed
from .vec_games import MaskedGames, StepReturn
from .vec_twins import sb3_names

__all__ = ["MAX_SKIPPED", "SeatCore", "SeatEnv", "SeatGames"]

MAX_SKIPPED = 1000  # games in a row that may end before the learner's first decision in them (SeatCore)


class SeatCore:
    """N games with the learner at ``learner_seat``; after ``reset`` and every ``step`` each game waits for it.

    ``seating`` (instead of ``opponents``, e.g. ``dicearena.agents.training.self_play.OpponentPool``) decides anew for
    every episode of
    every game where the learner sits and who plays each other seat: ``seats`` (N,) is the learner's seat in each
    game now, and each policy moves once per step for all the (game, seat) pairs it holds that must decide.

    ``step(actions (N,))`` -> ``(obs (N, D), masks (N, A), rewards (N,), dones (N,), infos)``: a step's reward is
    the learner's from its move and the opponents' moves that follow, up to the game's end. An ended game's info
    has ``terminal_observation`` (the learner's), ``final_rewards`` (every seat), ``final_state`` (the engine's
    terminal state: scores, turns, everything), ``won`` (a final reward > 0),
    ``tied`` (won, and so did another seat) and ``episode`` (``r``, ``l``), plus the spec's ``info`` and
    ``seat_info`` of the final state; the game has restarted and waits for the learner again (unless the batch
    holds restarts: then it waits for ``reset``).

    A game can end before the learner's first decision in it (an opponent wins, or the turn limit comes, before the
    learner's turn): it holds no step of the learner's, so no step can return it. Such a game is *skipped*: the next
    one is dealt at once (from the same chance stream, seated anew), as often as it takes, and the skipped game is
    recorded in ``skipped_games``, a list of infos like an ended episode's (``episode["l"]`` is 0 and
    ``episode["r"]`` the learner's return in it): in the info of the step whose restart dealt it, or, for those
    dealt by ``reset``, in ``reset_infos`` (one dict per game). Its rewards are paid in no step: they belong to no
    decision of the learner's, and an evaluation counts them from the record (a loss, most often). Rewards the
    learner earns in a game before its first decision there (shaping) are paid with that decision's step. More than
    ``MAX_SKIPPED`` skipped games in a row raise: the config gives the learner's seat no decision.
    """

    def __init__(
        self, game: str | GameSpec, num_envs: int, opponents: Any, config: Any = None, learner_seat: int = 0,
        seed: int | None = None, chance: ChanceSource | None = None, seating: Seating | None = None,
        threads: int | None = None, **config_overrides: Any,
    ) -> None:  # fmt: skip
        self.batch = BatchedGame(game, num_envs, config, seed, copy=False, threads=threads, **config_overrides)
        self.batch.chance = chance
        self.config, self.num_envs = self.batch.config, self.batch.num_envs
        if seating is not None and opponents is not None:
            raise ValueError("give opponents or a seating (who sits where each episode), not both")
        self.seating = seating if seating is not None else FixedSeating(opponents, self.batch.num_players,
                                                                         learner_seat)  # fmt: skip
        self.learner_seat = getattr(self.seating, "learner_seat", None)  # an int while the learner keeps one seat
        never = self.spec.seat_never_decides
        why = never(self.config, self.learner_seat) if never is not None and self.learner_seat is not None else None
        if why:
            raise ConfigError(f"{self.spec.title} seat env: the learner's seat {self.learner_seat} never has a "
                              f"decision under this config: {why}")  # fmt: skip
        self.seats = np.zeros(self.num_envs, dtype=np.int64)
        self.assignment = np.full((self.num_envs, self.batch.num_players), -1, dtype=np.int64)
        self._rows = np.arange(self.num_envs)
        self._obs = self._masks = None
        self._acting = np.zeros((self.num_envs, self.batch.num_players), dtype=bool)
        self._carry = np.zeros(self.num_envs)  # rewards of an episode earned before the learner's first decision
        self._returns = np.zeros(self.num_envs)
        self._lengths = np.zeros(self.num_envs, dtype=np.int64)
        self._skips = np.zeros(self.num_envs, dtype=np.int64)  # games skipped since the learner's last decision
        self.reset_infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]  # ``skipped_games`` of reset

    @property
    def spec(self) -> GameSpec:
        return self.batch.spec

    @property
    def started(self) -> bool:
        return self._obs is not None

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Start all N games and play the opponents up to each learner decision (``seed`` reseeds them too; a bad
        seed changes nothing)."""
        seed = check_seed(seed)
        if seed is not None:
            for k, policy in enumerate(self.seating.policies):
                if callable(getattr(policy, "reset", None)):
                    policy.reset(seed + 1 + k)
        obs, masks, info = self.batch.reset(seed)
        self.seating.seat(self._rows, self.seats, self.assignment)
        self._see(obs, masks, info)
        self._carry[:] = self._returns[:] = self._lengths[:] = self._skips[:] = 0
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self._advance(np.zeros(self.num_envs), np.zeros(self.num_envs, dtype=bool), infos)  # rewards: carried
        self.reset_infos = infos
        return self._obs, self._masks

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if not self.started:
            raise RuntimeError(f"{self.spec.title} seat env: step() before reset(): call reset() first")
        actions = self._check(np.asarray(actions), self._masks, "the learner")
        # Without opponents nothing can fail once the actions are checked, but an injected chance source (the
        # batch undoes its own step then): the batch's snapshot is needed only with opponents.
        saved = (self.batch.snapshot() if self.seating.policies else None, self._carry.copy(), self._returns.copy(),
                 self._lengths.copy(), self._acting.copy(), self.seats.copy(), self.assignment.copy(),
                 self._skips.copy())  # fmt: skip
        try:
            return self._step(actions)
        except BaseException:
            if saved[0] is not None:
                self.batch.restore(saved[0])
            self._carry[:], self._returns[:], self._lengths[:] = saved[1:4]
            self._acting, self.seats[:], self.assignment[:] = saved[4], saved[5], saved[6]
            self._skips[:] = saved[7]
            self._see(self.batch._obs, self.batch._masks)
            raise

    def _see(self, obs: np.ndarray, masks: np.ndarray, info: dict[str, Any] | None = None) -> None:
        """The batch's outputs: the learner's view of them, and who acts next."""
        self._all_obs, self._all_masks = obs, masks
        rows, seats = self._rows, self.seats
        self._obs, self._masks = (obs[rows, seats], masks[rows, seats]) if self.batch.simultaneous else (obs, masks)
        if info is not None:
            self._acting = info["acting"]

    def _step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        rewards, self._carry = self._carry.copy(), np.zeros(self.num_envs)
        done = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self._lengths += 1
        self._skips[:] = 0
        everyone = np.ones(self.num_envs, dtype=bool)
        if self.batch.simultaneous:  # the opponents decide on the same throw, in the same round
            joint = self._opponent_actions(everyone)
            joint[self._rows, self.seats] = actions
            actions = joint
        step = self.batch.step(actions)
        self._see(step[0], step[1], step[5])
        self._collect(step, everyone, rewards, done, infos)
        self._advance(rewards, done, infos)
        return self._obs, self._masks, rewards, done, infos

    def _advance(self, rewards: np.ndarray, done: np.ndarray, infos: list[dict]) -> None:
        """Opponents' moves until every game waits for the learner (or, held, for ``reset``)."""
        while True:
            held = self.batch.held
            if (held & ~done).any():  # held (B = 1), not by an end of the learner's episode: a game was skipped
                obs, masks, info = self.batch.reset()  # the next game, from the same stream
                self._see(obs, masks, info)
                continue
            waiting = ~self._acting[self._rows, self.seats] & ~held
            if not waiting.any():
                return
            step = self.batch.step(self._opponent_actions(waiting), waiting)
            self._see(step[0], step[1], step[5])
            self._collect(step, waiting, rewards, done, infos)

    def _opponent_actions(self, games: np.ndarray) -> np.ndarray:
        """The opponents' moves in ``games`` where they decide now, one batched call per policy for all the (game,
        seat) pairs it holds: (N,), or (N, P) in a simultaneous game."""
        simultaneous = self.batch.simultaneous
        shape = (self.num_envs, self.batch.num_players) if simultaneous else (self.num_envs,)
        actions = np.zeros(shape, dtype=np.int64)
        rows, seats = np.nonzero(games[:, None] & self._acting & (self.assignment >= 0))
        owners = self.assignment[rows, seats]
        for i, policy in enumerate(self.seating.policies):
            mine = owners == i
            if not mine.any():
                continue
            r, s = rows[mine], seats[mine]
            who = f"the opponent at seat {{seat}} ({type(policy).__name__})"
            obs, masks = (self._all_obs[r, s], self._all_masks[r, s]) if simultaneous else (
                self._all_obs[r], self._all_masks[r])  # fmt: skip
            try:
                chosen = choose(policy, obs.copy(), masks.copy(), self.batch.states[r], s)
            except Exception as exc:
                raise RuntimeError(f"{who.format(seat=int(s[0]))} failed: {type(exc).__name__}: {exc}; the step was "
                                   "undone") from exc  # fmt: skip
            chosen = self._check(np.asarray(chosen), masks, who, r, s)
            if simultaneous:
                actions[r, s] = chosen
            else:
                actions[r] = chosen
        return actions

    def _collect(self, step: tuple, moved: np.ndarray, rewards: np.ndarray, done: np.ndarray, infos: list) -> None:
        """The learner's rewards of ``moved`` games: to this step once the learner has decided in the game's episode,
        else (a game restarted in this step, or dealt by ``reset``) carried to its first decision there; then close
        the episodes that ended: one the learner decided in ends this step (``done``), one it never decided in is
        skipped (recorded in ``skipped_games``; its rewards are paid in no step)."""
        seat_rewards = step[2][self._rows, self.seats].astype(np.float64)
        info = step[5]
        ended = info["ended"]
        decided = self._lengths > 0  # a step's decision is counted as it starts
        paid, waiting = moved & decided, moved & ~decided
        rewards[paid] += seat_rewards[paid]
        self._carry[waiting] += seat_rewards[waiting]
        self._returns[moved] += seat_rewards[moved]
        if not ended.size:
            return
        # the batch's final_* are fresh arrays each step: each info holds rows of them, no copies
        finals, states, seats = info["final_rewards"], info["final_state"], self.seats[ended]
        k = np.arange(ended.size)
        observations = info["final_observation"][k, seats]
        won = finals[k, seats] > 0
        tied, won = (won & ((finals > 0).sum(axis=1) > 1)).tolist(), won.tolist()
        truncated, returns, lengths = (step[4][ended].tolist(), self._returns[ended].tolist(),
                                       self._lengths[ended].tolist())  # fmt: skip
        table, at_seat, config = self.spec.info, self.spec.seat_info, self.config
        rows = zip(ended.tolist(), observations, finals, states, won, tied, truncated, returns, lengths,
                   seats.tolist(), decided[ended].tolist(), strict=True)  # fmt: skip
        for b, observation, final, state, w, t, cut, r, n, seat, played in rows:
            out = {"terminal_observation": observation, "final_rewards": final, "final_state": state, "won": w,
                   "tied": t, "truncated": cut, "episode": {"r": r, "l": n}, "learner_seat": seat}  # fmt: skip
            if table is not None:
                out.update(table(config, state))
            if at_seat is not None:
                out.update(at_seat(config, state, seat))
            if played:
                infos[b].update(out)
            else:
                infos[b].setdefault("skipped_games", []).append(out)
        skipped = ended[~decided[ended]]
        self._carry[skipped] = 0.0  # a skipped game's rewards are its record's episode["r"]
        self._skips[skipped] += 1
        self._returns[ended] = 0.0
        self._lengths[ended] = 0
        done[ended[decided[ended]]] = True
        if skipped.size and self._skips[skipped].max() > MAX_SKIPPED:
            b = int(skipped[self._skips[skipped].argmax()])
            raise RuntimeError(f"{self.spec.title} seat env: over {MAX_SKIPPED} games in a row in game {b} ended "
                               f"before the learner (seat {int(self.seats[b])}) had a decision in them: does this "
                               "config give that seat any (max_turns below the number of players?)")  # fmt: skip
        if self.learner_seat is None:  # the new episodes' seats, and the learner's view of them
            self.seating.seat(ended, self.seats, self.assignment)
            self._see(self._all_obs, self._all_masks)

    def spec_info(self, state: np.ndarray) -> dict[str, Any]:
        """What the spec says of ``state`` for the learner: its ``info`` and ``seat_info`` (e.g. the dice)."""
        spec, out = self.spec, {}
        if spec.info is not None:
            out.update(spec.info(self.config, state))
        if spec.seat_info is not None:
            out.update(spec.seat_info(self.config, state, int(self.seats[0])))
        return out

    def _check(self, actions: np.ndarray, masks: np.ndarray, who: str, rows: Any = None, seats: Any = None,
               ) -> np.ndarray:  # fmt: skip
        """Integer moves, one per game (``rows`` of the batch, default all; ``seats`` the seat deciding in each,
        default the learner's), each legal; else a ValueError naming ``who`` (its ``{seat}`` filled in) and, for the
        first illegal move, the rule (the spec's ``explain_illegal``); nothing has changed."""
        k = masks.shape[0]
        seats = self.seats if seats is None else seats
        if actions.shape == (k, 1):
            actions = actions[:, 0]
        if actions.shape != (k,) or actions.dtype.kind not in "iu":
            raise ValueError(f"{self.spec.title} seat env: {who.format(seat=int(seats[0]))} must give {k} integer "
                             f"actions, got {actions.dtype} of shape {actions.shape}")  # fmt: skip
        inside = (actions >= 0) & (actions < masks.shape[1])
        legal = inside & (masks[np.arange(k), np.where(inside, actions, 0)] != 0)
        if not legal.all():
            j = int(np.flatnonzero(~legal)[0])
            b, a = (j if rows is None else int(rows[j])), int(actions[j])
            seat = int(seats[j])
            who = who.format(seat=seat)
            why = (self.spec.explain_illegal(self.config, self.batch.states[b], seat, a) if inside[j]
                   else f"actions are 0..{masks.shape[1] - 1}")  # fmt: skip
            raise ValueError(f"{self.spec.title} seat env: {who} played the illegal action {a} in game {b}; legal "
                             f"actions: {np.flatnonzero(masks[j]).tolist()} ({why})")  # fmt: skip
        return actions.astype(np.int64)


def _typed(info: dict[str, Any]) -> dict[str, Any]:
    """``info`` without its ``None`` values (``SeatEnv``: one type per key whenever the key is present)."""
    return {key: value for key, value in info.items() if value is not None}


class SeatEnv(gymnasium.Env):
    """One game at one seat as a Gymnasium env, with ``info["action_mask"]`` and ``action_masks()``; infos also hold
    the spec's ``info`` / ``seat_info`` (at the end: of the final state, with ``final_rewards`` and ``final_state``).

    Accepts what a user's code hands it: a Python or NumPy integer, or the 0-d / (1,) array ``model.predict``
    returns. ``reset(seed)`` starts a new game (the seed makes it and every later game reproducible); ``reset()``
    without a seed continues the chance stream, so its games are those of a 1-game ``SeatGames`` with the same
    seed; ``step`` after the end raises until the next ``reset``, which deals games until the learner has a decision
    in one: those that ended before it (an opponent won first) are skipped and listed in the reset's
    ``info["skipped_games"]`` (each an ended episode's info: ``final_rewards``, ``won``, ``episode``...; see
    ``SeatCore``). ``chance`` (a contract source) or ``dice`` (the
    game's dice interface, ``GameSpec.dice``) replaces the seeded chance, e.g. with a rulebook example's exact
    dice: a restarted game's first chance event waits for ``reset``, so no outcome is spent on a game nobody plays.
    Render modes are the spec's renderers (``ansi``, ``rgb_array``).

    Every info key holds one type whenever it is present, so Gymnasium's vector envs (``make_vec``, sync or async),
    which merge their envs' infos key by key into one array per key, take every id: a key the spec's ``info`` /
    ``seat_info`` sets to ``None`` for "not applicable" (no dice once a game is over, no event yet) is left out of
    the info then, as a key that applies only at the end (``final_state``) is left out before it; the vector info's
    ``_<key>`` mask says where a key is present.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"]}  # gymnasium.make reads it; an instance: its own

    def __init__(
        self, game: str | GameSpec, opponents: Any = None, config: Any = None, learner_seat: int = 0,
        chance: ChanceSource | None = None, dice: Any = None, render_mode: str | None = None, **config_overrides: Any,
    ) -> None:  # fmt: skip
        self.core = SeatCore(game, 1, opponents, config, learner_seat, **config_overrides)
        spec, batch = self.core.spec, self.core.batch
        self.config, self.dice = self.core.config, dice
        batch.chance, batch.hold_restarts = injected_chance(spec, self.config, chance, dice), True
        modes = [m for m, f in (("ansi", spec.render_ansi), ("rgb_array", spec.render_rgb)) if f is not None]
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"{spec.title} seat env: render_mode must be None or one of {modes}, got {render_mode!r}")
        self.metadata = {"render_modes": modes, "render_fps": spec.render_fps}
        self.render_mode = render_mode
        self.observation_space = spec.observation_box(self.config)
        self._over = True
        self._final: np.ndarray | None = None
        self.action_space = LegalDiscrete(batch.sizes.actions, self._mask_now, env=self)  # a blind sample is legal

    @property
    def chance(self) -> ChanceSource | None:
        """The injected chance source (``None``: the seeded stream)."""
        return self.core.batch.chance

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        seed = check_seed(seed)
        super().reset(seed=seed)
        obs, masks = self.core.reset(seed)
        self._over, self._final = False, None
        self.action_space.game_started(seed)
        info = {**self.core.spec_info(self.core.batch.states[0]), "action_mask": masks[0].copy()}
        return obs[0].copy(), _typed(info | self.core.reset_infos[0])  # the games skipped on the way, if any

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        name = f"{self.core.spec.title} seat env"
        if not self.core.started:
            raise RuntimeError(f"{name}: step() before reset(): call reset() to start a game")
        if self._over:
            raise RuntimeError(f"{name}: the game is over: call reset() for a new one")
        if isinstance(action, int) and not isinstance(action, bool) and not 0 <= action < self.action_space.n:
            raise ValueError(f"{name}: action {action} is out of range 0..{self.action_space.n - 1}")
        value = np.asarray(action)
        if value.shape not in ((), (1,)) or value.dtype.kind not in "iu" or isinstance(action, bool | np.bool_):
            raise TypeError(f"{name}: action must be an int 0..{self.action_space.n - 1} (or a 0-d or (1,) integer "
                            f"array, as model.predict returns), got {action!r}")  # fmt: skip
        if not 0 <= int(value.reshape(())) < self.action_space.n:
            raise ValueError(f"{name}: action {int(value.reshape(()))} is out of range 0..{self.action_space.n - 1}")
        obs, masks, rewards, dones, infos = self.core.step(value.reshape(1).astype(np.int64))
        if dones[0]:
            info = dict(infos[0])
            self._over, self._final = True, info["final_state"]
            final = info.pop("terminal_observation")
            truncated = info.pop("truncated")
            info.pop("episode")
            info["action_mask"] = np.zeros(self.action_space.n, dtype=np.int8)
            return final, float(rewards[0]), not truncated, truncated, _typed(info)
        info = {**self.core.spec_info(self.core.batch.states[0]), "action_mask": masks[0].copy()}
        return obs[0].copy(), float(rewards[0]), False, False, _typed(info)

    def action_masks(self) -> np.ndarray:
        return self._mask_now() != 0

    @property
    def engine_state(self) -> np.ndarray:
        """The game's engine state, read-only; once it has ended, its final state until the next ``reset``."""
        if not self.core.started:
            raise RuntimeError(f"{self.core.spec.title} seat env: no game before reset(): call reset() first")
        return read_only(self._final) if self._final is not None else self.core.batch.states[0]

    def state(self) -> np.ndarray:
        """The game's engine state (a copy): what a planning agent reads (``agent.act(obs, mask, state, seat)``)."""
        return self.engine_state.copy()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        render = self.core.spec.render_ansi if self.render_mode == "ansi" else self.core.spec.render_rgb
        return render(self.config, self.engine_state)

    def _mask_now(self) -> np.ndarray:
        if self._over or not self.core.started:
            return np.zeros(self.action_space.n, dtype=np.int8)
        return self.core._masks[0].astype(np.int8)


class SeatGames(MaskedGames):
    """N games at one seat against fixed opponents behind SB3's ``VecEnv`` protocol (``SeatVecEnv``: its SB3
    twin, a real ``VecEnv``), for training; ``seed()`` seeds the next ``reset()``, later resets continue the
    stream. Infos of ended games are ``SeatCore``'s plus SB3's ``TimeLimit.truncated`` and ``episode["t"]``; games
    an auto-reset (or ``reset``) skipped because they ended before the learner's first decision are listed in the
    step's info (and ``reset_infos``) as ``skipped_games``.
    ``threads``: the engine's (default ``None``, every core; results are the same for any count)."""

    _GAME_ATTRS = ("learner_seat",)

    def __init__(
        self, game: str | GameSpec, num_envs: int, opponents: Any = None, config: Any = None, learner_seat: int = 0,
        seed: int | None = None, seating: Seating | None = None, threads: int | None = None,
        **config_overrides: Any,
    ) -> None:  # fmt: skip
        self.core = SeatCore(game, num_envs, opponents, config, learner_seat, seed, seating=seating, threads=threads,
                             **config_overrides)  # fmt: skip
        self.config, self.learner_seat = self.core.config, self.core.learner_seat
        sizes = self.core.batch.sizes
        self._init_vec(self.core.num_envs, self.core.spec.observation_box(self.config), spaces.Discrete(sizes.actions))
        self._t0 = time.time()

    @property
    def engine_states(self) -> np.ndarray:
        """The engine states (N, S), a read-only view (what planning agents read)."""
        return read_only(self.core.batch.states)

    @property
    def learner_seats(self) -> np.ndarray:
        """The learner's seat in each game now (N,), read-only (a self-play seating moves it between episodes)."""
        return read_only(self.core.seats)

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        self._reset_seeds()
        obs = self.core.reset(seed)[0].copy()
        self.reset_infos = list(self.core.reset_infos)  # each game's ``skipped_games`` before its first decision
        return obs

    def step_wait(self) -> StepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions, self._actions = self._actions, None
        obs, _, rewards, dones, infos = self.core.step(actions)
        elapsed = round(time.time() - self._t0, 6)
        for i in np.flatnonzero(dones).tolist():
            info = infos[i]
            info["TimeLimit.truncated"] = info["truncated"]
            info["episode"]["t"] = elapsed
            skipped = info.get("skipped_games")  # the auto-reset's, as SB3's reset_infos keep them too
            self.reset_infos[i] = {"skipped_games": skipped} if skipped else {}
        return obs.copy(), rewards.astype(np.float32), dones, infos

    def _masks(self) -> np.ndarray:
        if not self.core.started:
            raise RuntimeError(f"{self.core.spec.title} seat games: reset() first")
        return self.core._masks

    def _game_attr(self, name: str, i: int) -> Any:
        return int(self.core.seats[i]) if name == "learner_seat" else super()._game_attr(name, i)


__getattr__ = sb3_names(__name__, SeatGames)  # SeatVecEnv
