"""Yay! in evaluation recipes: what a table reports per seat."""

from __future__ import annotations

import numpy as np

__all__ = ["seat_stats"]


def seat_stats(final_states: np.ndarray, num_players: int) -> dict[str, np.ndarray]:
    """Each seat's uncrossed numbers and their sum (the standings: most numbers wins, the sum breaks ties)."""
    from envs.yay.engine import final_standings

    standings = final_standings(final_states, num_players)
    return {"mean_numbers": standings[..., 0], "mean_sum": standings[..., 1]}
