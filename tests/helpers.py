"""Test scaffolding shared by the games' env tests: 'a rejected input changes nothing' checks for AEC envs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest


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
