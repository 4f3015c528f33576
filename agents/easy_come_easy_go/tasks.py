"""Easy Come, Easy Go's own training task: one turn's freeze/re-roll decisions (``easy_come_easy_go_turn``)."""

from __future__ import annotations

from typing import Any

from dicearena.agents.base import Agent
from dicearena.agents.easy_come_easy_go.evaluation import score_turn_policy
from dicearena.agents.training.task import Task, register_task
from dicearena.envs.common.config import validate_config
from dicearena.envs.easy_come_easy_go.turn_config import TurnTaskConfig
from dicearena.envs.easy_come_easy_go.turn_task import EasyComeEasyGoTurnVecEnv

__all__ = ["TURN_TASK"]


def _check(config: dict[str, Any]) -> None:
    validate_config(TurnTaskConfig, config)


def _make_env(config: dict[str, Any], num_envs: int, seed: int) -> Any:
    return EasyComeEasyGoTurnVecEnv(num_envs, config=config, seed=seed)


def _score(agent: Agent, config: dict[str, Any], samples: int, seed: int) -> dict[str, Any]:
    """Exact expected value vs the exact optimum over ``samples`` value vectors."""

    return score_turn_policy(agent, config, num_vectors=samples, seed=seed)


TURN_TASK = register_task("easy_come_easy_go", Task("easy_come_easy_go_turn", _check, _make_env, _score))
