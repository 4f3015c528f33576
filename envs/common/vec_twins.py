"""``sb3_names``: a task module's ``FooVecEnv`` names, served lazily (PEP 562) from its ``FooGames`` classes.

Why a module of its own: the names must not import stable-baselines3 until one is looked up, and ``vec_env`` (the
SB3 subclasses) builds on ``vec_games``; kept here, the arrows run one way (this module -> ``vec_env`` ->
``vec_games``) with no circle between the two.
"""

from __future__ import annotations

from collections.abc import Callable

from .vec_games import MaskedGames, twin_name

__all__ = ["sb3_names"]


def sb3_names(module: str, *games: type[MaskedGames]) -> Callable[[str], type]:
    """A module ``__getattr__`` (PEP 562) serving each ``FooGames`` class of ``games`` as ``FooVecEnv``, its SB3
    ``VecEnv`` twin. stable-baselines3 is imported at the first such lookup, never when the module is imported."""
    twins = {twin_name(cls): cls for cls in games}

    def __getattr__(name: str) -> type:
        if name not in twins:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        try:
            from .vec_env import sb3_vec_env  # stable-baselines3 is imported here, at the first lookup
        except ImportError as exc:
            raise ImportError(
                f"{module}.{name} is a stable-baselines3 VecEnv: install the 'train' extra "
                f"(pip install 'dice-arena[train]'), or use {twins[name].__name__}, the same games without SB3 ({exc})"
            ) from exc
        return sb3_vec_env(twins[name])

    return __getattr__

