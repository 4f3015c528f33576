"""A trained Stable-Baselines3 policy (MaskablePPO, or plain PPO) behind the Agent protocol.

``SB3Agent(model)`` wraps a live model (what ``train.py`` and notebooks hold); ``SB3Agent.load(path)`` reads a
saved model file as data only (``dicearena.agents.model_files``: no unpickling, so a file runs no code). A maskable
policy gets the masks through ``predict(..., action_masks=)``; a plain PPO policy's action distribution is
masked here, so either kind only ever plays legal actions. SB3 is imported lazily (the ``train`` extra).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from dicearena.agents.base import Agent
from dicearena.agents.model_files import build_policy, read_model_file

__all__ = ["SB3Agent"]

ALGOS = ("auto", "maskable_ppo", "ppo")


def _resolve(path: str | Path) -> Path:
    p = Path(path)
    for candidate in (p, p.with_name(p.name + ".zip")):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"SB3Agent: no saved model at '{p}' (nor '{p}.zip'); save one with model.save(path)")


class SB3Agent(Agent):
    """Acts with ``model`` (or a bare policy); ``deterministic`` picks the likeliest legal action instead of
    sampling one."""

    name = "sb3"

    def __init__(self, model: Any, deterministic: bool = True, name: str | None = None) -> None:
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        self.model = model
        self.policy = getattr(model, "policy", model)
        self.deterministic = bool(deterministic)
        self.maskable = isinstance(self.policy, MaskableActorCriticPolicy)
        self.rng = np.random.default_rng()
        if name is not None:
            self.name = name

    @property
    def observation_space(self) -> Any:
        """The observations the policy reads (a trained model plays only envs with this shape)."""
        return self.policy.observation_space

    @classmethod
    def load(
        cls, path: str | Path, deterministic: bool = True, algo: str = "auto", device: str = "cpu", **kwargs: Any
    ) -> SB3Agent:
        """Load a model saved by ``model.save(path)`` without running anything stored in it.

        ``algo``: "auto" (read from the file), "maskable_ppo" or "ppo" (how the file's policy acts); only "cpu"
        is supported as ``device``."""

        if algo not in ALGOS:
            raise ValueError(f"SB3Agent.load: algo must be one of {ALGOS}, got {algo!r}")
        if device != "cpu":
            raise ValueError(f"SB3Agent.load: device must be 'cpu', got {device!r}")
        file = read_model_file(_resolve(path))
        maskable = file.maskable if algo == "auto" else algo == "maskable_ppo"
        agent = cls(build_policy(file), deterministic=deterministic, **kwargs)
        agent.maskable = maskable
        return agent

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            from stable_baselines3.common.utils import set_random_seed

            self.rng = np.random.default_rng(seed)
            set_random_seed(seed)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs = np.asarray(observations, dtype=np.float32)
        masks = np.asarray(action_masks) != 0
        if obs.ndim != 2 or masks.ndim != 2 or obs.shape[0] != masks.shape[0]:
            raise ValueError(f"{self.name}: need obs (B, D) and masks (B, A), got {obs.shape} and {masks.shape}")
        if self.maskable:
            actions, _ = self.policy.predict(obs, deterministic=self.deterministic, action_masks=masks)
            return np.asarray(actions, dtype=np.int64).reshape(-1)
        return self._masked_logits(obs, masks)

    def _masked_logits(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            obs_t, _ = self.policy.obs_to_tensor(obs)
            logits = self.policy.get_distribution(obs_t).distribution.logits.cpu().numpy()
        logits = np.where(masks, logits, -np.inf)
        if not self.deterministic:  # Gumbel-max: a sample of the masked softmax
            logits = logits + self.rng.gumbel(size=logits.shape)
        return logits.argmax(axis=1).astype(np.int64)
