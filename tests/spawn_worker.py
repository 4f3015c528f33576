"""Work for spawned test processes. It imports nothing of ours, so whatever registers the ids does so in the worker."""

from __future__ import annotations

import sys


def first_observation_shape(env_id: str) -> tuple[bool, tuple[int, ...]]:
    """(was ``envs`` imported before ``gymnasium.make``, the shape of the first observation of ``env_id``)."""
    import gymnasium

    imported = "envs" in sys.modules
    obs, _ = gymnasium.make(env_id).reset(seed=0)
    return imported, obs.shape
