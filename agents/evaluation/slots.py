"""Playing G games through a batched engine of B slots: which game each slot holds and which results count.

Why one place: every game's evaluation loop (Extra!, Yay!) plays a fixed list of seatings in fewer slots; a slot
whose game ends takes the next one, and slots past the last game must not be counted.
"""

from __future__ import annotations

import numpy as np

__all__ = ["GameSlots"]


class GameSlots:
    def __init__(self, num_games: int, batch: int) -> None:
        self.num_games = num_games
        self.game = np.arange(batch)  # the game each slot is playing (>= num_games: a spare, not counted)
        self._next = batch
        self.done = 0

    @property
    def finished(self) -> bool:
        return self.done >= self.num_games

    def counted(self) -> np.ndarray:
        """bool (B,): the slots playing one of the G games."""
        return self.game < self.num_games

    def seatings(self, seat_agents: np.ndarray) -> np.ndarray:
        """(B, P) rows of ``seat_agents`` for each slot's game (spares reuse the last row)."""
        return seat_agents[np.minimum(self.game, self.num_games - 1)]

    def end(self, slot: int) -> int:
        """The slot's game ended: its index if it counts (else -1); the slot takes the next game."""
        game = int(self.game[slot])
        self.game[slot] = self._next
        self._next += 1
        if game < self.num_games:
            self.done += 1
            return game
        return -1
