"""Training and scoring a policy at one seat against fixed opponents (the ``*_vs_opponents`` tasks).

Task config (a recipe's ``task.config``): ``opponents`` (an agent name, ``{kind, kwargs}``, or a list of them, one
per other seat), ``learner_seat`` (default 0) and ``game`` (the game's config keys).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pydantic import Field, field_validator

from agents import make_agent
from agents.base import Agent
from agents.stats import wilson_ci
from envs.common.config import GameConfig, validate_config

__all__ = ["OpponentsTaskConfig", "make_vs_opponents_env", "score_vs_opponents", "win_rate_vs_opponents"]

CHUNK = 4096  # games played side by side when scoring


class OpponentSpec(GameConfig):
    kind: str = Field(description="agents.make_agent name")
    kwargs: dict[str, Any] = Field(default_factory=dict, description="constructor arguments")


class OpponentsTaskConfig(GameConfig):
    opponents: list[OpponentSpec] = Field(min_length=1, description="one for every other seat, or one for all")
    learner_seat: int = Field(0, ge=0, le=5, description="the trained policy's seat")
    game: dict[str, Any] = Field(default_factory=dict, description="the game's config keys")

    @field_validator("opponents", mode="before")
    @classmethod
    def _names_are_specs(cls, value: Any) -> Any:
        items = value if isinstance(value, list) else [value]
        return [{"kind": item} if isinstance(item, str) else item for item in items]

    def build_opponents(self) -> list[Agent]:
        return [make_agent(spec.kind, **spec.kwargs) for spec in self.opponents]


def _env_class(task_id: str) -> type:
    if task_id == "easy_come_easy_go_vs_opponents":
        from envs.easy_come_easy_go.vs_opponents import EasyComeEasyGoVsOpponentsVecEnv

        return EasyComeEasyGoVsOpponentsVecEnv
    if task_id == "extra_vs_opponents":
        from envs.extra.vs_opponents import ExtraVsOpponentsVecEnv

        return ExtraVsOpponentsVecEnv
    if task_id == "yay_vs_opponents":
        from envs.yay.vs_opponents import YayVsOpponentsVecEnv

        return YayVsOpponentsVecEnv
    raise ValueError(
        f"unknown task {task_id!r}; known: easy_come_easy_go_vs_opponents, extra_vs_opponents, yay_vs_opponents"
    )


def make_vs_opponents_env(task_id: str, config: dict[str, Any], num_envs: int, seed: int | None) -> Any:
    """The task's SB3 vec env with its opponents built from their specs."""
    task = validate_config(OpponentsTaskConfig, config)
    opponents = task.build_opponents()
    return _env_class(task_id)(num_envs, opponents, task.game, learner_seat=task.learner_seat, seed=seed)


def win_rate_vs_opponents(agent: Agent, make_env: Callable[[int, int], Any], games: int, seed: int) -> dict[str, Any]:
    """Play ``agent`` in the learner seat of ``games`` games: ``make_env(n, seed)`` envs of up to 4,096 games, the
    first game of each counted (counting whichever games end first would favour short games). A win is a top
    score (ties included, as the reward counts it); ``tie_rate`` says how many of those were shared."""
    wins = ties = 0
    returns: list[float] = []
    for start in range(0, games, CHUNK):
        n = min(CHUNK, games - start)
        env = make_env(n, seed + start)
        obs = env.reset()
        pending = np.ones(n, dtype=bool)
        while pending.any():
            obs, _, dones, infos = env.step(agent.act_batch(obs, env.action_masks().astype(np.int8)))
            for i in np.flatnonzero(dones & pending):
                wins += bool(infos[i]["won"])
                ties += bool(infos[i]["won"]) and bool(infos[i].get("tied", False))
                returns.append(infos[i]["episode"]["r"])
            pending &= ~dones
    rate, low, high = wilson_ci(wins, games)
    return {"win_rate": rate, "ci95": [low, high], "tie_rate": ties / games, "games": games,
            "mean_return": float(np.mean(returns))}  # fmt: skip


def score_vs_opponents(task_id: str, agent: Agent, config: dict[str, Any], games: int, seed: int) -> dict[str, Any]:
    """The trained agent's win rate beside the first opponent's own in the learner's seat (same dice stream)."""
    task = validate_config(OpponentsTaskConfig, config)

    def make_env(n: int, env_seed: int) -> Any:
        return make_vs_opponents_env(task_id, config, n, env_seed)

    trained = win_rate_vs_opponents(agent, make_env, games, seed)
    reference = make_agent(task.opponents[0].kind, **task.opponents[0].kwargs)
    ref = win_rate_vs_opponents(reference, make_env, games, seed)
    return {
        "agent": getattr(agent, "name", "trained"),
        **trained,
        "reference_agent": task.opponents[0].kind,
        "reference_win_rate": ref["win_rate"],
        "reference_ci95": ref["ci95"],
        "reference_tie_rate": ref["tie_rate"],
    }
