"""Reward helpers shared by the games' engines and the faces (numba)."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["pay_shaping", "pay_shaping_python", "shaped_reward", "shaped_reward_python", "zero_sum_rewards"]


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


@njit(inline="always")
def shaped_reward(paid: float, before: float, after: float, ended: bool) -> float:
    """One seat's reward for a step (an action, a chance event or both) under the contract's shaping: ``paid`` is
    what the step pays without shaping (0 while playing, the final reward at the end), ``before`` the seat's shaping
    potential before the step and ``after`` after it (unused at the end). While the game goes on the step pays the
    change of potential, at the end the final reward minus the potential; so over a game each seat's rewards sum to
    its final reward. Every face settles with this (``pay_shaping``, the AEC env per seat)."""
    return paid - before if ended else paid + (after - before)


@njit(inline="always")
def pay_shaping(state: np.ndarray, ended: bool, before: np.ndarray, after: np.ndarray, out: np.ndarray,
                potentials) -> None:  # fmt: skip
    """``shaped_reward`` for every seat, into ``out`` (what the step pays so far: the final rewards if it ended):
    ``before`` holds the potentials before the step (``potentials(state, before)``, the engine's
    ``shaping_potentials``); unless it ended, ``after`` receives them now. The batched loops inline it
    (``batch_loops``); an injected chance source's Python loop (``game_batch``) calls ``pay_shaping_python``."""
    if not ended:
        potentials(state, after)
    for s in range(out.shape[0]):
        out[s] = shaped_reward(out[s], before[s], after[s], ended)


# The same functions uncompiled, for faces that settle one game in Python (calling the compiled ones from Python
# with an engine function as argument would compile them anew in every process; the AEC env passes Python floats).
shaped_reward_python = getattr(shaped_reward, "py_func", shaped_reward)
pay_shaping_python = getattr(pay_shaping, "py_func", pay_shaping)
