"""Throughput of Easy Come, Easy Go's faces against PettingZoo's connect_four_v3, from one run.

Usage: ``python bench/bench_easy_come_easy_go.py [--seconds 3] [--batch 4096] [--cpu N | --no-pin]``.

A "step" is one decision played (one game advanced by one action); random legal actions throughout,
observations and masks produced every step. ``easy_come_easy_go_v0.env()`` and the batched engine are the generic
contract faces (``GameAEC``, ``BatchedGame``), measured as ``bench_game.py easy_come_easy_go`` measures them, against
the spec's ``bench_targets`` (batched >= 200x connect_four's steps/s, ``env()`` >= 1.5x); this adds the turn task's
vec env. Pinned to one core by default so the ratios compare like with like.
"""

from __future__ import annotations

import time

import numpy as np

from dicearena.agents.random_agent import sample_masked  # noqa: E402
from dicearena.bench._common import aec_steps_per_second, connect_four_steps_per_second, parser, pin, print_ratios  # noqa: E402
from dicearena.bench.bench_game import batched_steps_per_second  # noqa: E402
from dicearena.envs.easy_come_easy_go.game import EASY_COME_EASY_GO  # noqa: E402
from dicearena.envs.easy_come_easy_go.turn_task import EasyComeEasyGoTurnGames  # noqa: E402


def turn_vec_steps_per_second(batch: int, seconds: float, seed: int = 0) -> float:
    venv = EasyComeEasyGoTurnGames(batch, seed=seed)
    rng = np.random.default_rng(seed)
    venv.reset()
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        venv.step(sample_masked(venv.action_masks(), rng))
        calls += 1
    return calls * batch / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    args = parser(__doc__.splitlines()[0]).parse_args(argv)
    pin(args)

    from dicearena.envs import easy_come_easy_go_v0

    game = EASY_COME_EASY_GO.id
    # Warm-up: numba compilation / cache loading must not count.
    batched_steps_per_second(game, args.batch, 0.05)  # at the measured size (the sampler's parallel build too)
    turn_vec_steps_per_second(min(args.batch, 64), 0.05)
    aec_steps_per_second(easy_come_easy_go_v0.env, 0.05)

    names = {"env": "easy_come_easy_go_v0.env()", "batched": f"BatchedGame, B = {args.batch}"}
    results = {
        "connect_four_v3.env()": connect_four_steps_per_second(args.seconds),
        names["env"]: aec_steps_per_second(easy_come_easy_go_v0.env, args.seconds),
        names["batched"]: batched_steps_per_second(game, args.batch, args.seconds),
        f"turn-task vec env, B = {args.batch}": turn_vec_steps_per_second(args.batch, args.seconds),
    }
    targets = {names[k]: v for k, v in EASY_COME_EASY_GO.bench_targets.items() if k in names}
    ok = print_ratios(results, "connect_four_v3.env()", targets)
    print("(random legal actions; observations and masks every step)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
