"""A trained Stable-Baselines3 model (MaskablePPO, or plain PPO) behind the Agent protocol.

MaskablePPO gets the masks through ``predict(..., action_masks=)``; a plain PPO model's action
distribution is masked here, so either kind only ever plays legal actions. SB3 is imported lazily (it
is in the optional ``train`` dependencies).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent

__all__ = ["SB3Agent"]

ALGOS = ("auto", "maskable_ppo", "ppo")


def _resolve(path: str | Path) -> Path:
    p = Path(path)
    for candidate in (p, p.with_name(p.name + ".zip")):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"SB3Agent: no saved model at '{p}' (nor '{p}.zip'); save one with model.save(path)")


def _is_maskable(path: Path) -> bool:
    """Whether the saved policy class is sb3-contrib's maskable one (read from the zip's metadata)."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError) as exc:
        raise ValueError(f"SB3Agent: '{path}' is not a Stable-Baselines3 model zip ({exc})") from exc
    policy = data.get("policy_class", {})
    return "maskable" in str(policy.get("__module__", "")).lower()


class SB3Agent(Agent):
    """Acts with ``model``; ``deterministic`` picks the most likely legal action instead of sampling."""

    name = "sb3"

    def __init__(self, model: Any, deterministic: bool = True, name: str | None = None) -> None:
        self.model = model
        self.deterministic = bool(deterministic)
        self.maskable = type(model).__name__ == "MaskablePPO"
        self.rng = np.random.default_rng()
        if name is not None:
            self.name = name

    @classmethod
    def load(
        cls, path: str | Path, deterministic: bool = True, algo: str = "auto", device: str = "cpu", **kwargs: Any
    ) -> SB3Agent:
        """Load a model saved by ``model.save(path)``; ``algo``: "auto" (read from the file), "maskable_ppo", "ppo"."""
        if algo not in ALGOS:
            raise ValueError(f"SB3Agent.load: algo must be one of {ALGOS}, got {algo!r}")
        file = _resolve(path)
        maskable = _is_maskable(file) if algo == "auto" else algo == "maskable_ppo"
        if maskable:
            from sb3_contrib import MaskablePPO

            model = MaskablePPO.load(file, device=device)
        else:
            from stable_baselines3 import PPO

            model = PPO.load(file, device=device)
        return cls(model, deterministic=deterministic, **kwargs)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            self.model.set_random_seed(seed)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs = np.asarray(observations, dtype=np.float32)
        masks = np.asarray(action_masks) != 0
        if obs.ndim != 2 or masks.ndim != 2 or obs.shape[0] != masks.shape[0]:
            raise ValueError(f"{self.name}: need obs (B, D) and masks (B, A), got {obs.shape} and {masks.shape}")
        if self.maskable:
            actions, _ = self.model.predict(obs, deterministic=self.deterministic, action_masks=masks)
            return np.asarray(actions, dtype=np.int64).reshape(-1)
        return self._masked_ppo(obs, masks)

    def _masked_ppo(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch

        policy = self.model.policy
        with torch.no_grad():
            obs_t, _ = policy.obs_to_tensor(obs)
            logits = policy.get_distribution(obs_t).distribution.logits.cpu().numpy()
        logits = np.where(masks, logits, -np.inf)
        if not self.deterministic:  # Gumbel-max: a sample of the masked softmax
            logits = logits + self.rng.gumbel(size=logits.shape)
        return logits.argmax(axis=1).astype(np.int64)
