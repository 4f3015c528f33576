"""Yay! in evaluation recipes: what a table reports per seat."""

from __future__ import annotations

import numpy as np

from dicearena.agents.evaluation.benchmarks import register_benchmarks
from dicearena.envs.yay.engine import final_standings

__all__ = ["seat_stats"]


def seat_stats(final_states: np.ndarray, num_players: int) -> dict[str, np.ndarray]:
    """Each seat's uncrossed numbers and their sum (the standings: most numbers wins, the sum breaks ties)."""

    standings = final_standings(final_states, num_players)
    return {"mean_numbers": standings[..., 0], "mean_sum": standings[..., 1]}


register_benchmarks("yay", seat_stats=seat_stats)
