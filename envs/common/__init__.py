"""Machinery shared by every game: config validation, dice sources, rendering helpers, the faces' plumbing
(``table``: PettingZoo/Gymnasium faces; ``batching`` / ``vec_env``: batched engines and SB3 task envs)."""
