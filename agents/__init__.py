"""Policies for Dice Arena games. Every agent follows :class:`agents.base.Agent`.

``make_agent(name, **kwargs)`` builds one by name (what the YAML recipes refer to); ``check_agent(name,
kwargs, game)`` checks a name and its arguments without building anything, so a recipe fails before any work.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from agents.base import Agent
from agents.random_agent import RandomAgent

__all__ = ["AGENT_GAMES", "AGENT_NAMES", "Agent", "RandomAgent", "check_agent", "make_agent"]

# name -> (module, class, the game it plays or None for any). Imported on demand: the solver tables and SB3
# (an optional dependency) cost time to load.
_AGENTS: dict[str, tuple[str, str, str | None]] = {
    "random": ("agents.random_agent", "RandomAgent", None),
    "myopic": ("agents.easy_come_easy_go", "MyopicAgent", "easy_come_easy_go"),
    "exact": ("agents.easy_come_easy_go", "ExactTurnAgent", "easy_come_easy_go"),
    "heuristic": ("agents.easy_come_easy_go", "FullGameHeuristicAgent", "easy_come_easy_go"),
    "sb3": ("agents.sb3_agent", "SB3Agent", None),
    "extra_greedy": ("agents.extra", "GreedyAgent", "extra"),
    "extra_planner": ("agents.extra", "PlannerAgent", "extra"),
    "extra_expectimax": ("agents.extra", "ExpectimaxAgent", "extra"),
    "yay_greedy": ("agents.yay", "YayGreedyAgent", "yay"),
    "yay_lookahead": ("agents.yay", "YayLookaheadAgent", "yay"),
}
AGENT_NAMES = tuple(_AGENTS)
AGENT_GAMES = {name: game for name, (_, _, game) in _AGENTS.items()}


def _constructor(name: str) -> Any:
    module, cls, _ = _AGENTS[name]
    agent_class = getattr(importlib.import_module(module), cls)
    return agent_class.load if name == "sb3" else agent_class


def check_agent(name: Any, kwargs: dict[str, Any] | None = None, game: str | None = None) -> None:
    """A ValueError / TypeError naming what is wrong with agent ``name`` and its arguments (for ``game``)."""
    if not isinstance(name, str) or name not in _AGENTS:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(AGENT_NAMES)}")
    plays = AGENT_GAMES[name]
    if game is not None and plays not in (None, game):
        fits = ", ".join(n for n, g in AGENT_GAMES.items() if g in (None, game))
        raise ValueError(f"agent {name!r} plays {plays}, not {game}; agents for {game}: {fits}")
    try:
        inspect.signature(_constructor(name)).bind(**(kwargs or {}))
    except TypeError as exc:
        raise TypeError(f"make_agent({name!r}): bad arguments {sorted(kwargs or {})}: {exc}") from None


def make_agent(name: str, **kwargs: Any) -> Agent:
    """An agent by registry name; ``kwargs`` go to its constructor (``sb3``: to ``SB3Agent.load``)."""
    check_agent(name, kwargs)
    try:
        return _constructor(name)(**kwargs)
    except TypeError as exc:
        raise TypeError(f"make_agent({name!r}): bad arguments {sorted(kwargs)}: {exc}") from exc
