"""Throughput of Extra!'s faces against PettingZoo's connect_four_v3, from one run.

Usage: ``python bench/bench_extra.py [--seconds 3] [--batch 4096] [--players 2] [--cpu N | --no-pin]``;
the agents' mean solitaire scores are an evaluation: ``python evaluate.py configs/eval_extra_solitaire.yaml``.

What a "step" is: one decision played, as in bench_easy_come_easy_go.py: one player's action in one game
(connect_four and ``extra_v0.env()``: one ``env.step`` with an action). ``parallel_env()`` and the batched engine
decide for every player still playing at once, so one of their ``step`` calls counts as many steps as seats
acted (batched: summed over the B games; a finished seat sends -1 and does not count); random legal actions;
observations and masks of every seat produced each step. Rounds/s (games advanced by one throw) are
printed too. Target: batched engine >= 200x connect_four's steps/s. Pinned to one core by default so the
ratios compare like with like.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.random_agent import sample_masked  # noqa: E402
from bench._common import aec_steps_per_second, connect_four_steps_per_second, parser, pin, print_ratios  # noqa: E402
from envs.extra.batched import BatchedExtra  # noqa: E402

TARGETS = {"batched engine": 200.0}


def parallel_steps_per_second(players: int, seconds: float, seed: int = 0) -> float:
    """The usual Parallel loop: a random legal action per live agent from its mask; counts decisions."""
    from envs import extra_v0

    env = extra_v0.parallel_env(num_players=players)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = rounds = 0
    start = time.perf_counter()
    while True:
        actions = {}
        for agent in env.agents:
            legal = np.flatnonzero(obs[agent]["action_mask"])
            actions[agent] = int(legal[rng.integers(len(legal))])
        obs, *_ = env.step(actions)
        steps += len(actions)
        rounds += 1
        if not env.agents:
            obs, _ = env.reset()
        if rounds % 256 == 0 and time.perf_counter() - start > seconds:
            break
    return steps / (time.perf_counter() - start)


def batched_steps_per_second(batch: int, players: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    """(decisions/s, rounds/s) of the batched engine."""
    engine = BatchedExtra(batch, num_players=players, seed=seed)
    rng = np.random.default_rng(seed)
    _, masks, _ = engine.reset()
    calls = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = sample_masked(masks.reshape(-1, masks.shape[-1]), rng).reshape(batch, players)
        decisions += int(np.count_nonzero(actions >= 0))  # -1: the seat has no legal action (finished)
        _, masks, *_ = engine.step(actions)
        calls += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, calls * batch / elapsed


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=2, help="players per game (1..6)")
    args = p.parse_args(argv)
    pin(args)

    from envs import extra_v0

    def extra_env() -> object:
        return extra_v0.env(num_players=args.players)

    # Warm-up: numba compilation / cache loading must not count.
    batched_steps_per_second(min(args.batch, 64), args.players, 0.05)
    parallel_steps_per_second(args.players, 0.05)
    aec_steps_per_second(extra_env, 0.05)

    results = {
        "connect_four_v3.env()": connect_four_steps_per_second(args.seconds),
        "extra_v0.env()": aec_steps_per_second(extra_env, args.seconds),
        "extra_v0.parallel_env()": parallel_steps_per_second(args.players, args.seconds),
    }
    results["batched engine"], batched_rounds = batched_steps_per_second(args.batch, args.players, args.seconds)
    ok = print_ratios(results, "connect_four_v3.env()", TARGETS)
    print(f"(batched engine: {batched_rounds:,.0f} rounds/s of one game; {args.players} players; B = {args.batch})")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
