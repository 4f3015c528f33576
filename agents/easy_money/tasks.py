"""Ea$y Money's own training task: the Greed stop decision (``easy_money_greed``), scored exactly
(``dicearena.agents.easy_money.evaluation``, which ``evaluate.py``'s ``greed_tasks`` benchmark uses too)."""

from __future__ import annotations

from typing import Any

from dicearena.agents.base import Agent
from dicearena.agents.easy_money.evaluation import greed_decision_states, score_greed_policy
from dicearena.agents.training.task import Task, register_task
from dicearena.envs.common.config import validate_config
from dicearena.envs.easy_money.greed import GreedTaskConfig
from dicearena.envs.easy_money.greed_task import GreedStopVecEnv

__all__ = ["GREED_TASK", "greed_decision_states", "score_greed_policy"]


def _config(config: dict[str, Any]) -> Any:
    return validate_config(GreedTaskConfig, config)


def _check(config: dict[str, Any]) -> None:
    _config(config)


def _make_env(config: dict[str, Any], num_envs: int, seed: int) -> Any:
    return GreedStopVecEnv(num_envs, config=config, seed=seed)


def _score(agent: Agent, config: dict[str, Any], samples: int, seed: int) -> dict[str, Any]:
    """Exact: ``samples`` and ``seed`` are unused (the score has no sampling); the per-M values are left to
    ``evaluate.py``'s ``greed_tasks`` (the score file keeps the headline)."""
    score = score_greed_policy(agent, config)
    score.pop("by_cash")
    return score


GREED_TASK = register_task("easy_money", Task("easy_money_greed", _check, _make_env, _score))
