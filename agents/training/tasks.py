"""Training tasks by name: what ``train.py`` builds from a recipe's ``task.id`` and how it scores the result.

Every registered game has ``<game>_vs_opponents`` (one learning seat against fixed opponents,
``dicearena.agents.training.vs_opponents``)
and ``<game>_selfplay`` (a seat against a pool of its own snapshots and named agents,
``dicearena.agents.training.self_play``);
a game registers any task of its own (``dicearena.agents.training.task.register_task``) from ``agents/<game>/tasks.py``.
No game is named here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dicearena.agents.base import Agent
from dicearena.agents.registry import game_module
from dicearena.agents.training.self_play import self_play_task
from dicearena.agents.training.task import GAME_TASKS, Task
from dicearena.agents.training.vs_opponents import vs_opponents_task
from dicearena.envs.common.contract import GAMES

__all__ = ["Task", "all_tasks", "check_task_config", "make_training_env", "prepare_training", "score_trained_agent",
           "task"]  # fmt: skip




def all_tasks() -> dict[str, Task]:
    """Every task of every registered game: the generic two, then the game's own (``agents/<game>/tasks.py``)."""

    out: dict[str, Task] = {}
    for game in GAMES:
        out[f"{game}_vs_opponents"] = vs_opponents_task(game)
        out[f"{game}_selfplay"] = self_play_task(game)
        game_module(game, "tasks")  # the game's own tasks register themselves
        out |= GAME_TASKS.get(game, {})
    return out


def __getattr__(name: str) -> Any:
    """``TASKS``, the task ids (what a recipe's ``task.id`` may name), found when asked for: a game registered
    later (from outside the tree) adds its tasks."""
    if name == "TASKS":
        return tuple(all_tasks())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def task(task_id: str) -> Task:
    tasks = all_tasks()
    if task_id not in tasks:
        raise ValueError(f"unknown task {task_id!r}; known tasks: {', '.join(tasks)}")
    return tasks[task_id]


def check_task_config(task_id: str, config: dict[str, Any]) -> None:
    """Validate a recipe's ``task.config`` up front (ConfigError naming the key), before anything is built."""
    task(task_id).check(config)


def make_training_env(task_id: str, config: dict[str, Any], num_envs: int, seed: int) -> Any:
    """A vectorised SB3 env with ``action_masks()`` for the task."""
    return task(task_id).make_env(config, num_envs, seed)


def score_trained_agent(task_id: str, agent: Agent, config: dict[str, Any], samples: int, seed: int) -> dict[str, Any]:
    """The task's headline number for a trained agent, beside the reference it must beat."""
    return task(task_id).score(agent, config, samples, seed)


def prepare_training(task_id: str, config: dict[str, Any], env: Any, model: Any, out: Any, resume: Any,
                     seconds: Callable[[], float]) -> list[Any]:  # fmt: skip
    """The task's own training callbacks, after wiring ``model`` into ``env`` where the task needs it (``resume``:
    the checkpoint's ``ModelFile``, or None)."""
    prepare = task(task_id).prepare
    return [] if prepare is None else prepare(config, env, model, out, resume, seconds)
