"""Throughput of Easy Come, Easy Go's faces against PettingZoo's connect_four_v3, from one run.

Usage: ``python bench/bench_easy_come_easy_go.py [--seconds 3] [--batch 4096] [--cpu N | --no-pin]``.

A "step" is one decision played (one game advanced by one action); random legal actions throughout,
observations and masks produced every step. Targets: batched engine >= 200x connect_four's steps/s,
``easy_come_easy_go_v0.env()`` >= 1.5x. Pinned to one core by default so the ratios compare like with like.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.random_agent import sample_masked  # noqa: E402
from bench._common import aec_steps_per_second, connect_four_steps_per_second, parser, pin, print_ratios  # noqa: E402
from bench._common import batched_steps_per_second as _batched  # noqa: E402
from envs.easy_come_easy_go.batched import BatchedEasyComeEasyGo  # noqa: E402
from envs.easy_come_easy_go.turn_task import EasyComeEasyGoTurnVecEnv  # noqa: E402

TARGETS = {"batched engine": 200.0, "easy_come_easy_go_v0.env()": 1.5}


def batched_steps_per_second(batch: int, seconds: float, seed: int = 0) -> float:
    return _batched(BatchedEasyComeEasyGo(batch, seed=seed), batch, seconds, seed)


def turn_vec_steps_per_second(batch: int, seconds: float, seed: int = 0) -> float:
    venv = EasyComeEasyGoTurnVecEnv(batch, seed=seed)
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

    from envs import easy_come_easy_go_v0

    # Warm-up: numba compilation / cache loading must not count.
    batched_steps_per_second(min(args.batch, 64), 0.05)
    turn_vec_steps_per_second(min(args.batch, 64), 0.05)
    aec_steps_per_second(easy_come_easy_go_v0.env, 0.05)

    results = {
        "connect_four_v3.env()": connect_four_steps_per_second(args.seconds),
        "easy_come_easy_go_v0.env()": aec_steps_per_second(easy_come_easy_go_v0.env, args.seconds),
        "batched engine": batched_steps_per_second(args.batch, args.seconds),
        "turn-task vec env": turn_vec_steps_per_second(args.batch, args.seconds),
    }
    ok = print_ratios(results, "connect_four_v3.env()", TARGETS)
    print(f"(batched and vec env: B = {args.batch}; random legal actions; observations and masks every step)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
