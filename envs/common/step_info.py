"""The batched step's per-step info arrays (``ended``, ``acting``), compiled.

Why: ``BatchedGame.step`` builds them in Python after the kernel, on one thread, so their time is the serial share
that caps a threaded step (Amdahl). NumPy's ``flatnonzero`` reads a byte at a time and ``acting`` took a stack of
one comparison per seat; these read the done flags eight games a word (``byte_word``: games end one step in ~50)
and set one flag per game. At B = 16,384 they took ~8 and ~14 us against ~30 and ~23 us.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .byte_words import byte_word

__all__ = ["ended_games", "seats_acting"]


@njit(cache=True)
def ended_games(done: np.ndarray) -> np.ndarray:
    """The indices of ``done``'s nonzero entries (int8 flags), ascending: ``np.flatnonzero(done)``."""
    n = done.shape[0]
    ended = np.empty(n, dtype=np.int64)
    count = 0
    whole = n - n % 8
    for word_at in range(0, whole, 8):
        if byte_word(done, word_at) != 0:
            for b in range(word_at, word_at + 8):
                if done[b] != 0:
                    ended[count] = b
                    count += 1
    for b in range(whole, n):
        if done[b] != 0:
            ended[count] = b
            count += 1
    return ended[:count].copy()


@njit(cache=True)
def seats_acting(seats: np.ndarray, num_players: int) -> np.ndarray:
    """(B, P) bool: True at each game's seat to move; a game whose seat is outside 0..P-1 (``NOBODY``) has none."""
    acting = np.zeros((seats.shape[0], num_players), dtype=np.bool_)
    for b in range(seats.shape[0]):
        seat = seats[b]
        if 0 <= seat < num_players:
            acting[b, seat] = True
    return acting
