"""MaskablePPO's policy with a skip path from per-action observation slots to the action logits and the value.

Why: some observations carry one slot per action that already estimates that action's worth (the Easy Come turn
task's collectable values and one-roll lookaheads, ``turn_engine.py``). Through the hidden layers a network must
relearn the argmax of those slots before it can learn where they are wrong; with them also fed straight into the
last layer, and the action head starting at ``weight`` on its own action's slot, the policy begins as the
heuristic the slots encode and the hidden layers learn only the corrections. Recipes turn it on with
``policy_kwargs.action_features`` (``dicearena.agents.training.sb3_recipe``).
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

__all__ = ["ActionFeaturePolicy", "WithActionFeatures"]


class WithActionFeatures(nn.Module):
    """An SB3 ``MlpExtractor`` whose policy and value latents end with the observation's ``slots`` as they are."""

    def __init__(self, base: nn.Module, slots: list[int]) -> None:
        super().__init__()
        self.base = base
        self.register_buffer("slots", torch.as_tensor(slots, dtype=torch.long))
        self.latent_dim_pi = base.latent_dim_pi + len(slots)
        self.latent_dim_vf = base.latent_dim_vf + len(slots)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.base.forward_actor(features), features[:, self.slots]], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.base.forward_critic(features), features[:, self.slots]], dim=1)


class ActionFeaturePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with ``action_features[a]``, the observation slot that estimates action ``a``,
    fed past the hidden layers; action ``a``'s logit starts as ``action_feature_weight`` times that slot (plus the
    usual near-zero head), so the untrained policy is a softmax over the slots."""

    def __init__(self, *args: Any, action_features: list[int], action_feature_weight: float = 20.0,
                 **kwargs: Any) -> None:  # fmt: skip
        self.action_features = [int(slot) for slot in action_features]
        self.action_feature_weight = float(action_feature_weight)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        n, width = len(self.action_features), int(self.observation_space.shape[0])
        if n != self.action_space.n or not all(0 <= slot < width for slot in self.action_features):
            raise ValueError(f"action_features: one observation slot (0..{width - 1}) per action ({self.action_space.n}"
                             f" of them), got {n}: {self.action_features}")  # fmt: skip
        super()._build_mlp_extractor()
        self.mlp_extractor = WithActionFeatures(self.mlp_extractor, self.action_features)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        n = len(self.action_features)
        with torch.no_grad():  # after SB3's initialisation: the skip columns start as weight x identity
            self.action_net.weight[:, -n:] = self.action_feature_weight * torch.eye(n)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(action_features=self.action_features, action_feature_weight=self.action_feature_weight)
        return data
