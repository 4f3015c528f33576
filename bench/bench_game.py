"""Throughput of any contract game's faces against PettingZoo's connect_four_v3, from one run.

Usage: ``python bench/bench_game.py [GAME ...] [--import MODULE] [--seconds 3] [--batch 4096] [--cpu N | --no-pin]``,
e.g. ``python bench/bench_game.py pig --import examples.pig.pig_game``; no GAME: every registered game, each measured
even if an earlier one misses its target (exit 1 if any does). ``--import`` loads a module that registers the
game (games in ``envs/`` register when ``envs`` is imported). A "step" is one decision played (chance events in
between included: in a simultaneous game, each seat that decides in a round counts); random legal actions,
observations and masks produced every step. A simultaneous game's Parallel env is measured too. The targets are
the spec's ``bench_targets`` (multiples of connect_four_v3 ``env()``). Pinned to one core by default.
"""

from __future__ import annotations

import importlib
from typing import Any

from dicearena.bench._common import (  # noqa: E402
    aec_steps_per_second,
    chosen_specs,
    connect_four_steps_per_second,
    parallel_steps_per_second,
    parser,
    pin,
    print_ratios,
)
from dicearena.bench._common import batched_steps_per_second as _batched  # noqa: E402


def batched_steps_per_second(game: str, batch: int, seconds: float, seed: int = 0) -> float:
    from dicearena.envs.common.game_batch import BatchedGame

    return _batched(BatchedGame(game, batch, seed=seed, copy=False), seconds, seed)


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("games", nargs="*", help="registered game ids (default: every registered game)")
    p.add_argument("--import", dest="module", help="a module to import first (one that registers the game)")
    args = p.parse_args(argv)
    pin(args)
    import dicearena.envs  # noqa: F401  (registers the suite's games)
    from dicearena.envs.common.game_aec import make_env
    from dicearena.envs.common.game_parallel import make_parallel_env

    if args.module:
        importlib.import_module(args.module)
    specs = chosen_specs(p, args.games)
    ok = True
    for spec in specs:
        ok &= bench(spec, args, make_env, make_parallel_env)
    return 0 if ok else 1


def bench(spec: Any, args: Any, make_env: Any, make_parallel_env: Any) -> bool:
    """One game's faces against connect_four_v3 env(), measured in the same run; True if every target is met."""
    print(f"\n{spec.title}")

    def make() -> object:
        return make_env(spec)

    # warm-up at the measured size: compiling and loading the sampler's parallel build (1,024 rows on) must not count
    batched_steps_per_second(spec.id, args.batch, 0.05)
    aec_steps_per_second(make, 0.05)
    env_name, batched_name = f"{spec.id} env()", f"{spec.id} batched, B = {args.batch}"
    results = {
        "connect_four_v3.env()": connect_four_steps_per_second(args.seconds),
        env_name: aec_steps_per_second(make, args.seconds),
    }
    if spec.dynamics == "simultaneous":
        results[f"{spec.id} parallel_env()"] = parallel_steps_per_second(lambda: make_parallel_env(spec), args.seconds)
    results[batched_name] = batched_steps_per_second(spec.id, args.batch, args.seconds)
    names = {"env": env_name, "batched": batched_name}
    targets = {names[k]: v for k, v in spec.bench_targets.items() if k in names}
    return print_ratios(results, "connect_four_v3.env()", targets)


if __name__ == "__main__":
    raise SystemExit(main())
