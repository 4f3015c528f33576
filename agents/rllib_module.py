"""PPO's default torch RLModule with action masking, for observations ``{"observations", "action_mask"}``.

Why our own and not RLlib's example (``ray.rllib.examples.rl_modules.classes.action_masking_rlm``): the example
subclasses the deprecated ``PPOTorchRLModule`` and pops keys out of the batch in place; examples are not RLlib's
public API. This one builds RLlib's default PPO networks (``DefaultPPOTorchRLModule``: MLP encoder, policy and value
heads, from ``model_config``) over the flat ``observations`` and sets every illegal action's logit to the lowest
float, so no illegal action is ever sampled and the entropy stays finite (an all-zero mask, at a terminal
observation, gives a uniform distribution instead of NaNs).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

__all__ = ["MASK", "OBS", "MaskedPPOTorchRLModule", "masked_logits"]

OBS = "observations"  # the flat float32 observation (RLlib's action-masking convention)
MASK = "action_mask"


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every action whose mask entry is 0 set to the lowest float32."""
    return logits.masked_fill(mask == 0, FLOAT_MIN)


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module over ``obs["observations"]``, its action logits masked by ``obs["action_mask"]``."""

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space.spaces) != {OBS, MASK}:
            raise ValueError(f"MaskedPPOTorchRLModule needs a Dict observation space with keys {OBS!r} and {MASK!r} "
                             f"(training.rllib_env.DiceArenaEnv provides it), got {observation_space}")
        super().__init__(observation_space=observation_space[OBS], **kwargs)  # the networks read the flat part
        self.observation_space = observation_space  # what checkpoints record and env runners check against

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, flat = _split(batch)
        out = super()._forward(flat, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = masked_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, flat = _split(batch)
        out = super()._forward_train(flat, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = masked_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if embeddings is None and isinstance(batch[Columns.OBS], dict):
            batch = _split(batch)[1]
        return super().compute_values(batch, embeddings)


def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """(the action mask, a shallow copy of ``batch`` whose observation is the flat part); ``batch`` is unchanged."""
    obs = batch[Columns.OBS]
    return obs[MASK], {**batch, Columns.OBS: obs[OBS]}
