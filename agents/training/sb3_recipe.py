"""The ``algorithm`` section of a training recipe: MaskablePPO's hyperparameters and policy layout, typed.

Why: SB3 checks few of its arguments, and some only deep inside ``learn`` (``n_steps: 0`` ends in an
``UnboundLocalError``); ``gamma: 2.0`` is silently accepted. Every value is checked here, at load, against the
range it can meaningfully take, and the error names the key.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from dicearena.envs.common.config import GameConfig

__all__ = ["AlgorithmSection", "Hyperparameters", "PolicyKwargs"]

Layer = Annotated[int, Field(ge=1, le=65_536)]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]


class NetArch(GameConfig):
    pi: list[Layer] = Field(default_factory=list, description="policy network hidden sizes")
    vf: list[Layer] = Field(default_factory=list, description="value network hidden sizes")


class PolicyKwargs(GameConfig):
    net_arch: list[Layer] | NetArch | None = Field(None, description="hidden sizes (shared list, or pi/vf)")
    activation_fn: Literal["Tanh", "ReLU", "ELU", "LeakyReLU", "GELU", "SiLU"] = Field(
        "Tanh", description="torch.nn activation between hidden layers"
    )
    ortho_init: bool = Field(True, description="orthogonal initialisation")
    action_features: list[Annotated[int, Field(ge=0)]] | None = Field(
        None, description="per action, the observation slot that estimates it, fed past the hidden layers "
        "(dicearena.agents.action_features; None: the plain MLP policy)"
    )  # fmt: skip
    action_feature_weight: float = Field(
        20.0, ge=0.0, le=10_000.0, description="each action's logit starts as this times its action_features slot"
    )

    def policy(self) -> Any:
        """The policy class: SB3's ``MlpPolicy``, or with ``action_features`` the skip-path policy."""
        if self.action_features is None:
            return "MlpPolicy"
        from dicearena.agents.action_features import ActionFeaturePolicy

        return ActionFeaturePolicy

    def to_sb3(self) -> dict[str, Any]:
        import torch

        out: dict[str, Any] = {"activation_fn": getattr(torch.nn, self.activation_fn), "ortho_init": self.ortho_init}
        if self.net_arch is not None:
            arch = self.net_arch
            out["net_arch"] = list(arch) if isinstance(arch, list) else {"pi": list(arch.pi), "vf": list(arch.vf)}
        if self.action_features is not None:
            out["action_features"] = list(self.action_features)
            out["action_feature_weight"] = self.action_feature_weight
        return out


class Hyperparameters(GameConfig):
    """MaskablePPO keyword arguments; the defaults are SB3's."""

    learning_rate: float = Field(3e-4, gt=0.0, le=1.0, description="Adam step size")
    learning_rate_end: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="the step size at total_timesteps, reached linearly from learning_rate (None: constant)",
    )
    n_steps: int = Field(2048, ge=1, le=1_000_000, description="steps per env per rollout")
    batch_size: int = Field(64, ge=1, le=10_000_000, description="minibatch size")
    n_epochs: int = Field(10, ge=1, le=1000, description="passes over each rollout")
    gamma: Unit = Field(0.99, description="discount factor in [0, 1]")
    gae_lambda: Unit = Field(0.95, description="GAE lambda in [0, 1]")
    clip_range: float = Field(0.2, gt=0.0, le=10.0, description="PPO clip range")
    clip_range_vf: float | None = Field(None, gt=0.0, le=1e6, description="value clip range (None: off)")
    normalize_advantage: bool = True
    ent_coef: float = Field(0.0, ge=0.0, le=100.0, description="entropy bonus weight")
    vf_coef: float = Field(0.5, ge=0.0, le=100.0, description="value loss weight")
    max_grad_norm: float = Field(0.5, gt=0.0, le=1e6, description="gradient clipping norm")
    target_kl: float | None = Field(None, gt=0.0, le=100.0, description="early stop per update (None: off)")
    stats_window_size: int = Field(100, ge=1, le=1_000_000, description="episodes averaged in the logs")

    @model_validator(mode="after")
    def _normalisable(self) -> Hyperparameters:
        if self.normalize_advantage and self.batch_size < 2:
            raise ValueError("'batch_size' must be at least 2 when normalize_advantage is on (a std of one sample)")
        return self


class AlgorithmSection(GameConfig):
    name: Literal["MaskablePPO"] = "MaskablePPO"
    policy_kwargs: PolicyKwargs = Field(default_factory=PolicyKwargs)
    hyperparameters: Hyperparameters = Field(default_factory=Hyperparameters)

    def build(self, env: Any, seed: int, tensorboard_log: str | None) -> Any:
        """A fresh MaskablePPO on ``env`` with these values."""
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.utils import LinearSchedule

        values = self.hyperparameters.model_dump()
        end = values.pop("learning_rate_end")
        if end is not None:  # SB3's own schedule (a class: a saved model's schedule pickles and reads back)
            values["learning_rate"] = LinearSchedule(values["learning_rate"], end, end_fraction=1.0)
        kwargs = self.policy_kwargs
        return MaskablePPO(
            kwargs.policy(), env, policy_kwargs=kwargs.to_sb3(), tensorboard_log=tensorboard_log, seed=seed, verbose=0,
            device="cpu", **values,
        )  # fmt: skip
