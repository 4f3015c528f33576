"""Ea$y Money in evaluation recipes: its own ``greed_tasks`` benchmark, the Greed stop task scored exactly.

Each agent's stop rule is scored by dynamic programming over (total, M) (``dicearena.agents.easy_money.evaluation``,
the same score the ``easy_money_greed`` training task writes) as a percentage of the exact solver's expected units:
on average over the M the config draws, and per M (a table: where a rule loses is visible). The full game's agents
play the task by their own Greed rule (``em_greed_exact``: the exact solver, ``em_heuristic``: its threshold); a
model trained on ``dicearena/GreedStop-v0`` (kind ``sb3``) reads the task's observation.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from dicearena.agents.easy_money.evaluation import greed_task_agent, score_greed_policy
from dicearena.agents.evaluation.benchmarks import Benchmark, Players, Result, exact_task_rows, register_benchmarks
from dicearena.agents.evaluation.recipes import section as checked
from dicearena.envs.common.config import ConfigError, GameConfig, validate_config
from dicearena.envs.easy_money.greed import GreedTaskConfig

__all__ = ["GREED_KINDS", "GREED_TASKS", "cash_table"]

GREED_KINDS = ("random", "em_heuristic", "em_greed_exact", "sb3")  # the agents that play the Greed stop task


class GreedTaskSection(GameConfig):
    config: dict[str, Any] = Field(default_factory=dict, description="GreedTaskConfig keys (named_cash)")
    cash_rows: int = Field(40, ge=1, le=1000, description="rows of the per-M table at most (M grouped beyond)")


def _check(game: str, section: GreedTaskSection) -> None:
    checked("greed_tasks.config", GreedTaskConfig, section.config)


def cash_table(by_cash: dict[str, list[tuple[int, float, float]]], rows: int) -> list[dict[str, Any]]:
    """Per named player's cash M (or per range of M, for at most ``rows`` rows) from each agent's ``(M, units,
    optimal units)``: the optimal units, and each agent's % of them (its expected units over the range's, so a range
    reads like its average M)."""
    names = list(by_cash)
    first = by_cash[names[0]]
    width = -(-len(first) // rows)
    out = []
    for start in range(0, len(first), width):
        chunk = slice(start, start + width)
        low, high = first[chunk][0][0], first[chunk][-1][0]
        optimum = sum(o for _, _, o in first[chunk])
        row: dict[str, Any] = {"named_cash": str(low) if low == high else f"{low}..{high}",
                               "optimal_units": optimum / len(first[chunk])}  # fmt: skip
        for name in names:
            value = sum(v for _, v, _ in by_cash[name][chunk])
            row[name] = 100.0 * value / optimum if optimum > 0 else 100.0
        out.append(row)
    return out


def _run(game: str, task: str, section: GreedTaskSection, players: Players) -> list[Result]:
    config = validate_config(GreedTaskConfig, section.config)
    agents = {}
    for name, agent in players(section.config).items():
        playing = greed_task_agent(agent, config)
        if playing is None:
            print(f"note: {name!r} sits out greed task {task}: it does not read the Greed task's observation")
        else:
            agents[name] = playing
    if not agents:
        raise ConfigError(f"[greed_tasks.{task}] no agent of the recipe can play the Greed stop task; kinds that "
                          f"can: {', '.join(GREED_KINDS)}")  # fmt: skip
    low, high = config.cash_range
    rows = exact_task_rows(task, agents, lambda agent, progress: score_greed_policy(agent, config, progress),
                           high - low + 1)  # fmt: skip
    by_cash = {row["agent"]: row.pop("by_cash") for row in rows}  # best first
    for row in rows:
        row["named_cash"] = f"{low}..{high}" if low != high else str(low)
    return [(f"greed task {task}: exact expected units per sequence, % of the optimum (M as drawn)", "percent", rows),
            (f"greed task {task} by M: % of the optimum per named player's cash M", "table",
             cash_table(by_cash, section.cash_rows))]  # fmt: skip


GREED_TASKS = Benchmark(GreedTaskSection, _run, _check, named=True, kinds=GREED_KINDS)


register_benchmarks("easy_money", {"greed_tasks": GREED_TASKS})
