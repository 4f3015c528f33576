"""Scoring Greed stop policies exactly: what the training task (``easy_money_greed``) and ``evaluate.py``'s
``greed_tasks`` benchmark both report.

Why exact: the task's chance is one die and the named player's cash M, so a policy's expected units follow by
dynamic programming over (total, M) from its action at every decision (``greed_solver.policy_value``): no sampling
noise, and the optimum (``sequence_value``) is the reference, for each M and on average over the M the config draws.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from dicearena.agents.base import Agent
from dicearena.agents.easy_money.greed_agent import GreedExactAgent, GreedTaskExactAgent, GreedTaskThresholdAgent
from dicearena.agents.easy_money.greed_solver import policy_value, sequence_value
from dicearena.agents.easy_money.heuristics import EasyMoneyHeuristicAgent
from dicearena.envs.common.config import validate_config
from dicearena.envs.common.seating import choose
from dicearena.envs.easy_money import greed as G
from dicearena.envs.easy_money.greed import GREED_STOP, GreedTaskConfig

__all__ = ["greed_decision_states", "greed_task_agent", "score_greed_policy"]


def _config(config: Any) -> GreedTaskConfig:
    return config if isinstance(config, GreedTaskConfig) else validate_config(GreedTaskConfig, config)


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


def score_greed_policy(agent: Agent, config: dict[str, Any] | Any,
                       progress: Callable[[int], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """The agent's exact expected units per Greed sequence, M drawn as the config draws it, beside the optimum;
    ``by_cash`` has the same per M: ``(M, units, optimal units)``. ``progress(1)`` after each M."""

    cfg = _config(config)
    low, high = cfg.cash_range
    started = time.perf_counter()
    by_cash = []
    for cash in range(low, high + 1):
        states, obs, masks = greed_decision_states(cfg, cash)
        actions = np.asarray(choose(agent, obs, masks, states, 0))
        by_cash.append((cash, policy_value((actions == GREED_STOP).astype(float), cash), sequence_value(cash)))
        if progress is not None:
            progress(1)
    value = float(np.mean([v for _, v, _ in by_cash]))
    optimum = float(np.mean([o for _, _, o in by_cash]))
    return {"mean_units": value, "optimal_units": optimum,
            "percent_of_optimum": 100.0 * value / optimum if optimum > 0 else 100.0,
            "named_cash": [low, high], "seconds": round(time.perf_counter() - started, 3),
            "by_cash": by_cash}  # fmt: skip


def greed_task_agent(agent: Agent, config: Any) -> Agent | None:
    """``agent`` as it plays the Greed stop task under ``config``: the full game's exact agent as the exact stop
    rule, the heuristic as its own threshold (its ``greed_cap`` and ``greed_margin``), a model that reads the task's
    observation (or any agent that plays masks alone, as ``random``) as it is; None for one that cannot play it."""
    cfg = _config(config)
    if isinstance(agent, GreedExactAgent):  # before the heuristic: the exact agent is the heuristic elsewhere
        return GreedTaskExactAgent(cfg)
    if isinstance(agent, EasyMoneyHeuristicAgent):
        return GreedTaskThresholdAgent(cfg, agent.greed_cap, agent.greed_margin)
    if getattr(agent, "reads_state", False) and not isinstance(agent, GreedTaskExactAgent | GreedTaskThresholdAgent):
        return None  # a planner of the full game reads its states, not the task's
    space = getattr(agent, "observation_space", None)
    if space is not None and tuple(space.shape) != (G.OBSERVATION_SIZE,):
        return None  # a model trained on another observation
    return agent
