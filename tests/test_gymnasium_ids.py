"""Every registered Gymnasium id, used as Gymnasium users use it: ``check_env(gymnasium.make(id))`` with no
test-side workaround; a blind ``action_space.sample()`` is legal whether the env steps on or resets first; and
the ids work in spawned workers."""

from __future__ import annotations

import inspect
import multiprocessing
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.envs.registration import load_env_creator
from gymnasium.utils.env_checker import check_env

import dicearena.envs  # noqa: F401  (registers the ids)
from dicearena.agents import make_agent
from dicearena.envs.registration import GYMNASIUM_ENVS, package_ids
from tests.spawn_worker import first_observation_shape


def _takes_opponents(env_id: str) -> bool:
    return "opponents" in inspect.signature(load_env_creator(gymnasium.spec(env_id).entry_point)).parameters


def _make(env_id: str, **kwargs: Any) -> gymnasium.Env:
    """``gymnasium.make(env_id)``, with seeded random opponents where the env plays against them."""
    if _takes_opponents(env_id):
        kwargs.setdefault("opponents", make_agent("random", seed=7))
    return gymnasium.make(env_id, **kwargs)


IDS = sorted(GYMNASIUM_ENVS.keys() & package_ids())  # the suite's (games of other tests may have registered more)
CASES = [(env_id, {}) for env_id in IDS] + [
    (env_id, {"num_players": 3, "learner_seat": 1}) for env_id in IDS if _takes_opponents(env_id)
]


@pytest.mark.parametrize(("env_id", "kwargs"), CASES, ids=[f"{i}{'-3p-seat1' if k else ''}" for i, k in CASES])
def test_check_env_passes_on_gymnasium_make(env_id: str, kwargs: dict) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a complaint of the checker fails the test, but for
        warnings.filterwarnings("ignore", message=".*is different from the unwrapped version")  # make's wrappers
        check_env(_make(env_id, **kwargs))


@pytest.mark.parametrize("env_id", IDS)
def test_a_blind_sample_is_legal_whether_the_env_steps_on_or_resets_first(env_id: str) -> None:
    env = _make(env_id)
    space = env.action_space
    for seed in range(25):
        _, info = env.reset(seed=100 + seed)
        _, _, terminated, _, info = env.step(space.sample())  # mid-game (or over) when the space is seeded
        rng_state = env.unwrapped.np_random.bit_generator.state
        now = info["action_mask"].copy()
        space.seed(seed)
        action = space.sample()  # looks at the game reset(seed=seed) starts, on a copy
        assert env.unwrapped.np_random.bit_generator.state == rng_state
        np.testing.assert_array_equal(env.unwrapped.action_masks(), now != 0)  # the env itself is untouched
        _, first = env.reset(seed=seed)
        assert first["action_mask"][action], (seed, action)  # what Gymnasium's check_step_determinism does
        if not terminated and (now & first["action_mask"]).any():
            assert now[action], (seed, action)  # and the env could have stepped on with it too
        space.seed(seed + 1)
        _, info = env.reset()  # a reset after seed(): blind samples follow the game it started
        assert info["action_mask"][space.sample()]


@pytest.mark.parametrize("context", ["spawn", "forkserver"])
def test_a_spawned_worker_makes_an_id_naming_its_module(context: str) -> None:
    """``gymnasium.make("dicearena.envs:dicearena/…")`` imports ``dicearena.envs`` (which registers the ids) in a fresh
    process."""
    env_id = "dicearena/EasyComeEasyGoTurn-v0"
    with multiprocessing.get_context(context).Pool(1) as pool:
        imported, shape = pool.apply(first_observation_shape, (f"dicearena.envs:{env_id}",))
    assert not imported and shape == gymnasium.make(env_id).observation_space.shape


def test_async_make_vec_works_in_spawned_workers_as_is() -> None:
    """``make_vec`` hands its workers the env's spec, whose entry point imports ``envs``."""
    env = gymnasium.make_vec(
        "dicearena/ExtraSolitaire-v0", num_envs=2, vectorization_mode="async", vector_kwargs={"context": "spawn"}
    )
    try:
        obs, _ = env.reset(seed=0)
        assert obs.shape == (2, *env.single_observation_space.shape)
    finally:
        env.close()
