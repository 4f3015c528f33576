"""Registry entries: PettingZoo ids (``pettingzoo.make("aec", id)``) and Gymnasium task ids."""

from __future__ import annotations

import warnings

import gymnasium
import pettingzoo

NAMESPACE = "dicearena"

PETTINGZOO_ENVS = {
    # id: (module, has parallel_env)
    f"{NAMESPACE}/easy_come_easy_go-v0": ("envs.easy_come_easy_go_v0", False),
    f"{NAMESPACE}/extra-v0": ("envs.extra_v0", True),
    f"{NAMESPACE}/yay-v0": ("envs.yay_v0", False),
}

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
        for env_id, (module, parallel) in PETTINGZOO_ENVS.items():
            pettingzoo.register("aec", env_id, entry_point=f"{module}:env")
            if parallel:
                pettingzoo.register("parallel", env_id, entry_point=f"{module}:parallel_env")
        for env_id, entry_point in GYMNASIUM_ENVS.items():
            if env_id not in gymnasium.registry:
                gymnasium.register(id=env_id, entry_point=entry_point)
