"""Registry entries: PettingZoo ids (``pettingzoo.make("aec", id)``) and Gymnasium ids, registered game by game.

Why game by game: a game defined in the user's own module is first-class, so its ids must exist as soon as it
registers (``contract.register_game`` calls ``register_game_ids``, a listener of ``contract.on_register``), not only
for the games registered when
``dicearena.envs`` was imported. ``register_all`` (run at that import) registers every game known so far; both are
idempotent (a notebook reload warns about nothing).

A game registered by a module outside ``dicearena.envs`` names that module in its ids' ``game`` argument
(``"module:id"``, which ``contract.game_spec`` resolves by importing it), so a spawned worker that makes the id
(Gymnasium's async ``make_vec``, SB3's ``SubprocVecEnv``) finds the game as the parent did.
"""

from __future__ import annotations

import warnings

import gymnasium
import pettingzoo

from dicearena.envs.common.contract import GAMES, GameSpec, game_module, game_reference, on_register

__all__ = ["ENV_GAMES", "GYMNASIUM_ENVS", "NAMESPACE", "PETTINGZOO_ENVS", "game_env_ids", "package_ids", "register_all",
           "register_game_ids"]

NAMESPACE = "dicearena"
SEAT_ENV = "dicearena.envs.common.game_seat:SeatEnv"
AEC_ENV = "dicearena.envs.common.game_aec:make_env"
PARALLEL_ENV = "dicearena.envs.common.game_parallel:make_parallel_env"

PETTINGZOO_ENVS: dict[str, tuple[str, bool]] = {}  # id: (module with env / parallel_env, has parallel_env)
GYMNASIUM_ENVS: dict[str, tuple[str, dict[str, str]]] = {}  # id: (entry point, kwargs)
ENV_GAMES: dict[str, str] = {}  # every id registered here: the game (or task's game) it serves


def game_env_ids(spec: GameSpec) -> tuple[dict[str, tuple[str, bool]], dict[str, tuple[str, dict[str, str]]]]:
    """``spec``'s entries of ``PETTINGZOO_ENVS`` (its classic module, else the generic env; a simultaneous game has
    a Parallel env too) and of ``GYMNASIUM_ENVS`` (its seat-vs-opponents id, ``opponents=`` required, and the task
    envs it declares in ``gym_envs``)."""
    module = spec.classic or "dicearena.envs.common.game_aec"
    pettingzoo_ids = {spec.env_id: (module, spec.dynamics == "simultaneous")}
    gymnasium_ids = {f"{NAMESPACE}/{spec.camel_name}VsOpponents-v0": (SEAT_ENV, {"game": game_reference(spec)})}
    gymnasium_ids |= {f"{NAMESPACE}/{name}": (entry, {}) for name, entry in spec.gym_envs.items()}
    return pettingzoo_ids, gymnasium_ids


def register_game_ids(spec: GameSpec, seat_env: bool = True) -> None:
    """Register ``spec``'s PettingZoo and Gymnasium ids (idempotent); a task (``seat_env=False``) has only the
    Gymnasium ids it declares in ``gym_envs`` (its one seat needs no opponents id, nor a PettingZoo one)."""
    pettingzoo_ids, gymnasium_ids = game_env_ids(spec)
    if not seat_env:
        pettingzoo_ids = {}
        gymnasium_ids = {f"{NAMESPACE}/{name}": (entry, {}) for name, entry in spec.gym_envs.items()}
    game = game_reference(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Overriding environment ...": the same entry again
        for env_id, (module, parallel) in pettingzoo_ids.items():
            if module == "dicearena.envs.common.game_aec":  # a contract game without a classic module of its own
                pettingzoo.register("aec", env_id, entry_point=AEC_ENV, kwargs={"game": game})
                if parallel:
                    pettingzoo.register("parallel", env_id, entry_point=PARALLEL_ENV, kwargs={"game": game})
            else:
                pettingzoo.register("aec", env_id, entry_point=f"{module}:env")
                if parallel:
                    pettingzoo.register("parallel", env_id, entry_point=f"{module}:parallel_env")
            PETTINGZOO_ENVS[env_id] = (module, parallel)
            ENV_GAMES[env_id] = spec.id
        for env_id, (entry_point, kwargs) in gymnasium_ids.items():
            known = gymnasium.registry.get(env_id)
            if known is None or known.entry_point != entry_point or known.kwargs != kwargs:
                gymnasium.register(id=env_id, entry_point=entry_point, kwargs=kwargs)
            GYMNASIUM_ENVS[env_id] = (entry_point, kwargs)
            ENV_GAMES[env_id] = spec.id


def package_ids() -> set[str]:
    """The ids of the games ``dicearena.envs`` registers itself: what a fresh ``import dicearena.envs`` knows (this
    process may know more, e.g. the ids of a game registered by the user's module, such as the tests' Pig)."""
    return {i for i, game in ENV_GAMES.items() if (game_module(game) or "").startswith("dicearena.envs.")}


def register_all() -> None:
    """Every registered game's ids (idempotent: re-importing, e.g. a notebook reload, does not warn)."""
    for spec in list(GAMES.values()):
        register_game_ids(spec)


on_register(register_game_ids)  # every game registered from now on gets its ids at once
