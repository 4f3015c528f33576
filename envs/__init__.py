"""Dice Arena environments; importing this package registers them with PettingZoo and Gymnasium.

``from envs import easy_come_easy_go_v0`` gives the PettingZoo classic-style module (``env``, ``raw_env``).
"""

from envs.registration import register_all

register_all()
