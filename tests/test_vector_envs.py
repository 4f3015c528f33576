"""Every registered Gymnasium id in the vector envs users reach for (issue 22.1-2): Gymnasium's ``make_vec`` (sync,
and async in spawned workers) and ``SyncVectorEnv``, whose infos merge key by key, so every info key must keep one
type on every step; and SB3's ``make_vec_env`` (``DummyVecEnv``, ``SubprocVecEnv`` in spawned workers), which asks
for ``render_mode="rgb_array"``, with a tiny ``MaskablePPO`` on top reading the masks through ``env_method``."""

from __future__ import annotations

import inspect
from typing import Any

import gymnasium
import numpy as np
import pytest
import torch
from gymnasium.envs.registration import load_env_creator
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

import dicearena.envs  # noqa: F401  (registers the ids)
from dicearena.agents import make_agent
from dicearena.envs.registration import GYMNASIUM_ENVS, package_ids

IDS = sorted(GYMNASIUM_ENVS.keys() & package_ids())  # the suite's (games of other tests may have registered more)
STEPS = 500
TIMEOUT = 120.0  # seconds an async call may take before the test fails instead of hanging on a pipe


def test_every_registered_dicearena_id_is_covered() -> None:
    registered = {i for i in gymnasium.registry if i.startswith("dicearena/")}
    assert registered >= set(IDS) and len(IDS) >= 7, IDS


def _env_kwargs(env_id: str) -> dict[str, Any]:
    """Seeded random opponents where the env plays against them."""
    parameters = inspect.signature(load_env_creator(gymnasium.spec(env_id).entry_point)).parameters
    return {"opponents": make_agent("random", seed=7)} if "opponents" in parameters else {}


def _legal_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One legal action per env from its mask; an env whose mask is empty (its episode just ended: the next step
    resets it and ignores the action) gets 0."""
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], dtype=np.int64)


def _record(types: dict[str, set], info: dict[str, Any], prefix: str = "") -> None:
    """Each key's type in a merged vector info: (dtype, per-env shape), or for an object array each present
    element's Python type; nested dicts (``final_info``) key by key."""
    for key, value in info.items():
        if key.startswith("_") or key == "final_obs":
            continue
        if isinstance(value, dict):
            _record(types, value, f"{prefix}{key}.")
            continue
        if value.dtype == object:
            present = info.get(f"_{key}", np.ones(len(value), dtype=bool))
            types.setdefault(prefix + key, set()).update(("object", type(v).__name__) for v in value[present])
        else:
            types.setdefault(prefix + key, set()).add((value.dtype.str, value.shape[1:]))


def _check_types(types: dict[str, set]) -> None:
    mixed = {key: sorted(map(str, found)) for key, found in types.items() if len(found) != 1}
    assert not mixed, f"info keys of more than one type: {mixed}"
    assert "action_mask" in types


def _run(env: gymnasium.vector.VectorEnv, seed: int, timeout: float | None = None) -> dict[str, set]:
    """``STEPS`` random legal steps of a vector env (async: each call waits ``timeout`` at most); each info key's
    types."""
    rng, types = np.random.default_rng(seed), {}
    if timeout is None:
        _, info = env.reset(seed=seed)
    else:
        env.reset_async(seed=seed)
        _, info = env.reset_wait(timeout=timeout)
    _record(types, info)
    ended = 0
    for _ in range(STEPS):
        actions = _legal_actions(info["action_mask"], rng)
        if timeout is None:
            _, _, terminated, truncated, info = env.step(actions)
        else:
            env.step_async(actions)
            _, _, terminated, truncated, info = env.step_wait(timeout=timeout)
        ended += int((terminated | truncated).sum())
        _record(types, info)
    assert ended > 0  # the infos of ended episodes were merged too
    return types


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("env_id", IDS)
def test_sync_vector_envs_merge_the_infos_of_every_id(env_id: str, mode: AutoresetMode) -> None:
    kwargs = _env_kwargs(env_id)
    if mode == AutoresetMode.NEXT_STEP:  # the default, as users make it
        env = gymnasium.make_vec(env_id, num_envs=2, vectorization_mode="sync", **kwargs)
    else:  # SyncVectorEnv as users build it; its ended episodes' infos come nested in final_info
        env = SyncVectorEnv([lambda: gymnasium.make(env_id, **kwargs)] * 2, autoreset_mode=mode)
    try:
        types = _run(env, seed=3)
    finally:
        env.close()
    _check_types(types)
    if mode == AutoresetMode.SAME_STEP:
        assert any(key.startswith("final_info.") for key in types)


@pytest.mark.parametrize("env_id", IDS)
def test_async_vector_envs_in_spawned_workers_merge_the_infos_of_every_id(env_id: str) -> None:
    env = gymnasium.make_vec(env_id, num_envs=2, vectorization_mode="async", vector_kwargs={"context": "spawn"},
                             **_env_kwargs(env_id))  # fmt: skip
    failed = True
    try:
        types = _run(env, seed=4, timeout=TIMEOUT)
        failed = False
    finally:
        env.close(terminate=failed)  # a failed worker may never answer: end the workers rather than wait
    _check_types(types)


def _check_sb3_vec_env(venv: Any, env_id: str, steps: int) -> None:
    """Rendered pictures of the decisions, and masked random steps read through ``env_method("action_masks")``."""
    assert venv.render_mode == "rgb_array"
    venv.seed(5)
    venv.reset()
    for image in venv.get_images():
        assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3 and image.std() > 0, env_id
    rng = np.random.default_rng(5)
    for _ in range(steps):
        masks = get_action_masks(venv)  # env_method("action_masks") on every env
        assert masks.shape == (venv.num_envs, venv.action_space.n) and masks.any(axis=1).all()
        venv.step(_legal_actions(masks, rng))


def _tiny_ppo(venv: Any) -> MaskablePPO:
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})  # fmt: skip
    model.learn(total_timesteps=256)
    obs = venv.reset()
    for _ in range(20):  # the trained policy's masked moves are legal (an illegal one raises in the env)
        actions, _ = model.predict(obs, action_masks=get_action_masks(venv), deterministic=True)
        obs, *_ = venv.step(actions)
    return model


@pytest.mark.parametrize("env_id", IDS)
def test_sb3_make_vec_env_and_maskable_ppo_on_every_id(env_id: str) -> None:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    venv = make_vec_env(env_id, n_envs=2, seed=0, env_kwargs=_env_kwargs(env_id), vec_env_cls=DummyVecEnv)
    try:
        _check_sb3_vec_env(venv, env_id, steps=100)
        _tiny_ppo(venv)
    finally:
        venv.close()


@pytest.mark.parametrize("env_id", IDS)
def test_sb3_subproc_vec_env_in_spawned_workers_on_every_id(env_id: str) -> None:
    """A fresh process knows the ``dicearena/…`` ids only once it imports ``dicearena.envs``, so the id names the
    module (README, "Spawned workers")."""
    venv = make_vec_env(f"dicearena.envs:{env_id}", n_envs=2, seed=0, env_kwargs=_env_kwargs(env_id),
                        vec_env_cls=SubprocVecEnv, vec_env_kwargs={"start_method": "spawn"})  # fmt: skip
    try:
        _check_sb3_vec_env(venv, env_id, steps=50)
    finally:
        venv.close()


@pytest.mark.parametrize("module, name", [
    ("dicearena.envs.common.vec_env", "MaskedVecEnv"),
    ("dicearena.envs.common.game_seat", "SeatVecEnv"),
    ("dicearena.envs.easy_come_easy_go.turn_task", "EasyComeEasyGoTurnVecEnv"),
    ("dicearena.envs.easy_money.greed_task", "GreedStopVecEnv"),
    ("dicearena.envs.extra.solitaire_task", "ExtraSolitaireVecEnv"),
])  # fmt: skip
def test_every_sb3_twin_is_a_vec_env_served_by_its_module_and_pickles_by_name(module: str, name: str) -> None:
    import importlib
    import pickle

    from stable_baselines3.common.vec_env import VecEnv

    twin = getattr(importlib.import_module(module), name)
    assert issubclass(twin, VecEnv) and twin.__module__ == module and twin.__name__ == name
    assert pickle.loads(pickle.dumps(twin)) is twin
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchVecEnv'"):
        _ = importlib.import_module(module).NoSuchVecEnv
