"""What every game's throughput benchmark shares: the command line, pinning, the AEC loop, the ratio table.

Why one place: the games are compared with connect_four_v3 the same way, so their numbers compare too.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np

__all__ = [
    "aec_steps_per_second", "batched_steps_per_second", "chosen_specs", "connect_four_steps_per_second",
    "parallel_steps_per_second", "parser", "pin", "print_ratios", "random_actions",
]  # fmt: skip


def parser(description: str) -> argparse.ArgumentParser:
    """The options every benchmark takes: --seconds, --batch, --cpu, --no-pin."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--seconds", type=float, default=3.0, help="timed duration of each measurement")
    p.add_argument("--batch", type=int, default=4096, help="games per batched / vectorised step")
    p.add_argument("--cpu", type=int, default=None, help="core to pin to (default: the last allowed)")
    p.add_argument("--no-pin", action="store_true", help="do not pin the process to one core")
    return p


def chosen_specs(p: argparse.ArgumentParser, games: list[str]) -> list[object]:
    """The specs of the games named (none: every registered game); a typo is a usage error with the game's own
    message and its suggestion."""
    import dicearena.envs  # noqa: F401  (registers the suite's games)
    from dicearena.envs.common.contract import GAMES, game_spec

    try:
        return [game_spec(game) for game in games or sorted(GAMES)]
    except ValueError as error:
        p.error(str(error))


def pin(args: argparse.Namespace) -> None:
    """Pin the process to one core (unless --no-pin) so the ratios compare like with like."""
    if not args.no_pin and hasattr(os, "sched_setaffinity"):
        cpu = args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        print(f"pinned to cpu {cpu}")


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


def parallel_steps_per_second(make_env: Callable[[], object], seconds: float, seed: int = 0) -> float:
    """The usual PettingZoo Parallel loop: a random legal action per agent that decides (its mask is not all zero);
    counts decisions, as the AEC loop does."""
    env = make_env()
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = rounds = 0
    start = time.perf_counter()
    while True:
        actions = {}
        for agent in env.agents:
            legal = np.flatnonzero(obs[agent]["action_mask"])
            if legal.size:
                actions[agent] = int(legal[rng.integers(legal.size)])
        obs, *_ = env.step(actions)
        steps += len(actions)
        rounds += 1
        if not env.agents:
            obs, _ = env.reset()
        if rounds % 256 == 0 and time.perf_counter() - start > seconds:
            break
    return steps / (time.perf_counter() - start)


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """Random legal actions for a batched engine's masks, and the decisions they are: (B, A) masks, one per game;
    (B, P, A), a simultaneous game's, every seat with a legal action (a seat with none sends -1 and does not count)."""
    from dicearena.agents.random_agent import sample_masked

    if masks.ndim == 3:
        actions = sample_masked(masks.reshape(-1, masks.shape[-1]), rng).reshape(masks.shape[:2])
        return actions, int(np.count_nonzero(actions >= 0))
    return sample_masked(masks, rng), masks.shape[0]


def batched_steps_per_second(engine: object, seconds: float, seed: int = 0, engine_only: bool = False) -> float:
    """A batched engine's decisions/s: ``reset()`` then ``step`` with random legal actions from the masks
    (``reset`` and ``step`` return the masks second). Masks (B, P, A) are a simultaneous game's: every seat with a
    legal action decides, and each counts as a decision (a seat with none sends -1 and does not count).
    ``engine_only``: the clock runs only inside ``step`` (the engine's own throughput, not the random agent's)."""
    rng = np.random.default_rng(seed)
    _, masks, _ = engine.reset()
    decisions = 0
    inside = 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions, count = random_actions(masks, rng)
        decisions += count
        before = time.perf_counter()
        _, masks, *_ = engine.step(actions)
        inside += time.perf_counter() - before
    return decisions / (inside if engine_only else time.perf_counter() - start)


def connect_four_steps_per_second(seconds: float) -> float:
    """The peer every game is measured against: PettingZoo's connect_four_v3 in the same loop (warmed up)."""
    from pettingzoo.classic import connect_four_v3

    aec_steps_per_second(connect_four_v3.env, 0.05)
    return aec_steps_per_second(connect_four_v3.env, seconds)


def print_ratios(results: dict[str, float], peer: str, targets: dict[str, float]) -> bool:
    """The table of steps/s and multiples of ``results[peer]``, with PASS/FAIL per target; True if all pass."""
    base = results[peer]
    ok = True
    print(f"{'face':<30}{'steps/s':>14}{'x connect_four':>16}  target")
    for name, rate in results.items():
        line = f"{name:<30}{rate:>14,.0f}{rate / base:>15.1f}x"
        if name in targets:
            passed = rate / base >= targets[name]
            ok &= passed
            line += f"  >= {targets[name]:g}x {'PASS' if passed else 'FAIL'}"
        print(line)
    return ok
