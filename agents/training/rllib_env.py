"""Any contract game's PettingZoo AEC env as an RLlib multi-agent env (new API stack), observations renamed.

Why: RLlib's ``PettingZooEnv`` plays a turn-based AEC game as a multi-agent env (only the seat to move observes;
each seat's rewards since its last move reach it with its next observation; at the end every seat gets its final
observation and reward), but its action-masking modules read ``{"observations", "action_mask"}`` while the suite's
envs say ``{"observation", "action_mask"}`` (PettingZoo's convention): RLlib PPO then fails with
``KeyError: 'observations'``. This subclass renames the key and the space, nothing else, so every game (Extra!'s
simultaneous rounds included, which its AEC env plays seat by seat) trains through one adapter.

``env_config``: ``{"game": <registered id>, "config": {<the game's config keys>}}``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

from dicearena.agents.rllib_module import MASK, OBS
from dicearena.envs.common.game_aec import make_env

__all__ = ["DiceArenaEnv", "renamed_space"]


def renamed_space(space: gym.spaces.Dict) -> gym.spaces.Dict:
    """A suite env's ``{"observation", "action_mask"}`` space as ``{"observations", "action_mask"}``."""
    return gym.spaces.Dict({OBS: space["observation"], MASK: space["action_mask"]})


def _renamed(observations: dict[str, Any]) -> dict[str, Any]:
    return {agent: {OBS: obs["observation"], MASK: obs["action_mask"]} for agent, obs in observations.items()}


class DiceArenaEnv(PettingZooEnv):
    """One game of a registered contract game (``env_config["game"]``, its config keys ``env_config["config"]``),
    agents ``player_0..``, each observing ``{"observations": float32 (D,), "action_mask": int8 (A,)}``."""

    def __init__(self, env_config: dict[str, Any] | None = None) -> None:
        env_config = dict(env_config or {})
        if "game" not in env_config:
            raise ValueError("DiceArenaEnv: env_config needs 'game' (a registered game id) and optionally 'config'")
        super().__init__(make_env(env_config["game"], **dict(env_config.get("config") or {})))
        seats = list(self.env.possible_agents)  # in seat order (PettingZooEnv lists them from a set)
        self.agents, self.possible_agents = seats[:], seats[:]
        self.observation_spaces = {a: renamed_space(self.env.observation_space(a)) for a in seats}
        self.action_spaces = {a: self.env.action_space(a) for a in seats}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        observations, infos = super().reset(seed=seed, options=options)
        return _renamed(observations), infos

    def step(self, action: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        observations, rewards, terminated, truncated, infos = super().step(action)
        return _renamed(observations), rewards, terminated, truncated, infos
