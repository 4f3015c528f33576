"""Training tasks by name: what ``train.py`` builds from a recipe's ``task.id``."""

from __future__ import annotations

from typing import Any

__all__ = ["TASKS", "make_training_env"]

TASKS = ("easy_come_easy_go_turn",)


def make_training_env(task_id: str, config: dict[str, Any], num_envs: int, seed: int):
    """A vectorised SB3 env with ``action_masks()`` for the task."""
    if task_id == "easy_come_easy_go_turn":
        from envs.easy_come_easy_go.turn_task import EasyComeEasyGoTurnVecEnv

        return EasyComeEasyGoTurnVecEnv(num_envs, config=config, seed=seed)
    raise ValueError(f"unknown task {task_id!r}; known tasks: {', '.join(TASKS)}")
