"""Reward helpers shared by the games' engines (numba)."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["zero_sum_rewards"]


@njit(cache=True, inline="always")
def zero_sum_rewards(winners: int, num_players: int, out: np.ndarray) -> None:
    """The zero-sum final rewards (config ``zero_sum``) into ``out[:num_players]`` (the rest of ``out`` 0).

    ``winners``: bitmask of the winning seats. With k winners, 0 < k < P, each winner gets +1/k and every other
    seat -1/(P - k); with no winner or all seats winning, everyone gets 0. The rewards always sum to 0.
    """
    out[:] = 0.0
    k = 0
    for seat in range(num_players):
        k += (winners >> seat) & 1
    if k == 0 or k == num_players:
        return
    win = 1.0 / k
    loss = -1.0 / (num_players - k)
    for seat in range(num_players):
        out[seat] = win if (winners >> seat) & 1 else loss
