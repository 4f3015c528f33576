"""The skip-path policy (``dicearena.agents.action_features``): each action's observation slot goes straight to its
logit and to the value, the untrained policy is a softmax over those slots, and a saved model loads back without
pickle as the same policy. The turn recipes name the turn engine's own slots."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from dicearena.agents.model_files import ModelFileError, build_policy, read_model_file, save_model
from dicearena.agents.training.sb3_recipe import AlgorithmSection, PolicyKwargs
from dicearena.envs.common.config import ConfigError, validate_config
from dicearena.envs.easy_come_easy_go import turn_engine as T
from dicearena.envs.easy_come_easy_go.turn_task import EasyComeEasyGoTurnVecEnv, TurnTaskConfig

ROOT = Path(__file__).resolve().parents[1]
SLOTS = list(T.ACTION_FEATURES)


def _model(weight: float = 20.0, seed: int = 0):
    torch.manual_seed(seed)
    env = EasyComeEasyGoTurnVecEnv(16, TurnTaskConfig(value_distribution={"kind": "uniform_int", "low": 0, "high": 3}),
                                   seed=seed)  # fmt: skip
    section = AlgorithmSection(policy_kwargs={"net_arch": [32, 32], "activation_fn": "ReLU", "action_features": SLOTS,
                                              "action_feature_weight": weight},
                               hyperparameters={"n_steps": 8, "batch_size": 64})  # fmt: skip
    return section.build(env, seed, None), env


def test_the_slots_reach_the_head_and_the_untrained_policy_is_a_softmax_over_them() -> None:
    model, env = _model(weight=20.0)
    obs, masks = env.reset(), env.action_masks()
    policy = model.policy
    n = len(SLOTS)
    np.testing.assert_array_equal(policy.action_net.weight[:, -n:].detach().numpy(), 20.0 * np.eye(n))
    with torch.no_grad():
        latent = policy.mlp_extractor.forward_actor(torch.as_tensor(obs))
        np.testing.assert_array_equal(latent[:, -n:].numpy(), obs[:, SLOTS])
        policy.action_net.weight[:, :-n] = 0.0  # the hidden part off: what is left is the skip path alone
        policy.action_net.bias[:] = 0.0
        probs = policy.get_distribution(torch.as_tensor(obs), action_masks=masks).distribution.probs.numpy()
    logits = np.where(masks, 20.0 * obs[:, SLOTS], -np.inf)
    expected = np.exp(logits - logits.max(axis=1, keepdims=True))
    np.testing.assert_allclose(probs, expected / expected.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_a_saved_model_loads_back_without_pickle_as_the_same_policy(tmp_path: Path) -> None:
    model, env = _model()
    model.learn(256)
    path = save_model(model, tmp_path / "model.zip")
    file = read_model_file(path)
    assert file.action_features == SLOTS
    policy = build_policy(file)
    obs = torch.as_tensor(env.reset())
    with torch.no_grad():
        for a, b in zip(model.policy.get_distribution(obs).distribution.probs,
                        policy.get_distribution(obs).distribution.probs, strict=True):  # fmt: skip
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        np.testing.assert_array_equal(model.policy.predict_values(obs).numpy(), policy.predict_values(obs).numpy())
    file.state_dict["mlp_extractor.slots"] = torch.arange(100, 124)  # a file whose slots point past the observation
    with pytest.raises(ModelFileError, match=r"action-feature slots do not fit its layout .*slot \(0..85\)"):
        build_policy(file)


def test_bad_slots_are_named() -> None:
    with pytest.raises(ValueError, match=r"one observation slot \(0..85\) per action \(24 of them\), got 3"):
        _model_with(SLOTS[:3])
    with pytest.raises(ValueError, match=r"one observation slot \(0..85\) per action"):
        _model_with([*SLOTS[:-1], 86])
    with pytest.raises(ConfigError, match=r"action_features\.0.*greater than or equal to 0"):
        validate_config(PolicyKwargs, {"action_features": [-1, 2]})


def _model_with(slots: list[int]) -> None:
    env = EasyComeEasyGoTurnVecEnv(2, TurnTaskConfig(), seed=0)
    AlgorithmSection(policy_kwargs={"action_features": slots}).build(env, 0, None)


@pytest.mark.parametrize("recipe", ["easy_come_easy_go_turn", "easy_come_easy_go_turn_values"])
def test_the_turn_recipes_feed_the_turn_engines_own_slots(recipe: str) -> None:
    kwargs = yaml.safe_load((ROOT / "configs" / f"{recipe}.yaml").read_text())["algorithm"]["policy_kwargs"]
    assert kwargs["action_features"] == SLOTS
