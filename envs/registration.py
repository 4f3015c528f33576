"""Registry entries: PettingZoo ids (``pettingzoo.make("aec", id)``) and Gymnasium task ids."""

from __future__ import annotations

import warnings

import gymnasium
import pettingzoo

NAMESPACE = "dicearena"

# Games not on the contract's registry yet (Extra!: the generic faces are sequential only).
_NOT_IN_A_SPEC_YET = {f"{NAMESPACE}/extra-v0": ("envs.extra_v0", True)}
PETTINGZOO_ENVS: dict[str, tuple[str, bool]] = {}  # id: (module with env / parallel_env, has parallel_env)


def _pettingzoo_envs() -> dict[str, tuple[str, bool]]:
    """Every registered game's PettingZoo id: its classic module if it has one, else the generic env."""
    from envs.common.contract import GAMES

    out = {spec.env_id: (spec.classic or "envs.common.game_aec", False) for spec in GAMES.values()}
    return out | _NOT_IN_A_SPEC_YET


GYMNASIUM_ENVS = {
    f"{NAMESPACE}/EasyComeEasyGoTurn-v0": "envs.easy_come_easy_go.turn_task:EasyComeEasyGoTurnEnv",
    f"{NAMESPACE}/ExtraSolitaire-v0": "envs.extra.solitaire_task:ExtraSolitaireEnv",
    # one learning seat against fixed opponents (``opponents=`` required)
    f"{NAMESPACE}/EasyComeEasyGoVsOpponents-v0": "envs.easy_come_easy_go.vs_opponents:EasyComeEasyGoVsOpponentsEnv",
    f"{NAMESPACE}/ExtraVsOpponents-v0": "envs.extra.vs_opponents:ExtraVsOpponentsEnv",
    f"{NAMESPACE}/YayVsOpponents-v0": "envs.yay.vs_opponents:YayVsOpponentsEnv",
}


def register_all() -> None:
    """Idempotent: re-importing (e.g. a notebook reload) does not warn about overriding."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        PETTINGZOO_ENVS.update(_pettingzoo_envs())
        for env_id, (module, parallel) in PETTINGZOO_ENVS.items():
            if module == "envs.common.game_aec":  # a contract game without a classic module of its own
                game = env_id.split("/")[1].rsplit("-v", 1)[0]
                pettingzoo.register("aec", env_id, entry_point=f"{module}:make_env", kwargs={"game": game})
                continue
            pettingzoo.register("aec", env_id, entry_point=f"{module}:env")
            if parallel:
                pettingzoo.register("parallel", env_id, entry_point=f"{module}:parallel_env")
        for env_id, entry_point in GYMNASIUM_ENVS.items():
            if env_id not in gymnasium.registry:
                gymnasium.register(id=env_id, entry_point=entry_point)
