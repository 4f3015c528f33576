"""The batched engine of every contract game: B games per compiled call, seeded, auto-reset.

Why: one class, one constructor, one ``step`` signature and info keys that mean the same in every game, so
evaluation, self-play and tournaments are written once. The loops are ``dicearena.envs.common.batch_loops``, compiled
per game by the kernels its spec names.

Chance streams: every game draws its words from its own keyed stream (``dicearena.envs.common.streams``), so each game's
history depends on the seed, its index and its actions only, and the games of a step run in parallel
(``threads=N``) with the same results for every N. Game 0's stream is ``SeededChance``'s, so a 1-game batch
replays the AEC env with the same seed and actions. An injected
source (``chance``: a rulebook example's exact dice) replaces the streams; its outcomes are checked the contract's
way and played game by game in Python (single envs, tests).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from .batching import ThreadChoice, check_num_envs, check_threads, read_only
from .chance import ChanceSource, given_outcome
from .config import validate_config
from .contract import NOBODY, SIMULTANEOUS, TERMINATED, TRUNCATED, GameSpec, game_spec, resolve_spec, spec_reference
from .rewards import pay_shaping_python
from .step_info import ended_games, seats_acting
from .streams import stream_keys
from .table import check_seed

__all__ = ["BatchedGame", "CHUNKS_PER_THREAD"]

CHUNKS_PER_THREAD = 16  # a batch on N threads is cut into 16 N ranges of games, each thread taking the next free one


class BatchedGame:
    """B games of one registered game; ended games restart at once.

    Sequential games are observed from the seat to move: ``reset(seed)`` -> ``(obs (B, D) float32, masks (B, A)
    int8, info)``; ``step(actions (B,), active=None)`` -> ``(obs, masks, rewards (B, P) float32 per seat,
    terminated (B,), truncated (B,), info)``. Simultaneous games are observed from every seat: obs (B, P, D),
    masks (B, P, A) (all zero for a seat that does not decide), ``step(actions (B, P), active=None)`` (entries of
    seats that do not decide are ignored), and rewards are the game's step rewards. Every info has ``to_act``
    (B,: the seat each game waits for, or ``SIMULTANEOUS``) and ``acting`` (B, P bool: who decides now). For games
    that ended this step: ``ended`` (their indices), ``final_rewards`` (k, P), ``final_observation`` (k, P, D, from
    every seat) and ``final_state`` (k, S); the returned observations are already those of the restarted games.
    ``copy=False`` returns the internal buffers.

    ``hold_restarts`` (B = 1, what a single env sets): an ended game is restarted but its first chance event waits
    for ``reset()`` (``held``; it has no seat to act and an all-zero mask), so the chance stream, seeded or
    injected, is spent only on games somebody plays, and ``reset()`` then plays the game a 1-game batch would.

    ``threads`` (default 1; ``None``: every core): the batch is cut into ranges of games (``CHUNKS_PER_THREAD`` per
    thread) that the threads step in parallel, each taking the next range when done (numba's ``prange``). The
    games are the same for every count: each game draws its own keyed stream. ``threads`` is the most a step uses:
    the steps run on one thread while that measures faster (``thread_choice``: e.g. when other processes keep a
    core busy; ``ThreadChoice("parallel")`` always runs the threads).
    An injected ``chance`` source plays on one thread.
    """

    def __init__(
        self, game: str | GameSpec, num_envs: int, config: Any = None, seed: int | None = None, copy: bool = True,
        threads: int | None = 1, **config_overrides: Any,
    ) -> None:  # fmt: skip
        self.spec = spec = game_spec(game)
        self.threads = check_threads(threads)
        self.thread_choice = ThreadChoice()  # serial or parallel steps, by the clock (``threads`` > 1)
        self.simultaneous = spec.dynamics == "simultaneous"
        self.config = validate_config(spec.config, config, **config_overrides)
        self.num_envs = n = check_num_envs(num_envs)
        self._kernels = spec.kernel_module()
        self.sizes = sizes = spec.sizes(self.config)
        self.num_players, self.observation_size, self.num_actions = sizes.num_players, sizes.observation, sizes.actions
        self._header = np.ascontiguousarray(spec.engine.header(self.config), dtype=np.int32)
        self._streams = stream_keys(check_seed(seed), n)
        self._codes = np.zeros(n, dtype=np.int64)  # each chunk's first illegal action (at most a chunk per game)
        self._pot = np.zeros((n, 2, sizes.num_players), dtype=np.float64)
        self._words = np.zeros((n, max(1, sizes.words)), dtype=np.int64)
        self._outcomes = np.zeros((n, max(1, sizes.outcome)), dtype=np.int32)
        self._states = np.zeros((n, sizes.state), dtype=np.int32)
        per_seat = (n, sizes.num_players) if self.simultaneous else (n,)
        self._obs = np.zeros((*per_seat, sizes.observation), dtype=np.float32)
        self._masks = np.zeros((*per_seat, sizes.actions), dtype=np.int8)
        self._acting = np.zeros((n, sizes.num_players), dtype=np.int8)
        self._rewards = np.zeros((n, sizes.num_players), dtype=np.float32)
        self._done = np.zeros(n, dtype=np.int8)
        self._final_rewards = np.zeros((n, sizes.num_players), dtype=np.float64)
        self._seats = np.zeros(n, dtype=np.int64)
        self._final_obs = np.zeros((n, sizes.num_players, sizes.observation), dtype=np.float32)
        self._final_states = np.zeros((n, sizes.state), dtype=np.int32)
        self._all = np.ones(n, dtype=np.bool_)
        self._held = np.zeros(n, dtype=np.bool_)
        self._chance: ChanceSource | None = None
        self._hold = False
        self.copy = copy
        self._started = False

    @property
    def threads(self) -> int:
        """How many threads step the games (results are the same for every count)."""
        return self._threads

    @threads.setter
    def threads(self, threads: int | None) -> None:
        self._threads = check_threads(threads)

    @property
    def chance(self) -> ChanceSource | None:
        """An injected chance source (``dicearena.envs.common.chance``), or ``None``: the seeded stream (``rng``). A
        source's outcomes are checked unless it is ``trusted``; a failing source or a refused outcome raises and changes
        nothing (a source is not rewound)."""
        return self._chance

    @chance.setter
    def chance(self, source: ChanceSource | None) -> None:
        if source is not None and not callable(getattr(source, "outcome", None)):
            raise TypeError(f"chance must have outcome(engine, state, out, words) "
                f"(dicearena.envs.common.chance), got {source!r}")
        self._chance = source

    @property
    def hold_restarts(self) -> bool:
        return self._hold

    @hold_restarts.setter
    def hold_restarts(self, hold: bool) -> None:
        if hold and self.num_envs != 1:
            raise ValueError(f"{self.spec.title} batched engine: hold_restarts is for one game (B = 1)")
        self._hold = bool(hold)

    @property
    def held(self) -> np.ndarray:
        """(B,) bool: the games that ended and wait for ``reset()`` (``hold_restarts``)."""
        return self._held.copy()

    @property
    def states(self) -> np.ndarray:
        """The engine states (B, S), a read-only view (planning agents read them; only ``step`` changes them)."""
        return read_only(self._states)

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """Start all B games; ``seed`` reseeds the chance stream (later restarts continue it)."""
        seed = check_seed(seed)
        saved = self.snapshot() if self._chance is not None and self._started else None
        if seed is not None:
            self._streams = stream_keys(seed, self.num_envs)
            reseed = getattr(self._chance, "seed", None)
            if callable(reseed):
                reseed(seed)
        self._done[:] = 0
        self._rewards[:] = 0.0
        self._held[:] = False
        if self._chance is None:
            self._keyed("keyed_start", self._states, *self._records(), self._words, self._outcomes, self._streams,
                        self._obs, self._masks, self._seat_buffer)  # fmt: skip
        else:
            self._kernels.range_start(self._states, 0, self.num_envs, self._header, self._rewards, self._done)
            self._undoing(saved, False)
        self._done[:] = 0
        self._rewards[:] = 0.0
        self._started = True
        return self._out(self._obs), self._out(self._masks), {"to_act": self.to_act_now(), "acting": self.acting_now()}

    def step(
        self, actions: Any, active: Any = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One decision in every game (a round of every deciding seat's, in a simultaneous game), or only where
        ``active`` (bool (B,); the others wait, their actions ignored). A bad or illegal action anywhere changes
        nothing and raises, naming the game and seat."""
        if not self._started:
            raise RuntimeError(f"{self.spec.title} batched engine: call reset() before step()")
        actions = self._check_actions(actions)
        active = self._all if active is None else self._check_active(active)
        if self._chance is None:
            code = self._keyed("keyed_step", self._states, actions, active, *self._records(), self._words,
                               self._outcomes, self._streams, self._hold, self._obs, self._masks, self._seat_buffer)
            if code < 0:
                self._raise_illegal(-code - 1, actions)
            if self._hold and self._done.any():
                self._hold_games()
        else:
            k, n = self._kernels, self.num_envs
            code = k.range_check(self._states, actions, active, 0, n, self._seat_buffer)
            if code < 0:
                self._raise_illegal(-code - 1, actions)
            saved = self.snapshot()
            k.range_act(self._states, actions, active, 0, n, *self._records(), self._seat_buffer)
            self._undoing(saved, self._hold)
        ended = ended_games(self._done)
        info = {
            "to_act": self.to_act_now(),
            "acting": self.acting_now(),
            "ended": ended,
            "final_rewards": self._final_rewards[ended].astype(np.float32),
            "final_observation": self._final_obs[ended],
            "final_state": self._final_states[ended],
        }
        return (self._out(self._obs), self._out(self._masks), self._out(self._rewards), self._done == TERMINATED,
                self._done == TRUNCATED, info)  # fmt: skip

    def snapshot(self) -> dict[str, Any]:
        """Everything ``step`` changes, so a caller can undo a step that failed half-way (``restore``)."""
        keys = ("_states", "_obs", "_masks", "_rewards", "_done", "_final_rewards", "_final_obs", "_final_states",
                "_seats", "_acting", "_held", "_streams")  # fmt: skip
        return {k: getattr(self, k).copy() for k in keys}

    def restore(self, saved: dict[str, Any]) -> None:
        for key, value in saved.items():
            getattr(self, key)[...] = value

    def __getstate__(self) -> dict[str, Any]:
        out = self.__dict__.copy()  # a spec's functions and the kernel module do not pickle; the game's id does
        out["spec"], out["_kernels"] = spec_reference(self.spec), None
        return out

    def __setstate__(self, saved: dict[str, Any]) -> None:
        self.__dict__.update(saved)
        self.spec = resolve_spec(*saved["spec"])
        self._kernels = self.spec.kernel_module()

    def _out(self, array: np.ndarray) -> np.ndarray:
        return array.copy() if self.copy else array

    def legal_actions(self, game: int, seat: int | None = None) -> list[int]:
        """The legal ids in ``game`` (for ``seat``, in a simultaneous game)."""
        mask = self._masks[game] if seat is None or not self.simultaneous else self._masks[game, seat]
        if mask.ndim != 1:
            raise ValueError(f"{self.spec.title} is simultaneous: name the seat, legal_actions(game, seat)")
        return np.flatnonzero(mask).tolist()

    # --- internals

    @property
    def _seat_buffer(self) -> np.ndarray:
        """Who decides: the seat to move per game (B,), or a simultaneous game's deciding seats (B, P)."""
        return self._acting if self.simultaneous else self._seats

    def _records(self) -> tuple[np.ndarray, ...]:
        """The buffers every kernel records a step into (the loops' ``head .. pot``)."""
        return (self._header, self._rewards, self._done, self._final_rewards, self._final_obs, self._final_states,
                self._pot)  # fmt: skip

    def _keyed(self, name: str, *args: Any) -> Any:
        """The keyed driver ``name`` called on ``args`` plus its chunks: serial, one chunk, on one thread (or one
        game); else, while ``thread_choice`` measures it faster (a busy machine can make it slower), the parallel
        build over ``CHUNKS_PER_THREAD`` chunks per thread, each thread taking the next chunk when it is done with
        one (numba's chunk size 1: dynamic scheduling), so a core that runs slower than the other (seen on this VM:
        25% apart) does less of the batch instead of holding up the step."""
        serial = getattr(self._kernels, name)
        if self._threads == 1 or self.num_envs == 1:
            return serial(*args, self._codes[:1])
        return self.thread_choice.run(self.num_envs, lambda: serial(*args, self._codes[:1]),
                                      lambda: self._parallel(name, args))  # fmt: skip

    def _parallel(self, name: str, args: tuple[Any, ...]) -> Any:
        numba.set_num_threads(self._threads)
        before = numba.set_parallel_chunksize(1)
        try:
            chunks = min(self.num_envs, CHUNKS_PER_THREAD * self._threads)
            return getattr(self._kernels, f"{name}_par")(*args, self._codes[:chunks])
        finally:
            numba.set_parallel_chunksize(before)

    def _hold_games(self) -> None:
        """B = 1 with ``hold_restarts``: the game ended; it waits for ``reset()`` with no seat to act."""
        self._held[:] = True
        self._seats[:] = NOBODY
        self._acting[:] = 0
        self._masks[:] = 0

    def to_act_now(self) -> np.ndarray:
        """(B,): the seat each game waits for (``SIMULTANEOUS`` where several decide at once)."""
        return np.full(self.num_envs, SIMULTANEOUS, dtype=np.int64) if self.simultaneous else self._seats.copy()

    def acting_now(self) -> np.ndarray:
        """(B, P) bool: the seats that decide now."""
        if self.simultaneous:
            return self._acting != 0
        return seats_acting(self._seats, self.num_players)  # compiled: a serial cost of every step (step_info)

    def _undoing(self, saved: dict[str, Any] | None, hold: bool) -> None:
        """The injected source's chance events (``_roll_given``), then every game observed; if the source fails,
        everything as ``saved`` (if given) again."""
        try:
            held = (hold and self._done.any()) or self._roll_given(hold)
        except BaseException:
            if saved is not None:
                self.restore(saved)
            raise
        if held:
            self._hold_games()
        else:
            self._kernels.range_encode(self._states, 0, self.num_envs, self._obs, self._masks, self._seat_buffer)

    def _roll_given(self, hold: bool) -> bool:
        """The injected source's chance events, game by game (``given_outcome`` checks each); a game that ends at
        one is recorded and restarted as in the compiled loops (``batch_loops.settle_range``). True if one ended and
        ``hold`` keeps it."""
        E, kernels = self.spec.engine, self._kernels
        potentials = getattr(E, "shaping_potentials", None)
        words = max(1, self.sizes.words)
        for b in range(self.num_envs):
            state, pot = self._states[b], self._pot[b]
            while E.chance_words(state) > 0:
                outcome = given_outcome(self._chance, self.spec, self.config, state, self._outcomes[b], words)
                if potentials is not None:
                    potentials(state, pot[0])
                kernels.aec_chance(state, outcome)
                ended = E.status(state) != 0
                if ended and self._done[b] != 0:  # as in batch_loops.settle_range: one end per step
                    E.init_state(state, self._header)
                    continue
                if ended:  # batch_loops._finish
                    self._done[b] = E.status(state)
                    E.rewards(state, self._final_rewards[b])
                    self._rewards[b] += self._final_rewards[b]
                    for s in range(self.num_players):
                        E.observe(state, s, self._final_obs[b, s])
                    self._final_states[b] = state
                    E.init_state(state, self._header)
                if potentials is not None:  # as in batch_loops.settle_range
                    pay_shaping_python(state, ended, pot[0], pot[1], self._rewards[b], potentials)
                if ended and hold:
                    return True
        return False

    def _check_actions(self, actions: Any) -> np.ndarray:
        a = np.asarray(actions)
        shape = (self.num_envs, self.num_players) if self.simultaneous else (self.num_envs,)
        if a.shape == (self.num_envs, 1) and not self.simultaneous:
            a = a[:, 0]
        if a.shape != shape:
            what = "one per game and seat (ignored if it does not decide)" if self.simultaneous else "one per game"
            raise ValueError(f"{self.spec.title} batched engine: actions must have shape {shape}, {what}, got "
                             f"{a.shape}")  # fmt: skip
        if a.dtype.kind not in "iu":
            raise TypeError(f"{self.spec.title} batched engine: actions must be integers in 0..{self.num_actions - 1}, "
                            f"got dtype {a.dtype}")  # fmt: skip
        return np.ascontiguousarray(a, dtype=np.int64)

    def _check_active(self, active: Any) -> np.ndarray:
        a = np.asarray(active)
        if a.shape != (self.num_envs,) or a.dtype != np.bool_:
            raise ValueError(f"{self.spec.title} batched engine: active must be a bool array of shape "
                             f"({self.num_envs},), got {a.dtype} {a.shape}")  # fmt: skip
        return np.ascontiguousarray(a)

    def _raise_illegal(self, code: int, actions: np.ndarray) -> None:
        if self.simultaneous:
            b, seat = divmod(code, self.num_players)
            action = int(actions[b, seat])
        else:
            b, action = code, int(actions[code])
            seat = int(self.spec.engine.to_act(self._states[b]))
        state = self._states[b]
        why = self.spec.explain_illegal(self.config, state, seat, action) if 0 <= action < self.num_actions else (
            f"actions are 0..{self.num_actions - 1}")  # fmt: skip
        raise ValueError(f"{self.spec.title} game {b}, player_{seat}: action {action} is illegal ({why}); legal "
                         f"actions: {self.legal_actions(b, seat)}")  # fmt: skip
