"""The registry of the suite's games: one line per game (its module registers a GameSpec on import)."""

from __future__ import annotations

import importlib

__all__ = ["GAME_MODULES", "import_games"]

GAME_MODULES = (
    "dicearena.envs.easy_come_easy_go.game",
    "dicearena.envs.extra.game",
    "dicearena.envs.yay.game",
    "dicearena.envs.easy_money.game",
)


def import_games() -> None:
    """Import every game module, so each registers itself with ``dicearena.envs.common.contract``."""
    for module in GAME_MODULES:
        importlib.import_module(module)
