"""Yay!, PettingZoo classic style: ``from envs import yay_v0``; ``env``/``raw_env`` (AEC)."""

from envs.yay.aec import env, raw_env

__all__ = ["env", "raw_env"]
