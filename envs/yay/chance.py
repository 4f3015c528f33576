"""Where Yay!'s chance comes from: three faces per roll, and where a throw's dice land.

A throw source has ``roll(3)`` (faces 0..5, as every game's ``DiceSource``) and ``land(die_size, rows, cols)``:
the lower corners ``(x, y)`` of the three dice in board units. The landing model is rules/yay.md's: each die's
centre uniform over the positions where the whole die lies on the board, a landing that overlaps an earlier die
drawn again. Which squares a landing touches is a rule, so it is the engine's (``engine.touched_squares``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from envs.common.dice import DiceExhausted

from . import engine as E

__all__ = ["ScriptedThrows", "SeededThrows", "corners_at"]

_MAX_REDRAWS = 10_000


class SeededThrows:
    """Ordinary play: faces and landings from one NumPy generator; ``seed`` makes the whole stream reproducible."""

    faces = E.NUM_FACES

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def roll(self, n: int) -> np.ndarray:
        return self.rng.integers(0, E.NUM_FACES, size=n)

    def land(self, die_size: float, rows: int, cols: int) -> np.ndarray:
        corners = np.empty((E.NUM_DICE, 2))
        high = np.array([cols - die_size, rows - die_size])
        for k in range(E.NUM_DICE):
            for _ in range(_MAX_REDRAWS):
                corners[k] = self.rng.random(2) * high
                if not E.dice_overlap(corners, k, die_size):
                    break
            else:  # the config check (2 * die_size < min(rows, cols)) makes this unreachable in practice
                raise RuntimeError(f"no room for die {k} after {_MAX_REDRAWS} draws (die_size {die_size})")
        return corners


def corners_at(*squares: tuple[int, int]) -> np.ndarray:
    """Corners that put each die's lower corner on the given ``(row, col)`` squares: with the default die
    (1.27) a die so placed touches that square and the ones right of, below and diagonal to it."""
    return np.array([(float(c), float(r)) for r, c in squares])


class ScriptedThrows:
    """Faces and landings fixed in advance (a rule's example): one entry per chance event, in order.

    An entry is a start roll ``[f1, f2, f3]`` (faces 1..6) or a throw ``([f1, f2, f3], corners)`` with
    ``corners`` as ``land`` returns them (see ``corners_at``).
    """

    faces = E.NUM_FACES

    def __init__(self, events: Iterable[Any]) -> None:
        self._events: list[tuple[np.ndarray, np.ndarray | None]] = []
        for event in events:
            if isinstance(event, tuple):
                faces, corners = event
                corners = np.asarray(corners, dtype=np.float64)
                if corners.shape != (E.NUM_DICE, 2):
                    raise ValueError(f"scripted landing needs {E.NUM_DICE} (x, y) corners, got {corners.tolist()}")
            else:
                faces, corners = event, None
            self._events.append((self._faces(faces), corners))
        self._next = 0
        self._landing: np.ndarray | None = None

    @staticmethod
    def _faces(faces: Sequence[int]) -> np.ndarray:
        if len(faces) != E.NUM_DICE or any(not 1 <= f <= E.NUM_FACES for f in faces):
            raise ValueError(f"a scripted roll is {E.NUM_DICE} faces 1..{E.NUM_FACES}, got {list(faces)}")
        return np.asarray(faces, dtype=np.int64) - 1

    @property
    def remaining(self) -> int:
        return len(self._events) - self._next

    def seed(self, seed: int | None) -> None:
        """Scripted throws ignore seeds; the script is the randomness."""

    def roll(self, n: int) -> np.ndarray:
        if self._next >= len(self._events):
            raise DiceExhausted(f"scripted throws exhausted after {len(self._events)} events")
        faces, self._landing = self._events[self._next]
        self._next += 1
        return faces[:n]

    def land(self, die_size: float, rows: int, cols: int) -> np.ndarray:
        if self._landing is None:
            raise ValueError(f"scripted event #{self._next - 1} is a start roll, but the game throws onto the sheet")
        return self._landing
