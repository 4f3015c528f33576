"""Registry entries: PettingZoo ids (``pettingzoo.make("aec", id)``) and Gymnasium task ids."""

from __future__ import annotations

import warnings

import gymnasium
import pettingzoo

NAMESPACE = "dicearena"

PETTINGZOO_ENVS: dict[str, tuple[str, bool]] = {}  # id: (module with env / parallel_env, has parallel_env)


def _pettingzoo_envs() -> dict[str, tuple[str, bool]]:
    """Every registered game's PettingZoo id: its classic module if it has one, else the generic env; a
    simultaneous game has a Parallel env too."""
    from envs.common.contract import GAMES

    return {spec.env_id: (spec.classic or "envs.common.game_aec", spec.dynamics == "simultaneous")
            for spec in GAMES.values()}  # fmt: skip


GYMNASIUM_ENVS: dict[str, tuple[str, dict[str, str]]] = {}  # id: (entry point, kwargs)


def _gymnasium_envs() -> dict[str, tuple[str, dict[str, str]]]:
    """Every registered game's seat-vs-opponents id (``opponents=`` required) and the task envs it declares."""
    from envs.common.contract import GAMES

    out: dict[str, tuple[str, dict[str, str]]] = {}
    for spec in GAMES.values():
        out[f"{NAMESPACE}/{spec.camel_name}VsOpponents-v0"] = ("envs.common.game_seat:SeatEnv", {"game": spec.id})
        out |= {f"{NAMESPACE}/{name}": (entry, {}) for name, entry in spec.gym_envs.items()}
    return out


def register_all() -> None:
    """Idempotent: re-importing (e.g. a notebook reload) does not warn about overriding."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        PETTINGZOO_ENVS.update(_pettingzoo_envs())
        for env_id, (module, parallel) in PETTINGZOO_ENVS.items():
            if module == "envs.common.game_aec":  # a contract game without a classic module of its own
                game = env_id.split("/")[1].rsplit("-v", 1)[0]
                pettingzoo.register("aec", env_id, entry_point=f"{module}:make_env", kwargs={"game": game})
                if parallel:
                    pettingzoo.register("parallel", env_id, entry_point="envs.common.game_parallel:make_parallel_env",
                                        kwargs={"game": game})  # fmt: skip
                continue
            pettingzoo.register("aec", env_id, entry_point=f"{module}:env")
            if parallel:
                pettingzoo.register("parallel", env_id, entry_point=f"{module}:parallel_env")
        GYMNASIUM_ENVS.update(_gymnasium_envs())
        for env_id, (entry_point, kwargs) in GYMNASIUM_ENVS.items():
            if env_id not in gymnasium.registry:
                gymnasium.register(id=env_id, entry_point=entry_point, kwargs=kwargs)
