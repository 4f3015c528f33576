"""Policies for Dice Arena games. Every agent follows :class:`dicearena.agents.base.Agent`.

``make_agent(name, **kwargs)`` builds one by name (what the YAML recipes refer to); ``check_agent(name,
kwargs, game)`` checks a name and its arguments without building anything, so a recipe fails before any work.
"""


from __future__ import annotations

# the folder is installed as dicearena.agents; a bare "agents" would be a second copy
if __name__ != "dicearena.agents":
    raise ImportError(f"import dicearena.agents, not {__name__} (pip install -e . maps agents/ onto dicearena.agents)")

import difflib
import importlib
import inspect
from typing import Any

from dicearena.agents.base import Agent
from dicearena.agents.random_agent import RandomAgent
from dicearena.agents.registry import Target, register_agents, registered, resolve, table_adapter
from dicearena.envs.common.config import validate_config
from dicearena.envs.common.contract import game_spec
from dicearena.envs.common.table import check_seed

__all__ = ["AGENT_NAMES", "Agent", "RandomAgent", "agent_names", "check_agent", "make_agent", "observation_misfit",
           "register_agents", "table_player"]

# Agents for any game; each game's own agents are registered by its folder (agents/<game>/__init__.py), and its shipped
# trained models by their cards in agents/models (dicearena.agents.shipped).
_GENERIC: dict[str, tuple[Target, str, str | None]] = {
    "random": ("dicearena.agents.random_agent", "RandomAgent", None),
    "sb3": ("dicearena.agents.sb3_agent", "SB3Agent", None),
    "search": ("dicearena.agents.search", "SearchAgent", None),  # chance-aware MCTS on any game's engine
    # an RLlib checkpoint (the rllib extra: dicearena.agents.training.rllib)
    "rllib": ("dicearena.agents.rllib_agent", "RLlibAgent", None),
}


def _agents() -> dict[str, tuple[Target, str, str | None]]:
    """name -> (what builds it, its attribute or "", the game it plays or None for any): the generic agents, each
    game's (``dicearena.agents.registry``) and the shipped models (``dicearena.agents.shipped``)."""
    from dicearena.agents.shipped import shipped

    table: dict[str, tuple[Target, str, str | None]] = dict(_GENERIC)
    for game, entry in registered().items():
        for name, target in entry.policies.items():
            table[name] = (target, "", game)
    for name, card in shipped().items():  # trained models in agents/models (dicearena.agents.shipped)
        table[name] = ("dicearena.agents.shipped", name, card["game"])
    return table


def __getattr__(name: str) -> Any:
    """``AGENT_NAMES``, every agent's name, read when asked for: importing the package loads no game's agents."""
    if name == "AGENT_NAMES":
        return tuple(_agents())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    target, attr, _ = _agents()[name]
    agent_class = getattr(importlib.import_module(target), attr) if attr else resolve(target)
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
    if "seed" in (kwargs or {}):  # every agent's seed means the same: a stream's seed (check_seed)
        try:
            check_seed(kwargs["seed"])
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"make_agent({name!r}): {exc}") from None


def make_agent(name: str, **kwargs: Any) -> Agent:
    """An agent by registry name; ``kwargs`` go to its constructor (``sb3``: to ``SB3Agent.load``)."""
    check_agent(name, kwargs)
    try:
        return _constructor(name)(**kwargs)
    except TypeError as exc:
        raise TypeError(f"make_agent({name!r}): bad arguments {sorted(kwargs)}: {exc}") from exc


def table_player(game: str, kind: str, config: dict[str, Any], **kwargs: Any) -> Agent:
    """Agent ``kind`` built by name as it plays a full table of ``game`` under ``config`` (the game's
    ``table_agent`` adapts e.g. a turn-task agent); a ValueError if it cannot play there."""
    agent = make_agent(kind, **kwargs)
    return seat_at_table(game, kind, agent, config)


def seat_at_table(game: str, kind: str, agent: Agent, config: Any) -> Agent:
    """``agent`` (of kind ``kind``) adapted to a full table of ``game``, or a ValueError if it cannot play there."""
    adapt = table_adapter(game)
    seated = agent if adapt is None else adapt(kind, agent, config)
    if seated is None:
        raise ValueError(f"agent {kind!r} cannot play a full table of {game}")
    return seated


def observation_misfit(agent: Agent, game: str, config: dict[str, Any]) -> str | None:
    """Why ``agent`` cannot read ``game``'s observations under ``config``, or None if it can: a model reads one
    observation size only (trained at another table size, it cannot sit at this one); planning agents read any
    state. A shipped agent also claims its table sizes (its card's ``players``): it sits out any other."""
    claimed = getattr(agent, "players", None)
    players = config.get("num_players")
    if isinstance(claimed, list) and players is not None and players not in claimed:
        sizes = " or ".join(map(str, claimed))
        return (f"{getattr(agent, 'name', type(agent).__name__)!r} was trained for {sizes}-player tables (its card); "
                f"this one has {players} players")  # fmt: skip
    space = getattr(agent, "observation_space", None)
    if getattr(agent, "reads_state", False) or space is None:
        return None
    spec = game_spec(game)
    size = spec.sizes(validate_config(spec.config, config)).observation
    if space.shape == (size,):
        return None
    return (f"{getattr(agent, 'name', type(agent).__name__)!r} was trained on observations of {space.shape[0]} "
            f"floats; {game} at {config.get('num_players', 'its default number of')} players has {size}")
