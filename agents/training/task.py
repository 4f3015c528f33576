"""A training task and the per-game task registry; a game's ``agents/<game>/tasks.py`` (or a game's own module,
outside the tree) registers its tasks here.

Why its own module: the generic tasks (``vs_opponents``, ``self_play``) and every game's tasks build ``Task``
objects, and the list of all tasks (``dicearena.agents.training.tasks``) imports them; this leaf breaks that circle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dicearena.agents.base import Agent

__all__ = ["GAME_TASKS", "Task", "register_task"]


@dataclass(frozen=True)
class Task:
    """A training task: ``check(config)`` raises a ConfigError naming a bad key (before anything is built),
    ``make_env(config, num_envs, seed)`` is the SB3 vec env with ``action_masks()``, ``score(agent, config,
    samples, seed)`` the task's headline number for a trained agent beside the reference it must beat;
    ``prepare(config, env, model, out, resume, seconds)``, if any, wires the built model into the env (self-play's
    pool) before training and returns the task's own SB3 callbacks (``resume``: the ``ModelFile`` of the checkpoint
    resumed, or None). A callback may define ``checkpoint_metadata()``, readable values saved in every checkpoint
    and handed back as ``resume.metadata``, and ``after_checkpoint()``, called once a checkpoint is saved."""

    id: str
    check: Callable[[dict[str, Any]], None]
    make_env: Callable[[dict[str, Any], int, int], Any]
    score: Callable[[Agent, dict[str, Any], int, int], dict[str, Any]]
    prepare: Callable[..., list[Any]] | None = None  # (config, env, model, out, resume, seconds) -> SB3 callbacks


GAME_TASKS: dict[str, dict[str, Task]] = {}  # game -> task id -> its task (beside the generic two)


def register_task(game: str, task: Task) -> Task:
    """Add ``game``'s own ``task`` (idempotent: a re-import replaces it)."""
    GAME_TASKS.setdefault(game, {})[task.id] = task
    return task
