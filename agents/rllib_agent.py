"""A policy trained by RLlib (``python -m dicearena.agents.training.rllib``) behind the Agent protocol, loaded without
Ray running.

``RLlibAgent(checkpoint)`` takes a checkpoint folder (``<output_dir>/checkpoints/iter_<n>``) or a run's
``output_dir`` (its newest checkpoint that loads). The RLModule is rebuilt from the checkpoint's card (RLlib's
default PPO networks, ``dicearena.agents.rllib_module``) and its weights are read as data
(``dicearena.agents.rllib_checkpoints``):
no Ray cluster, no unpickling of classes. It acts by the likeliest legal action of the masked logits (or samples
the masked softmax with ``deterministic=False``), batched, in torch. By registry name: ``make_agent("rllib",
checkpoint=...)``; in an evaluation recipe: ``{kind: rllib, kwargs: {checkpoint: runs/rllib_yay}}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from dicearena.agents.base import Agent
from dicearena.agents.rllib_checkpoints import CheckpointError, read_card, read_weights, resolve

__all__ = ["RLlibAgent", "build_module"]


def build_module(card: dict[str, Any]) -> Any:
    """The masked PPO RLModule a checkpoint's ``card`` describes, with fresh weights."""
    import gymnasium as gym

    from dicearena.agents.rllib_module import MASK, OBS, MaskedPPOTorchRLModule

    obs = gym.spaces.Box(-np.inf, np.inf, (int(card["observation_size"]),), np.float32)
    mask = gym.spaces.Box(0, 1, (int(card["actions"]),), np.int8)
    return MaskedPPOTorchRLModule(observation_space=gym.spaces.Dict({OBS: obs, MASK: mask}),
                                  action_space=gym.spaces.Discrete(int(card["actions"])),
                                  model_config=dict(card["model_config"]), inference_only=False)  # fmt: skip


class RLlibAgent(Agent):
    """Acts with the shared policy of an RLlib self-play run; ``table_config()`` is the config it was trained on."""

    name = "rllib"

    def __init__(self, checkpoint: str | Path, deterministic: bool = True, name: str | None = None,
                 seed: int | None = None) -> None:  # fmt: skip
        import gymnasium as gym
        import torch


        self.path = resolve(checkpoint)
        self.card = read_card(self.path)
        self.module = build_module(self.card)
        weights = {k: torch.from_numpy(np.array(v)) for k, v in read_weights(self.path, self.card["module_id"]).items()}
        try:
            self.module.load_state_dict(weights, strict=True)
        except RuntimeError as exc:
            raise CheckpointError(f"{self.path}: the weights do not fit the network of its card: {exc}") from None
        self.module.eval()
        self.game: str = self.card["game"]
        self.deterministic = bool(deterministic)
        self.rng = np.random.default_rng(seed)
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (int(self.card["observation_size"]),), np.float32)
        if name is not None:
            self.name = name

    def table_config(self, **overrides: Any) -> dict[str, Any]:
        """The game config the policy was trained on (its observations' layout), with ``overrides``."""
        return {**self.card["config"], **overrides}

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def logits(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The module's masked action logits, (B, A)."""
        import torch
        from ray.rllib.core.columns import Columns

        from dicearena.agents.rllib_module import MASK, OBS

        batch = {Columns.OBS: {OBS: torch.as_tensor(observations), MASK: torch.as_tensor(action_masks)}}
        with torch.no_grad():
            return self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        masks = np.asarray(action_masks) != 0
        size = self.observation_space.shape[0]
        if obs.ndim != 2 or masks.ndim != 2 or obs.shape[0] != masks.shape[0]:
            raise ValueError(f"{self.name}: need obs (B, D) and masks (B, A), got {obs.shape} and {masks.shape}")
        if obs.shape[1] != size or masks.shape[1] != self.card["actions"]:
            raise ValueError(f"{self.name}: trained on {self.game} observations of {size} floats and "
                             f"{self.card['actions']} actions, got {obs.shape[1]} and {masks.shape[1]}")  # fmt: skip
        logits = np.where(masks, self.logits(obs, masks.astype(np.int8)), -np.inf)
        if not self.deterministic:  # Gumbel-max: a sample of the masked softmax
            logits = logits + self.rng.gumbel(size=logits.shape)
        return logits.argmax(axis=1).astype(np.int64)
