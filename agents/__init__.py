"""Policies for Dice Arena games. Every agent follows :class:`agents.base.Agent`.

``make_agent(name, **kwargs)`` builds one by name (what the YAML recipes refer to); ``check_agent(name,
kwargs, game)`` checks a name and its arguments without building anything, so a recipe fails before any work.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
from typing import Any

from agents.base import Agent
from agents.random_agent import RandomAgent

__all__ = ["AGENT_NAMES", "Agent", "RandomAgent", "agent_names", "check_agent", "make_agent"]

# Agents for any game; each game's own agents are declared in its GameSpec (envs/<game>/game.py), and its shipped
# trained models by their cards in agents/models (agents.shipped).
_GENERIC: dict[str, tuple[str, str, str | None]] = {
    "random": ("agents.random_agent", "RandomAgent", None),
    "sb3": ("agents.sb3_agent", "SB3Agent", None),
    "rllib": ("agents.rllib_agent", "RLlibAgent", None),  # an RLlib checkpoint (the rllib extra: agents.rllib)
}


def _agents() -> dict[str, tuple[str, str, str | None]]:
    """name -> (module, class, the game it plays or None for any), from the registered games' specs."""
    import envs  # noqa: F401  (registers the suite's games)
    from agents.shipped import shipped
    from envs.common.contract import GAMES

    table = dict(_GENERIC)
    for spec in GAMES.values():
        for name, target in spec.agents.items():
            module, cls = target.split(":")
            table[name] = (module, cls, spec.id)
    for name, card in shipped().items():  # trained models in agents/models (agents.shipped)
        table[name] = ("agents.shipped", name, card["game"])
    return table


AGENT_NAMES = tuple(_agents())  # the suite's agents (agent_names() also lists games registered later)


def agent_names(game: str | None = None) -> tuple[str, ...]:
    """Every registered agent's name, or those that can play ``game``."""
    return tuple(n for n, (_, _, g) in _agents().items() if game is None or g in (None, game))


def _unknown(name: Any, game: str | None) -> ValueError:
    known = agent_names(game)
    near = [n for n in known if isinstance(name, str) and n.endswith(f"_{name}")]
    near += difflib.get_close_matches(str(name), known, n=2)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    scope = f" for {game}" if game else ""
    return ValueError(f"unknown agent {name!r}{hint} Known agents{scope}: {', '.join(known)}")


def _constructor(name: str) -> Any:
    module, cls, _ = _agents()[name]
    agent_class = getattr(importlib.import_module(module), cls)
    return agent_class.load if name == "sb3" else agent_class


def check_agent(name: Any, kwargs: dict[str, Any] | None = None, game: str | None = None) -> None:
    """A ValueError / TypeError naming what is wrong with agent ``name`` and its arguments (for ``game``)."""
    table = _agents()
    if not isinstance(name, str) or name not in table:
        raise _unknown(name, game)
    plays = table[name][2]
    if game is not None and plays not in (None, game):
        raise ValueError(f"agent {name!r} plays {plays}, not {game}; agents for {game}: {', '.join(agent_names(game))}")
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
