"""Easy Come, Easy Go, PettingZoo classic style: ``from envs import easy_come_easy_go_v0``."""

from envs.easy_come_easy_go.aec import env, raw_env

__all__ = ["env", "raw_env"]
