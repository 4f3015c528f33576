"""Throughput of Easy Come, Easy Go's faces against PettingZoo's connect_four_v3, from one run.

Usage: ``python bench/bench_easy_come_easy_go.py [--seconds 3] [--batch 4096] [--cpu N | --no-pin]``.

A "step" is one decision played (one game advanced by one action); random legal actions throughout,
observations and masks produced every step. Targets: batched engine >= 200x connect_four's steps/s,
``easy_come_easy_go_v0.env()`` >= 1.5x. Pinned to one core by default so the ratios compare like with like.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.random_agent import sample_masked  # noqa: E402
from envs.easy_come_easy_go.batched import BatchedEasyComeEasyGo  # noqa: E402
from envs.easy_come_easy_go.turn_task import EasyComeEasyGoTurnVecEnv  # noqa: E402

TARGETS = {"batched engine": 200.0, "easy_come_easy_go_v0.env()": 1.5}


def aec_steps_per_second(make_env: Callable[[], object], seconds: float, seed: int = 0) -> float:
    """The usual PettingZoo loop (env.last(), random legal action from the mask); counts actions played."""
    env = make_env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                env.reset()
                if time.perf_counter() > deadline:
                    break
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
        if steps % 512 == 0 and time.perf_counter() > deadline:
            break
    return steps / (time.perf_counter() - start)


def batched_steps_per_second(batch: int, seconds: float, seed: int = 0) -> float:
    engine = BatchedEasyComeEasyGo(batch, seed=seed)
    rng = np.random.default_rng(seed)
    _, masks, _ = engine.reset()
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, masks, *_ = engine.step(sample_masked(masks, rng))
        calls += 1
    return calls * batch / (time.perf_counter() - start)


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="timed duration of each measurement")
    parser.add_argument("--batch", type=int, default=4096, help="games per batched / vectorised step")
    parser.add_argument("--cpu", type=int, default=None, help="core to pin to (default: the last allowed)")
    parser.add_argument("--no-pin", action="store_true", help="do not pin the process to one core")
    args = parser.parse_args(argv)

    if not args.no_pin and hasattr(os, "sched_setaffinity"):
        cpu = args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        print(f"pinned to cpu {cpu}")

    from pettingzoo.classic import connect_four_v3

    from envs import easy_come_easy_go_v0

    # Warm-up: numba compilation / cache loading must not count.
    batched_steps_per_second(min(args.batch, 64), 0.05)
    turn_vec_steps_per_second(min(args.batch, 64), 0.05)
    aec_steps_per_second(easy_come_easy_go_v0.env, 0.05)
    aec_steps_per_second(connect_four_v3.env, 0.05)

    results = {
        "connect_four_v3.env()": aec_steps_per_second(connect_four_v3.env, args.seconds),
        "easy_come_easy_go_v0.env()": aec_steps_per_second(easy_come_easy_go_v0.env, args.seconds),
        "batched engine": batched_steps_per_second(args.batch, args.seconds),
        "turn-task vec env": turn_vec_steps_per_second(args.batch, args.seconds),
    }
    peer = results["connect_four_v3.env()"]
    ok = True
    print(f"{'face':<30}{'steps/s':>14}{'x connect_four':>16}  target")
    for name, rate in results.items():
        line = f"{name:<30}{rate:>14,.0f}{rate / peer:>15.1f}x"
        if name in TARGETS:
            passed = rate / peer >= TARGETS[name]
            ok &= passed
            line += f"  >= {TARGETS[name]:g}x {'PASS' if passed else 'FAIL'}"
        print(line)
    print(f"(batched and vec env: B = {args.batch}; random legal actions; observations and masks every step)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
