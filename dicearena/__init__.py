"""Dice Arena: push-your-luck dice games as reinforcement-learning environments.

The repository keeps its folders at the top (``envs/``, ``agents/``, ``configs/``); ``pyproject.toml`` installs them
as ``dicearena.envs``, ``dicearena.agents`` and ``dicearena.configs``, so nothing installs a generic top-level name.
Importing ``dicearena`` alone loads nothing heavy: ``import dicearena.envs`` registers the games.
"""

from __future__ import annotations

from importlib import metadata

try:
    __version__ = metadata.version("dice-arena")
except metadata.PackageNotFoundError:  # a checkout that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
