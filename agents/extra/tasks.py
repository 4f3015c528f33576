"""Extra!'s own training task: one player's sheet, scored (``extra_solitaire``)."""

from __future__ import annotations

from typing import Any

from dicearena.agents.base import Agent
from dicearena.agents.extra import GreedyAgent
from dicearena.agents.extra.evaluation import solitaire_scores
from dicearena.agents.training.task import Task, register_task
from dicearena.envs.common.config import validate_config
from dicearena.envs.extra.config import SolitaireConfig
from dicearena.envs.extra.solitaire_task import ExtraSolitaireVecEnv

__all__ = ["SOLITAIRE_TASK"]


def _check(config: dict[str, Any]) -> None:
    validate_config(SolitaireConfig, config)


def _make_env(config: dict[str, Any], num_envs: int, seed: int) -> Any:
    return ExtraSolitaireVecEnv(num_envs, config=config, seed=seed)


def _score(agent: Agent, config: dict[str, Any], samples: int, seed: int) -> dict[str, Any]:
    """Mean score over ``samples`` games vs the greedy agent on the same dice."""

    game = validate_config(SolitaireConfig, config).game_config().model_dump(exclude={"num_players", "reward"})
    trained, greedy = solitaire_scores({"trained": agent, "greedy": GreedyAgent()}, samples, game, seed)
    return {**trained, "greedy_mean_score": greedy["mean_score"], "greedy_ci95": greedy["ci95"]}


SOLITAIRE_TASK = register_task("extra", Task("extra_solitaire", _check, _make_env, _score))
