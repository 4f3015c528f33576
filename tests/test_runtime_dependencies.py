"""``envs`` works with its runtime dependencies alone (numpy, numba, gymnasium, pettingzoo, pydantic, pillow):
every Gymnasium id and PettingZoo env is made, reset and stepped in a fresh interpreter that cannot import the
training stack, as after ``pip install dice-arena`` without extras. The SB3 ``*VecEnv`` names then fail with an
ImportError naming the ``train`` extra; their SB3-free ``*Games`` twins work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BLOCKED = ("stable_baselines3", "sb3_contrib", "torch", "yaml", "tqdm", "rich", "matplotlib")

SCRIPT = """
import inspect
import sys

BLOCKED = set(sys.argv[1:])


class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ImportError(f"{name} is blocked: envs must work without the training stack")
        return None


sys.meta_path.insert(0, Blocker())

import gymnasium
import numpy as np
import pettingzoo
from gymnasium.envs.registration import load_env_creator

import dicearena.envs
from dicearena.envs.registration import GYMNASIUM_ENVS, PETTINGZOO_ENVS


class Lowest:
    # an opponent policy with act_batch (envs never import dicearena.agents)
    def act_batch(self, observations, masks):
        return masks.argmax(axis=1)


for env_id in GYMNASIUM_ENVS:
    takes = inspect.signature(load_env_creator(gymnasium.spec(env_id).entry_point)).parameters
    env = gymnasium.make(env_id, **({"opponents": Lowest()} if "opponents" in takes else {}))
    obs, info = env.reset(seed=0)
    for _ in range(20):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample(info["action_mask"]))
        assert obs in env.observation_space, env_id
        if terminated or truncated:
            obs, info = env.reset()
    print("gymnasium", env_id)

for env_id, (_, has_parallel) in PETTINGZOO_ENVS.items():
    env = pettingzoo.make("aec", env_id)
    env.reset(seed=0)
    for agent in env.agent_iter(max_iter=60):
        obs, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"]))
    print("aec", env_id)
    if has_parallel:
        env = pettingzoo.make("parallel", env_id)
        obs, infos = env.reset(seed=0)
        for _ in range(20):
            if not env.agents:
                break
            masks = {a: obs[a]["action_mask"] for a in env.agents}
            actions = {a: env.action_space(a).sample(mask) for a, mask in masks.items() if mask.any()}
            obs, *_ = env.step(actions)
        print("parallel", env_id)

from dicearena.envs.easy_come_easy_go.turn_task import EasyComeEasyGoTurnGames
from dicearena.envs.extra.solitaire_task import ExtraSolitaireGames

for games in (EasyComeEasyGoTurnGames(4, seed=0), ExtraSolitaireGames(4, seed=0)):
    games.reset()
    games.step(games.action_masks().argmax(axis=1))
try:
    from dicearena.envs.easy_come_easy_go.turn_task import EasyComeEasyGoTurnVecEnv
except ImportError as exc:
    assert "train" in str(exc) and "EasyComeEasyGoTurnGames" in str(exc), exc
else:
    raise AssertionError("EasyComeEasyGoTurnVecEnv imported without stable-baselines3")
loaded = sorted(name for name in sys.modules if name.partition(".")[0] in BLOCKED)
assert not loaded, loaded
print("ok")
"""


def test_every_env_runs_without_the_training_stack() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *BLOCKED], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[-1] == "ok"
    from dicearena.envs.registration import GYMNASIUM_ENVS, PETTINGZOO_ENVS, package_ids

    ours = package_ids()  # what `import dicearena.envs` registers (this process may know more, e.g. Pig's)
    expected = {f"gymnasium {i}" for i in GYMNASIUM_ENVS.keys() & ours}
    expected |= {f"aec {i}" for i in PETTINGZOO_ENVS.keys() & ours}
    expected |= {f"parallel {i}" for i, (_, parallel) in PETTINGZOO_ENVS.items() if parallel and i in ours}
    assert len(ours) >= 10 and expected <= set(lines)
