"""Test scaffolding: "a rejected input changes nothing" checks for AEC envs, tiny recipes, a plain keyed stream."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml


def aec_snapshot(env: Any) -> tuple:
    """Everything a step could change in a raw AEC env: engine state, turn, agents, rewards, flags, infos."""
    return (
        env.engine_state.copy(),
        env.agent_selection,
        list(env.agents),
        dict(env.rewards),
        dict(env._cumulative_rewards),
        dict(env.terminations),
        dict(env.truncations),
        {a: dict(i) for a, i in env.infos.items()},
    )


def assert_same_snapshot(a: tuple, b: tuple) -> None:
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1:] == b[1:]


def assert_step_rejected(env: Any, action: Any, error: type[Exception], match: str) -> None:
    """``env.step(action)`` raises ``error`` matching ``match`` and leaves the env exactly as it was."""
    before = aec_snapshot(env)
    with pytest.raises(error, match=match):
        env.step(action)
    assert_same_snapshot(before, aec_snapshot(env))


def tiny_train_recipe(out: Path, total: int, **training: object) -> dict:
    return {
        "name": "tiny",
        "task": {"id": "easy_come_easy_go_turn", "config": {"prize_values": [1] * 9}, "num_envs": 16},
        "algorithm": {
            "policy_kwargs": {"net_arch": [16]},
            "hyperparameters": {"n_steps": 16, "batch_size": 64, "n_epochs": 1},
        },
        "training": {"total_timesteps": total, "checkpoint_every": 256, "output_dir": str(out), **training},
        "score": {"samples": 1},
    }


def write(path: Path, recipe: dict) -> Path:
    path.write_text(yaml.safe_dump(recipe))
    return path


class PlainStream:
    """An independent statement of a game's keyed stream (``dicearena.envs.common.streams``): SplitMix64 in Python
    integers from the game's key, each word the output shifted right by one."""

    MASK = 2**64 - 1

    def __init__(self, key: int) -> None:
        self.x = int(key)

    def words(self, n: int) -> list[int]:
        out = []
        for _ in range(n):
            self.x = (self.x + 0x9E3779B97F4A7C15) & self.MASK
            z = self.x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
            out.append((z ^ (z >> 31)) >> 1)
        return out


def self_play_recipe(game: str, out: Path, total: int, pool: dict | None = None, **task_config: object) -> dict:
    """A small ``<game>_selfplay`` recipe for train.py: 32 games, a 2-snapshot pool, 64-game curve points;
    ``pool`` keys and ``task_config`` keys (e.g. ``advisor``) override the task's."""
    config = {"game": {"num_players": 2, "zero_sum": True},
              "pool": {"snapshot_every": 1024, "keep": 2, "mix": {"latest": 0.5, "snapshots": 0.5}, **(pool or {})},
              "evaluation": {"against": ["random"], "every": 4096, "games": 64}, **task_config}  # fmt: skip
    return {
        "name": f"{game}_sp",
        "task": {"id": f"{game}_selfplay", "num_envs": 32, "config": config},
        "algorithm": {"policy_kwargs": {"net_arch": [64, 64]},
                      "hyperparameters": {"n_steps": 32, "batch_size": 256, "n_epochs": 4, "learning_rate": 0.001,
                                          "gamma": 1.0}},
        "training": {"total_timesteps": total, "checkpoint_every": 1024, "output_dir": str(out), "seed": 0},
        "score": {"samples": 400, "seed": 5},
    }  # fmt: skip
