"""Speed on a busy machine: the engines' threads and default training, with other processes keeping cores busy.

Usage: ``python bench/bench_contention.py [GAME ...] [--seconds 3] [--batch 16384] [--rounds 3] [--train-seconds 15]
[--no-training]``. The load is the bench's own: processes spinning ``while True: pass`` (started here, each in a
session of its own, stopped at the end), so every machine measures the same thing. Each round measures both sides
of a ratio one after the other, and the ratio is of the medians over the rounds. Not pinned: the point is sharing
the cores.
Targets (issue 22), exit 1 if one is missed:

- with one core busy, every game's batched engine at ``threads=2`` at least 0.9x itself at ``threads=1`` (the
  engine's steps/s, inside ``BatchedGame.step``, the loop of ``bench/bench_threads.py``);
- the bundled ``easy_money_greed`` training recipe, default settings, with two cores busy at least 0.5x its own
  steps/s on the quiet machine (MaskablePPO's ``learn``, timed after a warm-up rollout: start-up and compiling
  do not count).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from statistics import median
from typing import Any

from dicearena.bench._common import batched_steps_per_second, chosen_specs, parser  # noqa: E402

ENGINE_TARGET = 0.9  # threads=2 / threads=1, one core busy
TRAINING_TARGET = 0.5  # busy / quiet, two cores busy


@contextmanager
def busy(processes: int) -> Iterator[None]:
    """``processes`` busy loops for the duration of the block: separate processes in sessions of their own, as
    other users' or other terminals' jobs are (with the kernel's autogroup scheduling, as here, CPU time is shared
    between sessions first; loops in this bench's own session would take this process's share instead)."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
             for _ in range(processes)]  # fmt: skip
    try:
        time.sleep(0.3)  # the scheduler has spread them before anything is timed
        yield
    finally:
        for loop in loops:
            loop.kill()
        for loop in loops:
            loop.wait()


def engine_ratios(games: list[str], args: Any) -> bool:
    """Every game's engine at 2 threads against 1, one core busy; True if every ratio meets ``ENGINE_TARGET``.
    Beside them, 2 threads on every step (``ThreadChoice("parallel")``, the engine before issue 22), for scale."""
    from dicearena.envs.common.batching import ThreadChoice
    from dicearena.envs.common.game_batch import BatchedGame

    print(f"\nbatched engines, one core busy (threads=2 chooses serial or parallel steps by the clock; target >= "
          f"{ENGINE_TARGET}x; B = {args.batch})")  # fmt: skip
    print(f"{'game':<22}{'threads=1':>14}{'threads=2':>14}{'ratio':>8}{'always 2':>14}{'ratio':>8}")
    ok = True
    for game in games:
        engines = {side: BatchedGame(game, args.batch, seed=0, threads=1 if side == "one" else 2, copy=False)
                   for side in ("one", "two", "always")}  # fmt: skip
        engines["always"].thread_choice = ThreadChoice("parallel")
        rates: dict[str, list[float]] = {side: [] for side in engines}
        with busy(1):
            for engine in engines.values():  # warm-up: compiling must not count
                batched_steps_per_second(engine, 0.2, engine_only=True)
            for _ in range(args.rounds):
                for side, engine in engines.items():
                    rates[side].append(batched_steps_per_second(engine, args.seconds, engine_only=True))
        one, two, always = (median(rates[side]) for side in engines)
        passed = two / one >= ENGINE_TARGET
        ok &= passed
        print(f"{game:<22}{one:>14,.0f}{two:>14,.0f}{two / one:>7.2f}x{always:>14,.0f}{always / one:>7.2f}x  "
              f"{'PASS' if passed else 'FAIL'}")  # fmt: skip
    return ok


def greed_training_rate(seconds: float) -> Callable[[], float]:
    """A MaskablePPO on the bundled Greed recipe, built as ``dicearena train`` builds it, warmed up; returns a
    function that trains it for ``seconds`` more and gives the steps/s."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    from dicearena.agents.evaluation.recipes import recipe_path
    from dicearena.agents.training.tasks import make_training_env
    from dicearena.agents.training.train import load_recipe

    recipe = load_recipe(recipe_path("easy_money_greed"))
    torch.set_num_threads(recipe.training.torch_threads)
    env = make_training_env(recipe.task.id, recipe.task.config, recipe.task.num_envs, recipe.training.seed)
    model = recipe.algorithm.build(env, recipe.training.seed, tempfile.mkdtemp(prefix="bench_contention_"))
    rollout = model.n_steps * env.num_envs
    model.learn(total_timesteps=2 * rollout)  # warm-up: compiling, torch's first calls

    class Stop(BaseCallback):
        def _on_training_start(self) -> None:
            self.started = time.perf_counter()

        def _on_step(self) -> bool:
            return time.perf_counter() - self.started < seconds

    def rate() -> float:
        before, started = model.num_timesteps, time.perf_counter()
        model.learn(total_timesteps=10**9, callback=Stop(), reset_num_timesteps=False)
        return (model.num_timesteps - before) / (time.perf_counter() - started)

    return rate


def training_ratio(args: Any) -> bool:
    """Default Greed training with two cores busy against quiet; True if it meets ``TRAINING_TARGET``."""
    print(f"\nGreed training (configs/easy_money_greed.yaml, default settings), two cores busy against quiet "
          f"(target >= {TRAINING_TARGET}x)")  # fmt: skip
    rate = greed_training_rate(args.train_seconds)
    quiet, loaded = [], []
    for _ in range(args.rounds):
        quiet.append(rate())
        with busy(2):
            loaded.append(rate())
    q, b = median(quiet), median(loaded)
    passed = b / q >= TRAINING_TARGET
    print(f"{'quiet':>14}{'2 cores busy':>14}{'ratio':>8}")
    print(f"{q:>14,.0f}{b:>14,.0f}{b / q:>7.2f}x  {'PASS' if passed else 'FAIL'}   (steps/s)")
    return passed


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("games", nargs="*", help="registered game ids (default: every registered game)")
    p.add_argument("--rounds", type=int, default=3, help="measurements of each side per ratio (the median counts)")
    p.add_argument("--train-seconds", type=float, default=15.0, help="timed training per measurement")
    p.add_argument("--no-training", action="store_true", help="the engines only")
    p.add_argument("--no-engines", action="store_true", help="the training only")
    p.set_defaults(batch=16384)
    args = p.parse_args(argv)
    import dicearena.envs  # noqa: F401  (registers the suite's games)
    from dicearena.envs.common.batching import max_threads

    games = [spec.id for spec in chosen_specs(p, args.games)]
    if max_threads() < 2 or (os.cpu_count() or 1) < 2:
        p.error("this benchmark needs 2 cores and numba's pool of 2 threads")
    if args.rounds < 1 or args.seconds <= 0 or args.train_seconds <= 0:
        p.error("--rounds must be at least 1 and --seconds / --train-seconds positive")
    print(f"{os.cpu_count()} cores; busy loops: {sys.executable} -c 'while True: pass'")
    ok = True
    if not args.no_engines:
        ok &= engine_ratios(games, args)
    if not args.no_training:
        ok &= training_ratio(args)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
