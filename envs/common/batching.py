"""Pieces every game's batched engine and vectorised task env share (no rules here).

- ``MAX_BATCH`` / ``check_num_envs``: the batch-size contract of every batched engine; ``check_threads``: its
  thread count's.
- ``ThreadChoice``: whether a kernel's parallel build pays, decided by the clock (a shared machine).
- ``read_only``: the read-only view of engine states the batched faces hand out.
- ``LegalDiscrete``: a ``Discrete`` whose blind ``sample()`` draws a legal action, so generic tools (Gymnasium's
  and SB3's env checkers, quick random rollouts) never hit the engines' illegal-action errors.
The SB3 ``VecEnv`` protocol is in ``vec_games.py``; ``vec_env.py`` holds the SB3 subclasses (it alone imports
stable-baselines3).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import numpy as np
from gymnasium import spaces

__all__ = ["MAX_BATCH", "LegalDiscrete", "ThreadChoice", "check_num_envs", "check_threads", "max_threads", "read_only",
           "start_thread_pool"]

T = TypeVar("T")

MAX_BATCH = 65536


def check_num_envs(num_envs: Any) -> int:
    """``num_envs`` as an int in 1..MAX_BATCH, or a TypeError / ValueError saying what is allowed."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer):
        raise TypeError(f"num_envs must be an int in 1..{MAX_BATCH}, got {type(num_envs).__name__}")
    if not 1 <= num_envs <= MAX_BATCH:
        raise ValueError(f"num_envs must be in 1..{MAX_BATCH}, got {num_envs}")
    return int(num_envs)


def max_threads() -> int:
    """The most threads a batched engine can use: numba's pool (every core unless ``NUMBA_NUM_THREADS`` says less)."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


def start_thread_pool() -> None:
    """Start numba's thread pool now, keeping torch's thread count if torch is loaded.

    Why: here numba's pool and torch share one OpenMP runtime, and numba starting its pool (at its first parallel
    call, or here) sets that runtime's thread count to numba's, silently undoing an earlier
    ``torch.set_num_threads(1)``. Measured (issue 22): a (2048, 64) ``torch.tanh`` went from 0.34 ms to 7.7 ms, and
    with two other busy processes default Greed training fell to 0.05x of its quiet speed. Started when
    ``dicearena.envs`` is imported, so a thread count set after that stays set.
    """
    import sys

    import numba

    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    numba.get_num_threads()  # launches the pool (the threading layer and its OpenMP runtime)
    if torch is not None and torch.get_num_threads() != before:
        torch.set_num_threads(before)


def check_threads(threads: Any) -> int:
    """``threads`` as an int in 1..``max_threads()`` (``None``: all of them), or a TypeError / ValueError saying
    what is allowed."""
    most = max_threads()
    if threads is None:
        return most
    if isinstance(threads, bool) or not isinstance(threads, int | np.integer):
        raise TypeError(f"threads must be an int in 1..{most} or None (all cores), got {type(threads).__name__}")
    if not 1 <= threads <= most:
        raise ValueError(f"threads must be in 1..{most} (numba's thread pool on this machine) or None, got {threads}")
    return int(threads)


class ThreadChoice:
    """Runs a kernel's serial or parallel build, whichever the clock says is faster per item now.

    Why: a parallel step ends when its slowest thread does, and on a shared machine a thread whose core another
    process holds waits a scheduler slice; with one core busy, two threads ran at 0.18-0.64x of one (issue 22). The
    builds compute the same thing (every game draws its own stream), so the choice changes speed only. Both builds
    are timed first (three calls each, the first left out: it may compile; the faster of the other two counts, as a
    thread pool's first call can be slow); then the faster build runs, and the other
    is re-timed now and then: after ``retry`` calls, twice as many each time it loses again (``first_retry`` once
    it wins), and never before the time the last losing retry cost is at most ``overhead`` of the time run since,
    so re-timing a build however slow costs at most that share. ``mode``: ``"auto"``; ``"parallel"`` /
    ``"serial"`` always run that build (tests of a build; the speed benchmarks' fixed sides).
    """

    WARM_UP = 3  # timings of each build before the first choice

    def __init__(self, mode: Literal["auto", "parallel", "serial"] = "auto", first_retry: int = 16,
                 longest_retry: int = 1024, weight: float = 0.25, overhead: float = 0.02) -> None:  # fmt: skip
        if mode not in ("auto", "parallel", "serial"):
            raise ValueError(f"mode must be 'auto', 'parallel' or 'serial', got {mode!r}")
        self.mode = mode
        self.first_retry, self.longest_retry, self.weight, self.overhead = first_retry, longest_retry, weight, overhead
        self.cost: dict[bool, float | None] = {False: None, True: None}  # seconds per item, smoothed
        self._seen = {False: 0, True: 0}
        self._best = True
        self._retry = first_retry
        self._until_retry = first_retry
        self._lost = 0.0  # seconds the last losing retry cost beyond the best build
        self._since = 0.0  # seconds run on the best build since

    def parallel(self) -> bool:
        """Whether the next call should run the parallel build."""
        if self.mode != "auto":
            return self.mode == "parallel"
        for build in (True, False):  # each build timed WARM_UP times (the first may compile) before any choice
            if self._seen[build] < self.WARM_UP:
                return build
        if self._until_retry <= 0 and self._lost <= self.overhead * self._since:
            return not self._best
        return self._best

    def record(self, parallel: bool, seconds: float, items: int) -> None:
        """One call's time: ``items`` (games, rows) in ``seconds`` on the ``parallel`` build or not."""
        self._seen[parallel] += 1
        if self.mode != "auto" or self._seen[parallel] == 1:
            return
        items = max(items, 1)
        cost, known = seconds / items, self.cost[parallel]
        if self._seen[parallel] <= self.WARM_UP:  # the best of the first timings: one slow start must not decide
            self.cost[parallel] = cost if known is None else min(known, cost)
            if min(self._seen.values()) == self.WARM_UP:  # both timed: choose, and wait before re-timing the loser
                self._best = self.cost[True] < self.cost[False]
                self._lost = abs(self.cost[True] - self.cost[False]) * items
            return
        best = self.cost[self._best]
        retry = parallel != self._best
        # a retry's sample replaces the estimate: that is as old as the last retry, and the load may have changed
        self.cost[parallel] = cost if retry else known + self.weight * (cost - known)
        faster = self.cost[True] < self.cost[False]
        if retry:  # the other build won, or lost again
            won = faster == parallel
            self._retry = self.first_retry if won else min(2 * self._retry, self.longest_retry)
            self._until_retry = self._retry
            self._lost = 0.0 if won else max(0.0, seconds - best * items)
            self._since = 0.0
        else:
            self._until_retry -= 1
            self._since += seconds
        self._best = faster

    def run(self, items: int, serial: Callable[[], T], parallel: Callable[[], T]) -> T:
        """``serial()`` or ``parallel()`` as :meth:`parallel` says, timed for the next choice."""
        use = self.parallel()
        started = time.perf_counter()
        result = parallel() if use else serial()
        self.record(use, time.perf_counter() - started, items)
        return result


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (callers may look at engine states, never change them behind its back)."""
    view = array.view()
    view.flags.writeable = False
    return view


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask draws a *legal* action for the decision the next ``step``
    meets, so generic tools (Gymnasium's and SB3's env checkers, quick random rollouts) never hit the engines'
    illegal-action errors (an error that changes nothing, by our conventions).

    That decision is the env's current one (``mask_source()``; all zero, episode over or not started: the
    ``fallback`` mask, default every action), unless a reset comes first. Gymnasium pairs ``action_space.seed(s)``
    with ``env.reset(seed=s)`` in either order, and its ``check_env`` seeds the space and samples *before*
    ``reset(seed=s)``, then steps that sample in the seeded game. So with ``env`` given, after ``seed(s)`` the next
    blind sample is drawn from the actions legal both now and at the first decision of the game ``reset(seed=s)``
    starts (played on a deep copy of ``env``), or from the latter's alone if no action is legal in both. The env
    calls ``game_started`` in ``reset``, which ends that look-ahead.
    """

    def __init__(
        self, n: int, mask_source: Callable[[], np.ndarray], fallback: np.ndarray | None = None,
        seed: int | None = None, env: Any = None,
    ) -> None:  # fmt: skip
        self._env = None  # a seed given here announces no game
        super().__init__(n, seed=seed)
        self._mask_source = mask_source
        self._fallback = np.ones(n, dtype=np.int8) if fallback is None else np.asarray(fallback, dtype=np.int8)
        self._env = env
        self._announced: int | None = None  # a seed(s) since the env's last reset: reset(seed=s) may come next

    def seed(self, seed: int | None = None) -> int:
        used = super().seed(seed)
        self._announced = seed if seed is not None and self._env is not None else None
        return used

    def game_started(self, seed: int | None) -> None:
        """The env started a game (``reset(seed=seed)``): a seed also seeds the space, so the rollout is
        reproducible; blind samples follow this game from now on."""
        if seed is not None:
            super().seed(seed)
        self._announced = None

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> np.int64:
        if mask is None and probability is None:
            mask = self._current_mask()
            if self._announced is not None:
                seeded, self._announced = self._first_mask(self._announced), None
                both = mask & seeded
                mask = both if both.any() else seeded
        return super().sample(mask=mask, probability=probability)

    def _current_mask(self) -> np.ndarray:
        mask = np.asarray(self._mask_source(), dtype=np.int8)
        return mask if mask.any() else self._fallback

    def _first_mask(self, seed: int) -> np.ndarray:
        """The mask at the first decision of the game ``env.reset(seed=seed)`` starts, on a copy (``env`` untouched)."""
        probe = copy.deepcopy(self._env)
        probe.reset(seed=seed)
        return probe.action_space._current_mask()
