"""Every game's batched engine on N threads against itself on one thread, measured in the same run.

Usage: ``python bench/bench_threads.py [GAME ...] [--threads 2] [--seconds 3] [--batch 16384] [--rounds 3]``; no
GAME: every registered game (exit 1 if any misses the target). The loop is ``bench/bench_game.py``'s batched one
(random legal actions, observations and masks every step); the engine's steps/s count the time inside
``BatchedGame.step`` only (the random agent's sampling, also spread over the threads, is left out), and the whole
loop's are printed beside them. Each round measures 1 thread then N threads, and the ratio is of the medians over
the rounds, so a burst of load elsewhere on the machine hits both sides alike. Not pinned: the point is to use
every core. Target: the engine at ``threads=2`` at least ``TARGET`` times at ``threads=1`` (issue 11).
"""

from __future__ import annotations

from statistics import median

from dicearena.bench._common import batched_steps_per_second, chosen_specs, parser  # noqa: E402

TARGET = 1.8


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("games", nargs="*", help="registered game ids (default: every registered game)")
    p.add_argument("--threads", type=int, default=2, help="the thread count measured against 1")
    p.add_argument("--rounds", type=int, default=3, help="alternating 1-thread / N-thread measurements per game")
    p.set_defaults(batch=16384)
    args = p.parse_args(argv)
    import dicearena.envs  # noqa: F401  (registers the suite's games)
    from dicearena.envs.common.batching import max_threads
    from dicearena.envs.common.game_batch import BatchedGame

    games = [spec.id for spec in chosen_specs(p, args.games)]
    if not 2 <= args.threads <= max_threads():
        p.error(f"--threads must be in 2..{max_threads()} (numba's thread pool here), got {args.threads}")
    print(f"{'game':<22}{'engine, 1 thread':>18}{f'{args.threads} threads':>14}{'ratio':>8}  target"
          f"{'loop, 1 thread':>18}{f'{args.threads} threads':>14}{'ratio':>8}")  # fmt: skip
    ok = True
    for game in games:
        rates: dict[tuple[int, bool], list[float]] = {(t, e): [] for t in (1, args.threads) for e in (True, False)}
        for threads in (1, args.threads):  # warm-up: compiling must not count
            batched_steps_per_second(BatchedGame(game, args.batch, threads=threads, copy=False), 0.05)
        for _ in range(args.rounds):
            for (threads, engine_only), seen in rates.items():
                engine = BatchedGame(game, args.batch, seed=0, threads=threads, copy=False)
                seen.append(batched_steps_per_second(engine, args.seconds, engine_only=engine_only))
        one, many = median(rates[1, True]), median(rates[args.threads, True])
        loop_one, loop_many = median(rates[1, False]), median(rates[args.threads, False])
        passed = many / one >= TARGET
        ok &= passed
        print(f"{game:<22}{one:>18,.0f}{many:>14,.0f}{many / one:>7.2f}x  >= {TARGET}x {'PASS' if passed else 'FAIL'}"
              f"{loop_one:>13,.0f}{loop_many:>14,.0f}{loop_many / loop_one:>7.2f}x")  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
