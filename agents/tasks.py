"""Training tasks by name: what ``train.py`` builds from a recipe's ``task.id`` and how it scores the result."""

from __future__ import annotations

from typing import Any

from agents.base import Agent

__all__ = ["TASKS", "make_training_env", "score_trained_agent"]

TASKS = ("easy_come_easy_go_turn", "extra_solitaire")


def _check(task_id: str) -> None:
    if task_id not in TASKS:
        raise ValueError(f"unknown task {task_id!r}; known tasks: {', '.join(TASKS)}")


def make_training_env(task_id: str, config: dict[str, Any], num_envs: int, seed: int):
    """A vectorised SB3 env with ``action_masks()`` for the task."""
    _check(task_id)
    if task_id == "easy_come_easy_go_turn":
        from envs.easy_come_easy_go.turn_task import EasyComeEasyGoTurnVecEnv

        return EasyComeEasyGoTurnVecEnv(num_envs, config=config, seed=seed)
    from envs.extra.solitaire_task import ExtraSolitaireVecEnv

    return ExtraSolitaireVecEnv(num_envs, config=config, seed=seed)


def score_trained_agent(task_id: str, agent: Agent, config: dict[str, Any], samples: int, seed: int) -> dict[str, Any]:
    """The task's headline number for a trained agent, beside the reference it must beat.

    Turn task: exact expected value vs the exact optimum over ``samples`` value vectors. Extra! solitaire:
    mean score over ``samples`` games vs the greedy agent on the same dice.
    """
    _check(task_id)
    if task_id == "easy_come_easy_go_turn":
        from agents.easy_come_easy_go.evaluation import score_turn_policy

        return score_turn_policy(agent, config, num_vectors=samples, seed=seed)
    from agents.extra import GreedyAgent
    from agents.extra.evaluation import solitaire_scores
    from envs.common.config import validate_config
    from envs.extra.solitaire_task import SolitaireConfig

    game = validate_config(SolitaireConfig, config).game_config().model_dump(exclude={"num_players", "reward"})
    rows = solitaire_scores({"trained": agent, "greedy": GreedyAgent(**config)}, samples, game, seed)
    trained, greedy = rows
    return {**trained, "greedy_mean_score": greedy["mean_score"], "greedy_ci95": greedy["ci95"]}
