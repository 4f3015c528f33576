"""Throughput of any contract game's faces against PettingZoo's connect_four_v3, from one run.

Usage: ``python bench/bench_game.py GAME [--import MODULE] [--seconds 3] [--batch 4096] [--cpu N | --no-pin]``,
e.g. ``python bench/bench_game.py pig --import tests.pig_game``. ``--import`` loads a module that registers the
game (games in ``envs/`` register when ``envs`` is imported). A "step" is one decision played (chance events in
between included); random legal actions, observations and masks produced every step. The targets are the spec's
``bench_targets`` (multiples of connect_four_v3 ``env()``). Pinned to one core by default.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import aec_steps_per_second, connect_four_steps_per_second, parser, pin, print_ratios  # noqa: E402
from bench._common import batched_steps_per_second as _batched  # noqa: E402


def batched_steps_per_second(game: str, batch: int, seconds: float, seed: int = 0) -> float:
    from envs.common.game_batch import BatchedGame

    return _batched(BatchedGame(game, batch, seed=seed, copy=False), batch, seconds, seed)


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("game", help="a registered game id")
    p.add_argument("--import", dest="module", help="a module to import first (one that registers the game)")
    args = p.parse_args(argv)
    pin(args)
    import envs  # noqa: F401  (registers the suite's games)
    from envs.common.contract import game_spec
    from envs.common.game_aec import make_env

    if args.module:
        importlib.import_module(args.module)
    spec = game_spec(args.game)

    def make() -> object:
        return make_env(spec)

    batched_steps_per_second(spec.id, min(args.batch, 64), 0.05)  # warm-up: compiling must not count
    aec_steps_per_second(make, 0.05)
    env_name, batched_name = f"{spec.id} env()", f"{spec.id} batched, B = {args.batch}"
    results = {
        "connect_four_v3.env()": connect_four_steps_per_second(args.seconds),
        env_name: aec_steps_per_second(make, args.seconds),
        batched_name: batched_steps_per_second(spec.id, args.batch, args.seconds),
    }
    names = {"env": env_name, "batched": batched_name}
    targets = {names[k]: v for k, v in spec.bench_targets.items() if k in names}
    ok = print_ratios(results, "connect_four_v3.env()", targets)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
