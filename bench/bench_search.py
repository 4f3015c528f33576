"""Search with chance nodes, measured (issue 23): the state API's speed, the search agent's strength and optimality.

Usage: ``python bench/bench_search.py [api] [optimum] [strength] [--games-per 2000] [--ms 1 10 100] ...``
(default: all three parts; ``dicearena bench-search``). Pinned to one core unless ``--no-pin``.

- **api**: game-tree states (``dicearena.envs.common.game_state``) played at random (legal actions, chance drawn by
  its probabilities) and cloned, per second, for every game, beside OpenSpiel's own Python loop over its C++ pig
  and backgammon, measured in the same run (needs the ``openspiel`` extra; without it the peers are skipped).
- **optimum**: the search agent's exact share of the optimum on the two tasks a dynamic programme solves: Greed
  (every named cash 1..40, ``greed_solver.policy_value``) and the Easy Come turn task (``score_turn_policy`` over
  ``--vectors`` prize-value vectors), by simulations per decision, with the milliseconds per decision measured.
- **strength**: the search agent 2-player head to head, seats alternated, ``--games-per`` games, 95% Wilson
  intervals, against random and each game's strongest hand-written agent, at budgets of about ``--ms``
  milliseconds per decision (the simulations are calibrated per game on sampled decisions, then the budget
  actually spent is measured and printed).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from dicearena.bench._common import parser, pin

__all__ = ["STRONGEST", "main"]

# each game's strongest hand-written agent (docs/results.md: what the trained agents are measured against)
STRONGEST = {"easy_come_easy_go": "eceg_heuristic", "easy_money": "em_greed_exact", "extra": "extra_expectimax",
             "yay": "yay_lookahead"}  # fmt: skip
# the config head-to-head strength is measured on besides 2 players: Ea$y Money's research ending, where money
# decides (under the rulebook's ending the Final Lottery's pot decides ~99% of games by luck)
STRENGTH_CONFIG = {"easy_money": {"final_lottery": False}}


def random_playouts(game: Any, seconds: float, seed: int = 0) -> tuple[float, float]:
    """(transitions/s, clones/s) of ``game``'s states played at random: OpenSpiel's loop, on our API or pyspiel's
    (both have ``new_initial_state``, ``is_chance_node``, ``chance_outcomes``, ``legal_actions``, ``apply_action``,
    ``clone``). Where our chance is not enumerable the state draws it (``sample_chance``)."""
    rng = np.random.default_rng(seed)
    steps, clones = 0, 0
    state = game.new_initial_state()
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(256):
            if state.is_terminal():
                state = game.new_initial_state()
            if state.is_chance_node():
                if hasattr(state, "chance_enumerable") and not state.chance_enumerable():
                    state.sample_chance(rng)
                else:
                    outcomes = state.chance_outcomes()
                    pick = rng.choice(len(outcomes), p=np.array([p for _, p in outcomes]))
                    state.apply_action(int(outcomes[pick][0]))
            elif hasattr(state, "is_simultaneous_node") and state.is_simultaneous_node():
                actions = [0] * game.num_players()
                for seat in state.acting_players():
                    legal = state.legal_actions(seat)
                    actions[seat] = legal[rng.integers(len(legal))]
                state.apply_actions(actions)
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
    step_rate = steps / (time.perf_counter() - start)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds / 3:
        for _ in range(256):
            state.clone()
        clones += 256
    return step_rate, clones / (time.perf_counter() - start)


def api_part(games: list[str], seconds: float) -> None:
    from dicearena.envs.common.game_state import load_game

    print(f"\nstate API: random playouts (transitions/s) and clones/s, {seconds:.0f} s each")
    rows = []
    for game in games:
        random_playouts(load_game(game), 0.5)  # compiles the engine's functions first
        rows.append((game, *random_playouts(load_game(game), seconds)))
    peers: list[tuple[str, float, float]] = []
    try:
        import pyspiel

        peers = [(f"OpenSpiel {name}", *random_playouts(pyspiel.load_game(name), seconds)) for name in
                 ("pig", "backgammon")]  # fmt: skip
    except ImportError:
        print("(OpenSpiel is not installed: pip install 'dice-arena[openspiel]' to measure the peers)")
    head = f"{'game':<26}{'steps/s':>10}{'clones/s':>11}"
    head += "".join(f"{'steps x ' + name.split()[1]:>20}" for name, _, _ in peers)
    print(head)
    for name, steps, clones in rows + peers:
        line = f"{name:<26}{steps:>10,.0f}{clones:>11,.0f}"
        line += "".join(f"{steps / peer:>20.2f}" for _, peer, _ in peers)
        print(line)


def greed_states(cash: int) -> np.ndarray:
    """Every Greed decision against ``cash`` (totals 0..cash + 6; range 1..40 as the task draws it)."""
    from dicearena.envs.easy_money import greed as G

    states = np.zeros((cash + G.NUM_FACES + 1, G.STATE_SIZE), dtype=np.int32)
    states[:, G.LOW], states[:, G.HIGH], states[:, G.PHASE], states[:, G.CASH] = 1, 40, G.P_DECIDE, cash
    states[:, G.TOTAL] = np.arange(len(states))
    return states


def greed_share(agent: Any) -> tuple[float, float]:
    """(exact % of the optimum summed over cash 1..40, the worst cash's %) of the search's stop rule."""
    from dicearena.agents.easy_money.greed_solver import policy_value, sequence_value
    from dicearena.envs.easy_money.greed import GREED_STOP

    achieved = optimum = 0.0
    worst = 100.0
    for cash in range(1, 41):
        states = greed_states(cash)
        actions = agent.act_states(states, np.ones((len(states), 2), dtype=np.int8), np.zeros(len(states), np.int64))
        value, best = policy_value((actions == GREED_STOP).astype(float), cash), sequence_value(cash)
        achieved, optimum = achieved + value, optimum + best
        worst = min(worst, 100.0 * value / best if best > 0 else 100.0)
    return 100.0 * achieved / optimum, worst


def optimum_part(budgets: list[int], turn_budgets: list[int], rollouts: list[str], vectors: int, threads: int) -> None:
    from dicearena.agents.easy_come_easy_go.evaluation import score_turn_policy
    from dicearena.agents.search import SearchAgent

    print("\nGreed task, exact % of the optimum (every named cash 1..40, every running total)")
    print(f"{'simulations':>12}{'% optimum':>11}{'worst cash %':>14}{'ms/decision':>13}")
    for sims in budgets:
        agent = SearchAgent("easy_money_greed", simulations=sims, seed=0, threads=threads)
        agent.act_states(greed_states(1)[2:3], np.ones((1, 2), dtype=np.int8), np.zeros(1, np.int64))  # compile
        agent.searched, agent.search_seconds = 0, 0.0
        share, worst = greed_share(agent)
        print(f"{sims:>12,}{share:>11.3f}{worst:>14.3f}{agent.ms_per_decision:>13.3f}", flush=True)
    print(f"\nEasy Come turn task, exact % of the optimum ({vectors} prize-value vectors, every reachable decision)")
    print(f"{'rollout':>9}{'simulations':>12}{'% optimum':>11}{'decisions':>11}{'ms/decision':>13}")
    score_turn_policy(SearchAgent("easy_come_easy_go_turn", simulations=1), {}, 1, 7)  # compile
    for rollout in rollouts:
        for sims in turn_budgets:
            agent = SearchAgent("easy_come_easy_go_turn", simulations=sims, seed=0, threads=threads, rollout=rollout)
            row = score_turn_policy(agent, {}, vectors, 12345)
            print(f"{rollout:>9}{sims:>12,}{row['percent_of_optimum']:>11.3f}{agent.searched:>11,}"
                  f"{agent.ms_per_decision:>13.3f}", flush=True)  # fmt: skip


def sample_decisions(game: str, count: int, seed: int = 0,
                     **config: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """``count`` decisions of random play under ``config`` with more than one legal action (states, masks, the
    seat deciding: the first acting one at a simultaneous node)."""
    from dicearena.envs.common.game_state import CHANCE_PLAYER, SIMULTANEOUS_PLAYER, load_game

    g = load_game(game, **config)
    rng = np.random.default_rng(seed)
    states, masks, seats = [], [], []
    state = g.new_initial_state()
    while len(states) < count:
        if state.is_terminal():
            state = g.new_initial_state()
        player = state.current_player()
        if player == CHANCE_PLAYER:
            state.sample_chance(rng)
            continue
        seat = state.acting_players()[0]
        if len(state.legal_actions(seat)) > 1 and rng.random() < 0.2:
            states.append(state.engine_state)
            masks.append(state.legal_actions_mask(seat))
            seats.append(seat)
        if player == SIMULTANEOUS_PLAYER:
            actions = [0] * g.num_players()
            for s in state.acting_players():
                actions[s] = int(rng.choice(state.legal_actions(s)))
            state.apply_actions(actions)
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return np.array(states), np.array(masks), np.array(seats)


def calibrate(game: str, target_ms: float, threads: int, **config: Any) -> int:
    """Simulations per decision that take about ``target_ms`` here (timed on 64 sampled decisions under ``config``)."""
    from dicearena.agents.search import SearchAgent

    states, masks, seats = sample_decisions(game, 64, num_players=2, **config)
    SearchAgent(game, simulations=8, seed=0).act_states(states[:2], masks[:2], seats[:2])  # compile
    sims = 64
    while True:
        agent = SearchAgent(game, simulations=sims, seed=0, threads=threads, config={"num_players": 2, **config})
        agent.act_states(states, masks, seats)
        if agent.ms_per_decision > target_ms / 4 or sims >= 10_000_000:
            return max(1, int(sims * target_ms / agent.ms_per_decision))
        sims *= 4


def strength_part(games: list[str], budgets_ms: list[float], games_per: int, threads: int) -> None:
    from dicearena.agents import make_agent
    from dicearena.agents.evaluation.play import head_to_head
    from dicearena.agents.search import SearchAgent

    print(f"\nsearch agent head to head, 2 players, seats alternated, {games_per:,} games each, 95% Wilson intervals "
          f"(configs besides 2 players: {STRENGTH_CONFIG})")
    print(f"{'game':<20}{'budget':>8}{'sims':>9}{'ms/dec':>8}  {'opponent':<18}{'win rate':>9}  {'95% interval':<16}")
    for game in games:
        for target in budgets_ms:
            config = STRENGTH_CONFIG.get(game, {})
            sims = calibrate(game, target, threads, **config)
            for opponent in ("random", STRONGEST.get(game)):
                if opponent is None:
                    continue
                agent = SearchAgent(game, simulations=sims, seed=0, threads=threads, config=config)
                other = make_agent(opponent, seed=1) if opponent == "random" else make_agent(opponent)
                row = head_to_head(game, agent, other, {"num_players": 2, **config}, games_per, seed=11)
                low, high = row["ci95"]
                print(f"{game:<20}{target:>6g}ms{sims:>9,}{agent.ms_per_decision:>8.2f}  {opponent:<18}"
                      f"{row['win_rate']:>9.3f}  [{low:.3f}, {high:.3f}]", flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__.split("\n\n")[0])
    p.add_argument("parts", nargs="*", metavar="PART", help="api, optimum, strength (default: all three)")
    p.add_argument("--games", nargs="+", default=None, help="game ids (default: every registered game)")
    p.add_argument("--ms", nargs="+", type=float, default=[1.0, 10.0, 100.0], help="strength budgets, ms/decision")
    p.add_argument("--games-per", type=int, default=2000, help="head-to-head games per opponent and budget")
    p.add_argument("--greed-sims", nargs="+", type=int, default=[100, 1000, 10_000, 100_000])
    p.add_argument("--turn-sims", nargs="+", type=int, default=[1000, 10_000])
    p.add_argument("--turn-rollouts", nargs="+", choices=["random", "decisive"], default=["random", "decisive"],
                   help="the search's rollouts on the turn task")
    p.add_argument("--vectors", type=int, default=1, help="turn-task prize-value vectors (each: every decision)")
    p.add_argument("--threads", type=int, default=1, help="the search agent's threads")
    args = p.parse_args(argv)
    parts = args.parts or ["api", "optimum", "strength"]
    if set(parts) - {"api", "optimum", "strength"}:
        p.error(f"parts are api, optimum and strength, got {sorted(set(parts) - {'api', 'optimum', 'strength'})}")
    import dicearena.envs  # noqa: F401  (registers the suite's games)
    from dicearena.envs.common.contract import GAMES

    unknown = sorted(set(args.games or []) - set(GAMES))
    if unknown:
        p.error(f"unknown games {unknown}; games: {', '.join(sorted(GAMES))}")
    games = args.games or sorted(GAMES)
    if args.threads == 1:
        pin(args)
    if "api" in parts:
        api_part(games, args.seconds)
    if "optimum" in parts:
        optimum_part(args.greed_sims, args.turn_sims, args.turn_rollouts, args.vectors, args.threads)
    if "strength" in parts:
        strength_part(games, args.ms, args.games_per, args.threads)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
