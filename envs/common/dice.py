"""Dice sources: the one place chance enters a game, so tests and solvers can replace it.

Every game asks its source for ``roll(n)`` faces in ``0..faces-1`` at each chance event. The seeded
source draws a fixed-size block per event and uses the first ``n``, so a batched engine that draws
``(B, block)`` per event consumes the same stream as ``B`` = 1 of the single-game env.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["DiceSource", "SeededDice", "ScriptedDice", "DiceExhausted"]


@runtime_checkable
class DiceSource(Protocol):
    def roll(self, n: int) -> np.ndarray:
        """Return ``n`` face values (0-based) as an int array."""
        ...


class SeededDice:
    """Ordinary play: faces from a NumPy generator; ``seed`` makes the whole stream reproducible."""

    def __init__(self, faces: int = 6, block: int = 4, seed: int | None = None) -> None:
        self.faces = faces
        self.block = block
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def roll(self, n: int) -> np.ndarray:
        if not 0 <= n <= self.block:
            raise ValueError(f"SeededDice rolls 0..{self.block} dice at once, asked for {n}")
        return self.rng.integers(0, self.faces, self.block)[:n]


class DiceExhausted(RuntimeError):
    """A scripted test asked for more dice than it supplied."""


class ScriptedDice:
    """Dice fixed in advance, one entry per chance event (e.g. a rulebook example)."""

    def __init__(self, rolls: Iterable[Sequence[int]], faces: int = 6) -> None:
        self.faces = faces
        self._rolls = [list(r) for r in rolls]
        for r in self._rolls:
            if any(not 0 <= v < faces for v in r):
                raise ValueError(f"scripted roll {r} has a face outside 0..{faces - 1}")
        self._next = 0

    @property
    def remaining(self) -> int:
        return len(self._rolls) - self._next

    def seed(self, seed: int | None) -> None:
        """Scripted dice ignore seeds; the script is the randomness."""

    def roll(self, n: int) -> np.ndarray:
        if self._next >= len(self._rolls):
            raise DiceExhausted(f"scripted dice exhausted after {len(self._rolls)} rolls (asked for {n} dice)")
        values = self._rolls[self._next]
        if len(values) != n:
            raise ValueError(f"scripted roll #{self._next} has {len(values)} dice, the game rolls {n}")
        self._next += 1
        return np.asarray(values, dtype=np.int64)
