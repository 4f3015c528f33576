"""Where a batched step's time goes, per game: the random agent's sampling, the legality check, the actions, the
chance events and the encoding (observations and masks), each on its own clock over one run.

Usage: ``python bench/bench_profile.py [GAME ...] [--seconds 3] [--batch 4096] [--cpu N | --no-pin]`` (no GAME:
every registered game). Why: ``bench_game`` says how fast a batched engine is; this says what to make faster. It
replays ``BatchedGame.step``'s serial path (one thread) kernel by kernel on the engine's own buffers, so the games
played are the same as ``step`` plays from the same seed (``tests/test_bench_profile.py`` checks it); the
encoding is timed again on its own after each step (it is idempotent) and the chance events are what the settle
kernel spends beyond it. ``step`` is the whole call as ``bench_game`` times it, Python included.
"""

from __future__ import annotations

import time

import numpy as np

from dicearena.bench._common import batched_steps_per_second, chosen_specs, parser, pin, random_actions

STAGES = ("sampling", "check", "act", "chance", "encode")


class StagedStep:
    """``BatchedGame.step`` (serial, keyed chance, no hold) as separately callable kernels on its buffers."""

    def __init__(self, game: str, batch: int, seed: int = 0) -> None:
        from dicearena.envs.common.game_batch import BatchedGame

        self.engine = engine = BatchedGame(game, batch, seed=seed, copy=False, threads=1)
        engine.reset()
        self.kernels = engine._kernels  # the engine's internals: this replays its step stage by stage
        self.active = engine._all
        self.scratch = self.kernels.scratch_base(engine._states)

    def check(self, actions: np.ndarray) -> None:
        e = self.engine
        code = self.kernels.range_check(e._states, actions, self.active, 0, e.num_envs, e._seat_buffer)
        if code < 0:
            raise ValueError(f"bench_profile: an illegal action in game {-code - 1}")

    def act(self, actions: np.ndarray) -> None:
        e = self.engine
        self.kernels.range_act(e._states, actions, self.active, 0, e.num_envs, *e._records(), e._seat_buffer)

    def settle(self) -> None:
        e = self.engine
        self.kernels.range_settle(e._states, 0, e.num_envs, e._words, e._outcomes, e._streams, False, *e._records(),
                                  e._obs, e._masks, e._seat_buffer, self.scratch)  # fmt: skip

    def encode(self) -> None:
        e = self.engine
        self.kernels.range_encode(e._states, 0, e.num_envs, e._obs, e._masks, e._seat_buffer)


def profile(game: str, batch: int, seconds: float, seed: int = 0) -> dict[str, float]:
    """Nanoseconds per decision in each stage (``STAGES``) and in the whole ``step`` call, each stage timed while
    the staged loop plays for ``seconds``, then ``step`` timed for as long."""
    staged = StagedStep(game, batch, seed)
    rng = np.random.default_rng(seed)
    spent = dict.fromkeys(STAGES, 0.0)
    decisions = 0
    clock = time.perf_counter
    start = clock()
    while clock() - start < seconds:
        t0 = clock()
        actions, count = random_actions(staged.engine._masks, rng)
        t1 = clock()
        staged.check(actions)
        t2 = clock()
        staged.act(actions)
        t3 = clock()
        staged.settle()
        t4 = clock()
        staged.encode()
        t5 = clock()
        decisions += count
        spent["sampling"] += t1 - t0
        spent["check"] += t2 - t1
        spent["act"] += t3 - t2
        spent["chance"] += (t4 - t3) - (t5 - t4)
        spent["encode"] += t5 - t4
    out = {stage: 1e9 * spent[stage] / decisions for stage in STAGES}
    out["step"] = 1e9 / batched_steps_per_second(staged.engine, seconds, seed, engine_only=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("games", nargs="*", help="registered game ids (default: every registered game)")
    args = p.parse_args(argv)
    pin(args)
    specs = chosen_specs(p, args.games)
    print(f"ns per decision, B = {args.batch}; 'step' is the whole BatchedGame.step call (check, act, chance and "
          "encode, with Python's share)")  # fmt: skip
    print(f"{'game':<28}" + "".join(f"{s:>10}" for s in (*STAGES, "step")) + f"{'engine %':>10}")
    for spec in specs:
        profile(spec.id, args.batch, 0.05)  # warm-up at full size (the sampler's parallel build starts at 1,024 rows)
        row = profile(spec.id, args.batch, args.seconds)
        engine = sum(row[s] for s in STAGES[1:])
        cells = "".join(f"{row[s]:>10.1f}" for s in (*STAGES, "step"))
        print(f"{spec.id:<28}{cells}{100 * engine / row['step']:>9.0f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
