"""Training and scoring a policy at one seat against fixed opponents: every game's ``<game>_vs_opponents`` task.

Task config (a recipe's ``task.config``): ``opponents`` (an agent name, ``{kind, kwargs}``, or a list of them, one
per other seat), ``learner_seat`` (default 0) and ``game`` (the game's config keys).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pydantic import Field, field_validator

from dicearena.agents import check_agent, make_agent, observation_misfit
from dicearena.agents.base import Agent
from dicearena.agents.evaluation.benchmarks import OpponentSpec, opponent_specs
from dicearena.agents.evaluation.stats import wilson_ci
from dicearena.agents.training.task import Task
from dicearena.envs.common.config import ConfigError, GameConfig, validate_config
from dicearena.envs.common.game_seat import SeatGames, SeatVecEnv
from dicearena.envs.common.seating import choose

__all__ = ["OpponentsTaskConfig", "make_vs_opponents_env", "score_vs_opponents", "vs_opponents_task",
           "win_rate_vs_opponents"]  # fmt: skip

CHUNK = 4096  # games played side by side when scoring


class OpponentsTaskConfig(GameConfig):
    opponents: list[OpponentSpec] = Field(min_length=1, description="one for every other seat, or one for all")
    learner_seat: int = Field(0, ge=0, le=5, description="the trained policy's seat")
    game: dict[str, Any] = Field(default_factory=dict, description="the game's config keys")

    @field_validator("opponents", mode="before")
    @classmethod
    def _names_are_specs(cls, value: Any) -> Any:
        return opponent_specs(value)  # as evaluate.py's vs_opponents benchmark reads them

    def build_opponents(self) -> list[Agent]:
        return [make_agent(spec.kind, **spec.kwargs) for spec in self.opponents]


def make_vs_opponents_env(game: str, config: dict[str, Any], num_envs: int, seed: int | None) -> Any:
    """The game's seat vec env (SB3 ``SeatVecEnv``) with its opponents built from their specs."""

    task = validate_config(OpponentsTaskConfig, config)
    return SeatVecEnv(game, num_envs, task.build_opponents(), task.game, learner_seat=task.learner_seat, seed=seed)


def vs_opponents_task(game: str) -> Any:
    """``game``'s ``<game>_vs_opponents`` training task (``dicearena.agents.training.tasks.Task``)."""

    def check(config: dict[str, Any]) -> None:
        task = validate_config(OpponentsTaskConfig, config)
        for k, spec in enumerate(task.opponents):
            try:
                check_agent(spec.kind, spec.kwargs, game)
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"[task.config.opponents.{k}] {exc}") from None
        try:  # seats, the game's own keys and limits, the opponents' argument values: building one game checks them
            opponents = task.build_opponents()
            SeatGames(game, 1, opponents, task.game, learner_seat=task.learner_seat, seed=0)
        except (TypeError, ValueError, FileNotFoundError) as exc:
            raise ConfigError(f"[task.config] {exc}") from None
        for k, opponent in enumerate(opponents):
            misfit = observation_misfit(opponent, game, task.game)
            if misfit is not None:
                raise ConfigError(f"[task.config.opponents.{k}] {misfit}: it cannot play these tables")

    return Task(
        id=f"{game}_vs_opponents",
        check=check,
        make_env=lambda config, num_envs, seed: make_vs_opponents_env(game, config, num_envs, seed),
        score=lambda agent, config, samples, seed: score_vs_opponents(game, agent, config, samples, seed),
    )


def win_rate_vs_opponents(agent: Agent, make_env: Callable[[int, int], Any], games: int, seed: int) -> dict[str, Any]:
    """Play ``agent`` in the learner seat of ``games`` games: ``make_env(n, seed)`` envs of up to 4,096 games, the
    first game of each counted (counting whichever games end first would favour short games), also when it ended
    before the learner's first decision (the env skips it and records it in ``reset_infos``). A win is a top score
    (ties included, as the reward counts it); ``tie_rate`` says how many of those were shared."""
    wins = ties = 0
    returns: list[float] = []

    def count(info: dict[str, Any]) -> None:
        nonlocal wins, ties
        wins += bool(info["won"])
        ties += bool(info["won"]) and bool(info.get("tied", False))
        returns.append(info["episode"]["r"])

    for start in range(0, games, CHUNK):
        n = min(CHUNK, games - start)
        env = make_env(n, seed + start)
        obs = env.reset()
        pending = np.ones(n, dtype=bool)
        for i, info in enumerate(getattr(env, "reset_infos", [])):
            if info.get("skipped_games"):  # the env's first game ended before the learner could decide
                count(info["skipped_games"][0])
                pending[i] = False
        while pending.any():
            masks = env.action_masks().astype(np.int8)
            obs, _, dones, infos = env.step(choose(agent, obs, masks, env.engine_states, env.learner_seats))
            for i in np.flatnonzero(dones & pending):
                count(infos[i])
            pending &= ~dones
    rate, low, high = wilson_ci(wins, games)
    return {"win_rate": rate, "ci95": [low, high], "tie_rate": ties / games, "games": games,
            "mean_return": float(np.mean(returns))}  # fmt: skip


def score_vs_opponents(game: str, agent: Agent, config: dict[str, Any], games: int, seed: int) -> dict[str, Any]:
    """The trained agent's win rate beside the first opponent's own in the learner's seat (same dice stream)."""
    task = validate_config(OpponentsTaskConfig, config)

    def make_env(n: int, env_seed: int) -> Any:
        return make_vs_opponents_env(game, config, n, env_seed)

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
