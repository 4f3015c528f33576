"""Extra!, PettingZoo classic style: ``from envs import extra_v0``; ``env``/``raw_env`` (AEC), ``parallel_env``."""

from envs.extra.aec import env, parallel_env, raw_env

__all__ = ["env", "parallel_env", "raw_env"]
