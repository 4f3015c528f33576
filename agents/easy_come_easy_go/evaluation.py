"""Scoring agents: exactly on the turn task, by batched self-play on the full game."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from dicearena.agents.base import Agent
from dicearena.agents.easy_come_easy_go.exact import evaluate_turn_policy_exact, solve_turn
from dicearena.agents.evaluation.benchmarks import round_robin as generic
from dicearena.agents.evaluation.play import play_games
from dicearena.agents.evaluation.stats import mean_ci
from dicearena.envs.common.config import validate_config
from dicearena.envs.easy_come_easy_go import engine as eng
from dicearena.envs.easy_come_easy_go.turn_config import TurnTaskConfig

__all__ = ["sample_value_vectors", "score_turn_policy", "play_full_game", "round_robin"]


def sample_value_vectors(task_config: Mapping[str, Any] | None, num_vectors: int, seed: int) -> np.ndarray:
    """The fixed set of prize-value vectors a turn-task policy is scored on (one row when values are fixed)."""
    config = _turn_config(task_config)
    if config.value_distribution is None:
        return np.asarray([config.prize_values], dtype=np.float64)
    return config.draw_values(np.random.default_rng(seed), num_vectors)


def _turn_config(task_config: Mapping[str, Any] | None):
    return validate_config(TurnTaskConfig, dict(task_config or {}))


def score_turn_policy(
    agent: Agent,
    task_config: Mapping[str, Any] | None = None,
    num_vectors: int = 200,
    seed: int = 12345,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Exact expected turn value of ``agent`` and of optimal play, averaged over the sampled vectors."""

    config = _turn_config(task_config)
    variant = config.four_of_a_kind_is_two_pairs
    vectors = sample_value_vectors(task_config, num_vectors, seed)
    started = time.perf_counter()
    optimal_values = np.array([solve_turn(v, variant).value for v in vectors])
    policy_values = np.empty(len(vectors))
    for i, values in enumerate(vectors):
        policy_values[i] = evaluate_turn_policy_exact(
            agent, values, value_scale=config.value_scale, four_of_a_kind_is_two_pairs=variant
        )
        if progress is not None:
            progress(1)
    optimum = float(optimal_values.mean())
    achieved = float(policy_values.mean())
    return {
        "agent": agent.name,
        "value_vectors": len(vectors),
        "mean_value": achieved,
        # Exact per vector: the only uncertainty is which vectors were sampled (none for a fixed vector).
        "mean_value_ci95": mean_ci(policy_values)[1] if len(vectors) > 1 else 0.0,
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

    The one evaluation loop (``dicearena.agents.evaluation.play.play_games``): games run ``batch_size`` at a time in
    the batched engine,
    the games counted are the first ``num_games`` to start, each played to its end (so short games are not
    favoured), and every agent gets what it reads (engine states for planners). ``outcomes`` (G, P) are the final
    rewards and ``winners`` (G,) each game's winner from its final state (-1: truncated).
    """

    num_players = len(seat_agents)
    seatings = np.tile(np.arange(num_players), (num_games, 1))
    result = play_games("easy_come_easy_go", seatings, seat_agents, dict(config or {}), seed, batch_size)
    winners = result["final_states"][:, eng.WINNER].astype(np.int64)
    seconds = result["seconds"]
    return {
        "games": num_games,
        "wins": np.bincount(winners[winners >= 0], minlength=num_players),
        "truncated": int(result["truncated"].sum()),
        "winners": winners,
        "outcomes": result["final_rewards"],
        "seconds": seconds,
        "games_per_second": num_games / seconds,
    }


def round_robin(
    agents: Mapping[str, Agent],
    games_per_seating: int,
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
    progress: bool = False,
) -> list[dict[str, Any]]:
    """Every ordered pair of distinct agents in the 2-player game (so both seatings): win rates with CIs
    (``dicearena.agents.evaluation.benchmarks.round_robin``)."""

    return generic("easy_come_easy_go", dict(agents), games_per_seating, dict(config or {}), seed, progress)
