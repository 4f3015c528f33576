"""``NUMBA_DISABLE_JIT=1`` runs every game on every face in plain Python, and plays the very games compiled code plays.

Why: a rule is debugged by stepping through it (``breakpoint()``, pdb, coverage), which works only when numba does
not compile it (``envs/common/README.md``). This file is also the script the tests run in a subprocess with the JIT
off: ``python tests/test_no_jit.py`` prints a JSON summary of a few seeded steps of every registered game on every
face (steps played, the rewards' sum, a digest of every observation and reward); the tests check that it covers
every game and face, and that it is the summary the same script makes compiled, in the test process.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
STEPS = 12  # decisions per game and face: the first chance events, a few turns, shaped steps
BATCH = 3
SEED = 7
CONFIGS = {"easy_money": {"shaping": True}, "yay": {"shaping": True}}  # the shaped settlement runs too


class Random:
    """A seeded random legal move, also as opponents (``act_batch``); nothing from ``dicearena.agents``."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def pick(self, mask: np.ndarray) -> int:
        return int(self.rng.choice(np.flatnonzero(mask)))

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array([self.pick(m) for m in masks], dtype=np.int64)


class Record:
    """What one face's run is compared by: its steps, the rewards' sum and a digest of everything it returned."""

    def __init__(self) -> None:
        self.digest, self.rewards, self.steps = hashlib.sha256(), 0.0, 0

    def see(self, *arrays: Any) -> None:
        for array in arrays:
            self.digest.update(np.ascontiguousarray(array).tobytes())

    def paid(self, rewards: Any) -> None:
        rewards = np.asarray(rewards, dtype=np.float64)
        self.rewards += float(rewards.sum())
        self.see(rewards)

    def summary(self, **extra: Any) -> dict[str, Any]:
        return {"steps": self.steps, "rewards": round(self.rewards, 9), "digest": self.digest.hexdigest()[:16]} | extra


def _aec(env: Any, rng: Random) -> dict[str, Any]:
    env.reset(seed=SEED)
    out = Record()
    for _ in env.agent_iter(max_iter=STEPS):
        observation, reward, terminated, truncated, _ = env.last()
        out.paid(reward)
        out.see(observation["observation"], observation["action_mask"])
        env.step(None if terminated or truncated else rng.pick(observation["action_mask"]))
        out.steps += 1
    return out.summary()


def _parallel(env: Any, rng: Random) -> dict[str, Any]:
    observations, _ = env.reset(seed=SEED)
    out = Record()
    while env.agents and out.steps < STEPS:
        deciding = [a for a in env.agents if observations[a]["action_mask"].any()]
        observations, rewards, _, _, _ = env.step({a: rng.pick(observations[a]["action_mask"]) for a in deciding})
        out.paid(list(rewards.values()))
        out.see(*(o["observation"] for o in observations.values()))
        out.steps += 1
    return out.summary()


def _batched(game: str, rng: Random, config: dict[str, Any]) -> dict[str, Any]:
    from dicearena.envs.common.game_batch import BatchedGame

    batch = BatchedGame(game, BATCH, seed=SEED, **config)
    obs, masks, _ = batch.reset()
    out, ended = Record(), 0
    out.see(obs, masks)
    for _ in range(STEPS):
        flat = masks.reshape(-1, masks.shape[-1])
        actions = np.array([rng.pick(m) if m.any() else 0 for m in flat]).reshape(masks.shape[:-1])
        obs, masks, rewards, _, _, info = batch.step(actions)
        out.paid(rewards)
        out.see(obs, masks, info["final_state"])
        out.steps += 1
        ended += len(info["ended"])
    return out.summary(ended=ended)


def _gym(env: Any, rng: Random) -> dict[str, Any]:
    observation, _ = env.reset(seed=SEED)
    out = Record()
    out.see(observation)
    for _ in range(STEPS):
        observation, reward, terminated, truncated, _ = env.step(rng.pick(env.unwrapped.action_masks()))
        out.paid(reward)
        out.see(observation)
        out.steps += 1
        if terminated or truncated:
            observation, _ = env.reset()
            out.see(observation)
    return out.summary()


def registered(modules: tuple[str, ...] = ()) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The registered games, tasks and Gymnasium ids, after importing what registers them: the suite, ``modules``
    (games defined elsewhere, e.g. the tests' Pig) and the task envs."""
    import dicearena.envs  # noqa: F401  (registers the suite's games and their ids)
    from dicearena.envs.common.contract import GAMES, TASK_GAMES
    from dicearena.envs.registration import GYMNASIUM_ENVS, register_all

    for module in modules:
        importlib.import_module(module)
    for spec in list(GAMES.values()):  # a game's task envs register its tasks
        for entry in spec.gym_envs.values():
            importlib.import_module(entry.split(":")[0])
    register_all()  # the ids of games registered after dicearena.envs (idempotent)
    return GAMES, TASK_GAMES, GYMNASIUM_ENVS


def play_all(modules: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    """Every registered game and task on every face, a few seeded steps each: ``{"game/face" or env id: summary}``."""
    import gymnasium

    from dicearena.envs.common.game_aec import make_env
    from dicearena.envs.common.game_parallel import make_parallel_env
    from dicearena.envs.common.game_seat import SeatEnv

    GAMES, TASK_GAMES, GYMNASIUM_ENVS = registered(modules)
    out: dict[str, dict[str, Any]] = {}
    for game, spec in sorted(GAMES.items()):
        config = CONFIGS.get(game, {})
        out[f"{game}/aec"] = _aec(make_env(game, **config), Random(1))
        if spec.classic:
            out[f"{game}/classic"] = _aec(importlib.import_module(spec.classic).env(**config), Random(1))
        if spec.dynamics == "simultaneous":
            out[f"{game}/parallel"] = _parallel(make_parallel_env(game, **config), Random(2))
        out[f"{game}/batched"] = _batched(game, Random(3), config)
        out[f"{game}/seat"] = _gym(SeatEnv(game, opponents=Random(4), **config), Random(5))
    for task in sorted(TASK_GAMES):
        out[f"{task}/batched"] = _batched(task, Random(3), {})
    for env_id in sorted(GYMNASIUM_ENVS):  # the seat-vs-opponents ids and the task envs
        kwargs = {"opponents": Random(4)} if env_id.endswith("VsOpponents-v0") else {}
        out[env_id] = _gym(gymnasium.make(env_id, **kwargs), Random(6))
    return out


@pytest.fixture(scope="module")
def plain() -> dict[str, Any]:
    """The summary made in a subprocess with ``NUMBA_DISABLE_JIT=1``, of the games registered here (the suite's and
    any other test module's: the subprocess imports their modules too)."""
    from dicearena.envs.common.contract import spec_reference

    games, _, _ = registered()
    modules = sorted({spec_reference(spec)[1] for spec in games.values()})
    path = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])  # tests.* importable
    env = os.environ | {"NUMBA_DISABLE_JIT": "1", "NUMBA_NUM_THREADS": "1", "PYTHONPATH": path}
    done = subprocess.run([sys.executable, __file__, *modules], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    assert "overflow" not in done.stderr, done.stderr[-4000:]  # NumPy would warn at every SplitMix word (streams.py)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_game_runs_on_every_face_without_jit(plain: dict[str, Any]) -> None:
    GAMES, TASK_GAMES, GYMNASIUM_ENVS = registered()
    assert plain["jit_disabled"] is True
    expected = {"jit_disabled"} | set(GYMNASIUM_ENVS)
    for game, spec in GAMES.items():
        expected |= {f"{game}/{face}" for face in ("aec", "batched", "seat")}
        expected |= {f"{game}/classic"} if spec.classic else set()
        expected |= {f"{game}/parallel"} if spec.dynamics == "simultaneous" else set()
    expected |= {f"{task}/batched" for task in TASK_GAMES}
    assert set(plain) == expected
    assert len(GAMES) >= 4 and TASK_GAMES and any(k.endswith("/parallel") for k in plain)
    for face, summary in plain.items():
        if face != "jit_disabled":
            assert summary["steps"] == STEPS or face.endswith("/parallel") and summary["steps"] > 0, face
    assert any(plain[f"{g}/batched"]["rewards"] != 0 for g in CONFIGS)  # a shaped game paid along the way


def test_plain_python_plays_the_games_compiled_code_plays(plain: dict[str, Any]) -> None:
    from numba import config

    assert not config.DISABLE_JIT
    compiled = play_all()
    assert {k: v for k, v in plain.items() if k != "jit_disabled"} == compiled


if __name__ == "__main__":
    from numba import config

    print(json.dumps(play_all(tuple(sys.argv[1:])) | {"jit_disabled": bool(config.DISABLE_JIT)}, sort_keys=True))
