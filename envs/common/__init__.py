"""Machinery shared by every game: config validation, dice sources, rendering helpers, the faces' plumbing
(``table``: PettingZoo/Gymnasium faces; ``batching``: batched engines; ``vec_games``: vectorised task envs behind
SB3's VecEnv protocol, whose SB3 subclasses ``vec_env`` makes, the only module here importing stable-baselines3)."""
