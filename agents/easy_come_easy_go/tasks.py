"""Easy Come, Easy Go's own training task: one turn's freeze/re-roll decisions (``easy_come_easy_go_turn``)."""

from __future__ import annotations

from typing import Any

from agents.base import Agent
from agents.tasks import Task

__all__ = ["TURN_TASK"]


def _check(config: dict[str, Any]) -> None:
    from envs.common.config import validate_config
    from envs.easy_come_easy_go.turn_config import TurnTaskConfig

    validate_config(TurnTaskConfig, config)


def _make_env(config: dict[str, Any], num_envs: int, seed: int) -> Any:
    from envs.easy_come_easy_go.turn_task import EasyComeEasyGoTurnVecEnv  # type: ignore[attr-defined]

    return EasyComeEasyGoTurnVecEnv(num_envs, config=config, seed=seed)


def _score(agent: Agent, config: dict[str, Any], samples: int, seed: int) -> dict[str, Any]:
    """Exact expected value vs the exact optimum over ``samples`` value vectors."""
    from agents.easy_come_easy_go.evaluation import score_turn_policy

    return score_turn_policy(agent, config, num_vectors=samples, seed=seed)


TURN_TASK = Task("easy_come_easy_go_turn", _check, _make_env, _score)
