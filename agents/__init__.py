"""Policies for Dice Arena games. Every agent follows :class:`agents.base.Agent`.

``make_agent(name, **kwargs)`` builds one by name (what evaluate.py's YAML files refer to).
"""

from __future__ import annotations

from typing import Any

from agents.base import Agent
from agents.random_agent import RandomAgent

__all__ = ["Agent", "RandomAgent", "AGENT_NAMES", "make_agent"]


def _build(name: str, kwargs: dict[str, Any]) -> Agent:
    # Imported on demand: the solver tables and SB3 (optional dependency) cost time to load.
    if name == "random":
        return RandomAgent(**kwargs)
    if name == "sb3":
        from agents.sb3_agent import SB3Agent

        return SB3Agent.load(**kwargs)
    if name.startswith("extra_"):
        from agents.extra import ExpectimaxAgent, GreedyAgent, PlannerAgent

        extra = {"extra_greedy": GreedyAgent, "extra_planner": PlannerAgent, "extra_expectimax": ExpectimaxAgent}
        return extra[name](**kwargs)
    if name == "yay_greedy":
        from agents.yay import YayGreedyAgent

        return YayGreedyAgent(**kwargs)
    if name == "yay_lookahead":
        from agents.yay import YayLookaheadAgent

        return YayLookaheadAgent(**kwargs)
    from agents.easy_come_easy_go import ExactTurnAgent, FullGameHeuristicAgent, MyopicAgent

    return {"myopic": MyopicAgent, "exact": ExactTurnAgent, "heuristic": FullGameHeuristicAgent}[name](**kwargs)


AGENT_NAMES = (
    "random",
    "myopic",
    "exact",
    "heuristic",
    "sb3",
    "extra_greedy",
    "extra_planner",
    "extra_expectimax",
    "yay_greedy",
    "yay_lookahead",
)


def make_agent(name: str, **kwargs: Any) -> Agent:
    """An agent by registry name; ``kwargs`` go to its constructor (``sb3``: to ``SB3Agent.load``)."""
    if name not in AGENT_NAMES:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(AGENT_NAMES)}")
    try:
        return _build(name, kwargs)
    except TypeError as exc:
        raise TypeError(f"make_agent({name!r}): bad arguments {sorted(kwargs)}: {exc}") from exc
