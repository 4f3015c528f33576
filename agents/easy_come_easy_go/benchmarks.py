"""Easy Come, Easy Go in evaluation recipes: its own ``turn_tasks`` benchmark, and how agents sit at a full game.

``turn_tasks`` scores each agent exactly (dynamic programming over every reachable state) as a percentage of the
optimal turn. At a full table a turn-only agent plays through ``TurnPolicyInGame``: the exact solver chasing any
prize it does not hold, a policy trained on the turn task chasing the full-game heuristic's position values.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from dicearena.agents.easy_come_easy_go.evaluation import sample_value_vectors, score_turn_policy
from dicearena.agents.evaluation.benchmarks import Benchmark, Players, Result, register_benchmarks
from dicearena.agents.evaluation.recipes import Seed
from dicearena.agents.evaluation.recipes import section as checked
from dicearena.envs.common.config import GameConfig
from dicearena.envs.easy_come_easy_go.turn_config import TurnTaskConfig

__all__ = ["TURN_TASKS"]

TURN_KINDS = ("random", "eceg_myopic", "eceg_exact_turn", "sb3")  # the agents that play the turn task


class TurnTaskSection(GameConfig):
    config: dict[str, Any] = Field(default_factory=dict, description="TurnTaskConfig keys")
    value_vectors: int = Field(200, ge=1, le=10**6)
    seed: Seed = 12345


def _check(game: str, section: TurnTaskSection) -> None:
    checked("turn_tasks.config", TurnTaskConfig, section.config)


def _run(game: str, task: str, section: TurnTaskSection, players: Players) -> list[Result]:
    from tqdm import tqdm


    rows = []
    for name, agent in players(section.config).items():
        total = len(sample_value_vectors(section.config, section.value_vectors, section.seed))
        with tqdm(total=total, desc=f"{task}: {name}", leave=False) as bar:
            row = score_turn_policy(agent, section.config, section.value_vectors, section.seed, bar.update)
        rows.append({**row, "agent": name})
    rows.sort(key=lambda r: -r["percent_of_optimum"])
    return [(f"turn task {task}: exact expected value per turn", "percent", rows)]


TURN_TASKS = Benchmark(TurnTaskSection, _run, _check, named=True, kinds=TURN_KINDS)


register_benchmarks("easy_come_easy_go", {"turn_tasks": TURN_TASKS})
