"""Easy Come, Easy Go in evaluation recipes: its own ``turn_tasks`` benchmark, and how agents sit at a full game.

``turn_tasks`` scores each agent exactly (dynamic programming over every reachable state) as a percentage of the
optimal turn. At a full table a turn-only agent plays through ``TurnPolicyInGame``: the exact solver chasing any
prize it does not hold, a policy trained on the turn task chasing the full-game heuristic's position values.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agents.base import Agent
from agents.benchmarks import Benchmark, Players, Result
from agents.recipes import Seed
from envs.common.config import GameConfig

__all__ = ["TURN_TASKS", "table_agent"]

TURN_KINDS = ("random", "eceg_myopic", "eceg_exact", "sb3")  # the agents that play the turn task


class TurnTaskSection(GameConfig):
    config: dict[str, Any] = Field(default_factory=dict, description="TurnTaskConfig keys")
    value_vectors: int = Field(200, ge=1, le=10**6)
    seed: Seed = 12345


def _check(game: str, section: TurnTaskSection) -> None:
    from agents.recipes import section as checked
    from envs.easy_come_easy_go.turn_config import TurnTaskConfig

    checked("turn_tasks.config", TurnTaskConfig, section.config)


def _run(game: str, task: str, section: TurnTaskSection, players: Players) -> list[Result]:
    from tqdm import tqdm

    from agents.easy_come_easy_go.evaluation import sample_value_vectors, score_turn_policy

    rows = []
    for name, agent in players(section.config).items():
        total = len(sample_value_vectors(section.config, section.value_vectors, section.seed))
        with tqdm(total=total, desc=f"{task}: {name}", leave=False) as bar:
            row = score_turn_policy(agent, section.config, section.value_vectors, section.seed, bar.update)
        rows.append({**row, "agent": name})
    rows.sort(key=lambda r: -r["percent_of_optimum"])
    return [(f"turn task {task}: exact expected value per turn", "percent", rows)]


TURN_TASKS = Benchmark(TurnTaskSection, _run, _check, named=True, kinds=TURN_KINDS)


def table_agent(kind: str, agent: Agent, config: Any) -> Agent | None:
    """``agent`` as it plays the full game under ``config``: a turn-task agent through ``TurnPolicyInGame``."""
    from agents.easy_come_easy_go.in_game import TurnPolicyInGame, any_prize_not_mine
    from envs.easy_come_easy_go.turn_engine import TURN_OBS_SIZE

    if kind == "eceg_exact":  # the optimal turn for "any prize I do not hold"
        return TurnPolicyInGame(agent, valuation=any_prize_not_mine)
    space = getattr(agent, "observation_space", None)
    if kind == "sb3" and space is not None and space.shape == (TURN_OBS_SIZE,):
        return TurnPolicyInGame(agent)  # a trained turn policy chasing the heuristic's position values
    return agent
