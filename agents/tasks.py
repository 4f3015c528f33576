"""Training tasks by name: what ``train.py`` builds from a recipe's ``task.id`` and how it scores the result.

Every registered game has ``<game>_vs_opponents`` (one learning seat against fixed opponents, ``agents.vs_opponents``)
and ``<game>_selfplay`` (a seat against a pool of its own snapshots and named agents, ``agents.self_play``);
a game declares any task of its own in its spec (``GameSpec.tasks``: id -> ``"module:TASK"``, a :class:`Task`).
No game is named here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agents.base import Agent

__all__ = ["Task", "all_tasks", "check_task_config", "make_training_env", "prepare_training", "score_trained_agent",
           "task"]  # fmt: skip


@dataclass(frozen=True)
class Task:
    """A training task: ``check(config)`` raises a ConfigError naming a bad key (before anything is built),
    ``make_env(config, num_envs, seed)`` is the SB3 vec env with ``action_masks()``, ``score(agent, config,
    samples, seed)`` the task's headline number for a trained agent beside the reference it must beat;
    ``prepare(config, env, model, out, resumed, seconds)``, if any, wires the built model into the env (self-play's
    pool) before training and returns the task's own SB3 callbacks."""

    id: str
    check: Callable[[dict[str, Any]], None]
    make_env: Callable[[dict[str, Any], int, int], Any]
    score: Callable[[Agent, dict[str, Any], int, int], dict[str, Any]]
    prepare: Callable[..., list[Any]] | None = None  # (config, env, model, out, resumed, seconds) -> SB3 callbacks


def all_tasks() -> dict[str, Task]:
    """Every task of every registered game."""
    import envs  # noqa: F401  (registers the suite's games)
    from agents.self_play import self_play_task
    from agents.vs_opponents import vs_opponents_task
    from envs.common.contract import GAMES

    out: dict[str, Task] = {}
    for spec in GAMES.values():
        out[f"{spec.id}_vs_opponents"] = vs_opponents_task(spec.id)
        out[f"{spec.id}_selfplay"] = self_play_task(spec.id)
        for task_id, target in spec.tasks.items():
            module, name = target.split(":")
            out[task_id] = getattr(importlib.import_module(module), name)
    return out


def __getattr__(name: str) -> Any:
    """``TASKS``, the suite's task ids (what a recipe's ``task.id`` may name), found when first asked for: a game's
    task module imports ``Task`` from here, so listing the tasks at import would be circular."""
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


def prepare_training(task_id: str, config: dict[str, Any], env: Any, model: Any, out: Any, resumed: bool,
                     seconds: Callable[[], float]) -> list[Any]:  # fmt: skip
    """The task's own training callbacks, after wiring ``model`` into ``env`` where the task needs it."""
    prepare = task(task_id).prepare
    return [] if prepare is None else prepare(config, env, model, out, resumed, seconds)
