"""Training tasks by name: what ``train.py`` builds from a recipe's ``task.id`` and how it scores the result."""

from __future__ import annotations

from typing import Any

from agents.base import Agent

__all__ = ["TASKS", "check_task_config", "make_training_env", "score_trained_agent"]

TASKS = (
    "easy_come_easy_go_turn",
    "extra_solitaire",
    "easy_come_easy_go_vs_opponents",
    "extra_vs_opponents",
    "yay_vs_opponents",
)
VS_OPPONENTS_TASKS = TASKS[2:]


def _check(task_id: str) -> None:
    if task_id not in TASKS:
        raise ValueError(f"unknown task {task_id!r}; known tasks: {', '.join(TASKS)}")


def check_task_config(task_id: str, config: dict[str, Any]) -> None:
    """Validate a recipe's ``task.config`` up front (ConfigError naming the key), before anything is built."""
    _check(task_id)
    from envs.common.config import ConfigError, validate_config

    if task_id in VS_OPPONENTS_TASKS:
        from agents import check_agent
        from agents.vs_opponents import OpponentsTaskConfig, make_vs_opponents_env

        task = validate_config(OpponentsTaskConfig, config)
        game = task_id.removesuffix("_vs_opponents")
        for k, spec in enumerate(task.opponents):
            try:
                check_agent(spec.kind, spec.kwargs, game)
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"[task.config.opponents.{k}] {exc}") from None
        try:  # seats, the game's own keys and limits, the opponents' argument values: building one game checks them
            make_vs_opponents_env(task_id, config, 1, 0)
        except (TypeError, ValueError, FileNotFoundError) as exc:
            raise ConfigError(f"[task.config] {exc}") from None
    elif task_id == "easy_come_easy_go_turn":
        from envs.easy_come_easy_go.turn_task import TurnTaskConfig

        validate_config(TurnTaskConfig, config)
    else:
        from envs.extra.solitaire_task import SolitaireConfig

        validate_config(SolitaireConfig, config)


def make_training_env(task_id: str, config: dict[str, Any], num_envs: int, seed: int):
    """A vectorised SB3 env with ``action_masks()`` for the task."""
    _check(task_id)
    if task_id in VS_OPPONENTS_TASKS:
        from agents.vs_opponents import make_vs_opponents_env

        return make_vs_opponents_env(task_id, config, num_envs, seed)
    if task_id == "easy_come_easy_go_turn":
        from envs.easy_come_easy_go.turn_task import EasyComeEasyGoTurnVecEnv

        return EasyComeEasyGoTurnVecEnv(num_envs, config=config, seed=seed)
    from envs.extra.solitaire_task import ExtraSolitaireVecEnv

    return ExtraSolitaireVecEnv(num_envs, config=config, seed=seed)


def score_trained_agent(task_id: str, agent: Agent, config: dict[str, Any], samples: int, seed: int) -> dict[str, Any]:
    """The task's headline number for a trained agent, beside the reference it must beat.

    Turn task: exact expected value vs the exact optimum over ``samples`` value vectors. Extra! solitaire:
    mean score over ``samples`` games vs the greedy agent on the same dice. Against opponents: win rate over
    ``samples`` games beside the first opponent's own win rate in the learner's seat.
    """
    _check(task_id)
    if task_id in VS_OPPONENTS_TASKS:
        from agents.vs_opponents import score_vs_opponents

        return score_vs_opponents(task_id, agent, config, samples, seed)
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
