"""The policy layer's per-game registry: each game's agents, filled from that game's own folder.

Why here and not in the game's spec: a ``GameSpec`` holds rules only, and ``dicearena.envs`` never names a module
of ``dicearena.agents``. A suite game's folder ``agents/<game>/__init__.py`` calls :func:`register_agents` when it
is imported; :func:`load_game_folders` imports that folder for every registered game that has one. A game kept
outside the tree calls :func:`register_agents` from its own module. The training and evaluation layers keep their
own registries the same way (``dicearena.agents.training.tasks``, ``dicearena.agents.evaluation.benchmarks``),
found by :func:`game_module`.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from dicearena.envs.common.contract import GAMES

__all__ = ["GameAgents", "game_agents", "game_module", "load_game_folders", "register_agents", "registered",
           "resolve", "table_adapter"]

Target = str | Callable[..., Any]  # "module:Class" (imported when first built) or the class itself


@dataclass
class GameAgents:
    """One game's agents: ``policies`` maps names (``<prefix>_...``) to what builds them; ``table_agent(kind,
    agent, config)`` adapts an agent to a full table of the game (e.g. a turn-task policy), or returns None when it
    cannot sit there."""

    game: str
    prefix: str
    policies: dict[str, Target] = field(default_factory=dict)
    table_agent: Callable[[str, Any, Any], Any] | None = None


_GAMES: dict[str, GameAgents] = {}


def register_agents(game: str, policies: dict[str, Target], prefix: str | None = None,
                    table_agent: Callable[[str, Any, Any], Any] | None = None) -> GameAgents:  # fmt: skip
    """Register ``game``'s agents (idempotent: a re-import replaces the entry). Names start with ``prefix + "_"``
    (default: the game id), so every name says which game it plays."""
    prefix = prefix or game
    wrong = [name for name in policies if not name.startswith(f"{prefix}_")]
    if wrong:
        raise ValueError(f"game {game!r}: agent names start with {prefix + '_'!r}, got {wrong}")
    for name, target in policies.items():
        if isinstance(target, str) and target.count(":") != 1:
            raise ValueError(f"game {game!r}: agent {name!r} is 'module:Class', got {target!r}")
    entry = GameAgents(game, prefix, dict(policies), table_agent)
    _GAMES[game] = entry
    return entry


def game_module(game: str, name: str = "") -> ModuleType | None:
    """``dicearena.agents.<game>[.<name>]`` imported, or None when the suite has no such module (a game from
    outside the tree registers its agents itself)."""
    module = f"{__package__}.{game}" + (f".{name}" if name else "")
    try:
        if importlib.util.find_spec(module) is None:
            return None
    except ModuleNotFoundError:  # no folder for this game
        return None
    return importlib.import_module(module)


def load_game_folders() -> None:
    """Import ``agents/<game>/`` for every registered game that has one (each registers its agents)."""

    for game in GAMES:
        if game not in _GAMES:
            game_module(game)


def registered() -> dict[str, GameAgents]:
    """Every game's agents, the suite's folders loaded first."""
    load_game_folders()
    return dict(_GAMES)


def game_agents(game: str) -> GameAgents | None:
    """``game``'s registered agents, or None if it has none."""
    return registered().get(game)


def table_adapter(game: str) -> Callable[[str, Any, Any], Any] | None:
    """``game``'s ``table_agent(kind, agent, config)``, or None when its agents sit at a table as they are."""
    entry = game_agents(game)
    return None if entry is None else entry.table_agent


def resolve(target: Target) -> Callable[..., Any]:
    """What a registry entry builds: the class named by ``"module:Class"``, or the callable itself."""
    if callable(target):
        return target
    module, attr = target.split(":")
    return getattr(importlib.import_module(module), attr)
