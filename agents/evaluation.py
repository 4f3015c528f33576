"""Scoring agents: exactly on the turn task, by batched self-play on the full game."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from agents.base import Agent
from agents.stats import mean_ci, wilson_ci

__all__ = ["sample_value_vectors", "score_turn_policy", "play_full_game", "round_robin"]


def sample_value_vectors(task_config: Mapping[str, Any] | None, num_vectors: int, seed: int) -> np.ndarray:
    """The fixed set of prize-value vectors a turn-task policy is scored on (one row when values are fixed)."""
    from envs.easy_come_easy_go.turn_task import TurnTaskConfig, sample_prize_values

    config = TurnTaskConfig.model_validate(dict(task_config or {}))
    if config.value_distribution is None:
        return np.asarray([config.prize_values], dtype=np.float64)
    rng = np.random.default_rng(seed)
    return np.stack([sample_prize_values(config, rng) for _ in range(num_vectors)])


def score_turn_policy(
    agent: Agent,
    task_config: Mapping[str, Any] | None = None,
    num_vectors: int = 200,
    seed: int = 12345,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Exact expected turn value of ``agent`` and of optimal play, averaged over the sampled vectors."""
    from agents.easy_come_easy_go.exact import evaluate_turn_policy_exact, solve_turn
    from envs.easy_come_easy_go.turn_task import TurnTaskConfig, value_scale

    config = TurnTaskConfig.model_validate(dict(task_config or {}))
    vectors = sample_value_vectors(task_config, num_vectors, seed)
    scale = value_scale(config)
    policy_values = np.empty(len(vectors))
    optimal_values = np.empty(len(vectors))
    started = time.perf_counter()
    for i, values in enumerate(vectors):
        optimal_values[i] = solve_turn(values, config.four_of_a_kind_is_two_pairs).value
        policy_values[i] = evaluate_turn_policy_exact(
            agent, values, value_scale=scale, four_of_a_kind_is_two_pairs=config.four_of_a_kind_is_two_pairs
        )
        if progress is not None:
            progress(1)
    optimum = float(optimal_values.mean())
    achieved = float(policy_values.mean())
    return {
        "agent": agent.name,
        "value_vectors": len(vectors),
        "mean_value": achieved,
        "mean_optimal_value": optimum,
        "percent_of_optimum": 100.0 * achieved / optimum if optimum > 0 else 100.0,
        "seconds": round(time.perf_counter() - started, 3),
    }


def play_full_game(
    seat_agents: list[Agent],
    num_games: int,
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
    batch_size: int = 1024,
) -> dict[str, Any]:
    """Play ``num_games`` full games with ``seat_agents[s]`` in seat s; count wins per seat.

    Games run ``batch_size`` at a time in the batched engine; each seat's agent acts on the sub-batch of
    games where that seat is to move.
    """
    from envs.easy_come_easy_go.batched import BatchedEasyComeEasyGo

    num_players = len(seat_agents)
    batch = min(batch_size, num_games)
    engine = BatchedEasyComeEasyGo(batch, config=dict(config or {}), seed=seed, num_players=num_players)
    for s, agent in enumerate(seat_agents):
        agent.reset(seed=seed + 1000 * (s + 1))
    obs, masks, info = engine.reset(seed=seed)
    wins = np.zeros(num_players, dtype=np.int64)
    truncated_games = 0
    finished = 0
    actions = np.zeros(batch, dtype=np.int64)
    steps = 0
    started = time.perf_counter()
    while finished < num_games:
        current = info["current_player"]
        for s, agent in enumerate(seat_agents):
            rows = np.flatnonzero(current == s)
            if rows.size:
                actions[rows] = agent.act_batch(obs[rows], masks[rows])
        obs, masks, rewards, terminated, truncated, info = engine.step(actions)
        steps += batch
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            ended = ended[: num_games - finished]
            winners = info["winner"][ended]
            for w in winners[winners >= 0]:
                wins[w] += 1
            truncated_games += int((winners < 0).sum())
            finished += ended.size
    seconds = time.perf_counter() - started
    return {
        "games": finished,
        "wins": wins,
        "truncated": truncated_games,
        "seconds": seconds,
        "games_per_second": finished / seconds,
        "steps_per_second": steps / seconds,
    }


def round_robin(
    agents: Mapping[str, Agent],
    games_per_seating: int,
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Every ordered pair of distinct agents in both seatings of the 2-player game: win rates with CIs."""
    rows = []
    for k, (first, second) in enumerate(itertools.permutations(agents, 2)):
        result = play_full_game([agents[first], agents[second]], games_per_seating, config, seed=seed + k)
        decided = result["games"]
        rate, low, high = wilson_ci(result["wins"][0], decided)
        rows.append(
            {
                "seat_0": first,
                "seat_1": second,
                "games": decided,
                "seat_0_win_rate": rate,
                "ci_low": low,
                "ci_high": high,
                "truncated": result["truncated"],
                "games_per_second": result["games_per_second"],
            }
        )
    return rows


def summarise_mean(samples: np.ndarray) -> dict[str, float]:
    mean, half = mean_ci(samples)
    return {"mean": mean, "ci95": half}
