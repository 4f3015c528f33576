"""Ea$y Money's own training task: the Greed stop decision (``easy_money_greed``), scored exactly.

Why exact: the task's chance is one die and the named player's cash M, so a policy's expected units follow by
dynamic programming over (total, M) from its action at every decision (``greed_solver.policy_value``): no
sampling noise, and the optimum (``sequence_value``) is the reference.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicearena.agents.base import Agent
from dicearena.agents.easy_money.greed_solver import policy_value, sequence_value
from dicearena.agents.training.task import Task, register_task
from dicearena.envs.common.config import validate_config
from dicearena.envs.common.seating import choose
from dicearena.envs.easy_money import greed as G
from dicearena.envs.easy_money.greed import GREED_STOP, GreedTaskConfig
from dicearena.envs.easy_money.greed_task import GreedStopVecEnv

__all__ = ["GREED_TASK", "greed_decision_states", "score_greed_policy"]


def _config(config: dict[str, Any]) -> Any:
    return validate_config(GreedTaskConfig, config)


def _check(config: dict[str, Any]) -> None:
    _config(config)


def _make_env(config: dict[str, Any], num_envs: int, seed: int) -> Any:
    return GreedStopVecEnv(num_envs, config=config, seed=seed)


def greed_decision_states(config: Any, cash: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The task's decision states at totals ``0..cash + 6`` against ``cash``: (states, observations, masks)."""

    totals = np.arange(cash + G.NUM_FACES + 1)
    states = np.zeros((totals.size, G.STATE_SIZE), dtype=np.int32)
    obs = np.zeros((totals.size, G.OBSERVATION_SIZE), dtype=np.float32)
    masks = np.zeros((totals.size, 2), dtype=np.int8)
    head = G.header(config)
    for i, total in enumerate(totals):
        G.init_state(states[i], head)
        states[i, G.PHASE], states[i, G.CASH], states[i, G.TOTAL] = G.P_DECIDE, cash, total
        G.observe(states[i], 0, obs[i])
        G.legal_mask(states[i], 0, masks[i])
    return states, obs, masks


def score_greed_policy(agent: Agent, config: dict[str, Any] | Any) -> dict[str, Any]:
    """The agent's exact expected units per Greed sequence, M drawn as the config draws it, beside the optimum."""

    cfg = _config(config) if isinstance(config, dict) else config
    low, high = cfg.cash_range
    values, optima = [], []
    for cash in range(low, high + 1):
        states, obs, masks = greed_decision_states(cfg, cash)
        actions = np.asarray(choose(agent, obs, masks, states, 0))
        values.append(policy_value((actions == GREED_STOP).astype(float), cash))
        optima.append(sequence_value(cash))
    value, optimum = float(np.mean(values)), float(np.mean(optima))
    return {"mean_units": value, "optimal_units": optimum,
            "percent_of_optimum": 100.0 * value / optimum if optimum > 0 else 100.0,
            "named_cash": [low, high]}  # fmt: skip


def _score(agent: Agent, config: dict[str, Any], samples: int, seed: int) -> dict[str, Any]:
    """Exact: ``samples`` and ``seed`` are unused (the score has no sampling)."""
    return score_greed_policy(agent, config)


GREED_TASK = register_task("easy_money", Task("easy_money_greed", _check, _make_env, _score))
