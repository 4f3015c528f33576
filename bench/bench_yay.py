"""Throughput of Yay!'s faces against PettingZoo's connect_four_v3, from one run.

Usage: ``python bench/bench_yay.py [--seconds 3] [--batch 4096] [--cpu N | --no-pin]``.

A "step" is one decision played (one game advanced by one action, the throws in between included); random
legal actions throughout, observations and masks produced every step. Target: ``yay_v0.env()`` >= 1x
connect_four's steps/s. The batched engine's ratio is reported without a target: no issue has set one, and at
396 floats per observation (four times Extra!'s) writing the observations of B = 4096 games is most of a step.
Pinned to one core by default.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import aec_steps_per_second, connect_four_steps_per_second, parser, pin, print_ratios  # noqa: E402
from bench._common import batched_steps_per_second as _batched  # noqa: E402
from envs.yay.batched import BatchedYay  # noqa: E402

TARGETS = {"yay_v0.env()": 1.0}


def batched_steps_per_second(batch: int, seconds: float, seed: int = 0) -> float:
    return _batched(BatchedYay(batch, seed=seed, copy=False), batch, seconds, seed)


def main(argv: list[str] | None = None) -> int:
    args = parser(__doc__.splitlines()[0]).parse_args(argv)
    pin(args)

    from envs import yay_v0

    # Warm-up: numba compilation / cache loading must not count.
    batched_steps_per_second(min(args.batch, 64), 0.05)
    aec_steps_per_second(yay_v0.env, 0.05)

    results = {
        "connect_four_v3.env()": connect_four_steps_per_second(args.seconds),
        "yay_v0.env()": aec_steps_per_second(yay_v0.env, args.seconds),
        "batched engine": batched_steps_per_second(args.batch, args.seconds),
    }
    ok = print_ratios(results, "connect_four_v3.env()", TARGETS)
    print(f"(batched: B = {args.batch}; random legal actions; observation and mask of the player to move every step)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
