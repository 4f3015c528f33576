"""Chance sources for contract games: where a face gets each chance event's outcome.

Why: chance must be injectable (a rulebook example's exact dice, a card order a test sets up) and
reproducible (a seed fixes every later episode too). A source answers ``outcome(engine, state, out, words)`` at
each chance node. The seeded source draws the event's random words and lets the engine's own chance model turn them
into the outcome, so the batched engine, which draws ``(games, words)`` per round, consumes the same stream as
one game. A scripted source hands out outcomes fixed in advance; faces check them with ``check_outcome``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["ChanceExhausted", "ChanceSource", "DiceChance", "ScriptedChance", "SeededChance", "WORD_HIGH"]

WORD_HIGH = 2**63  # random words are uniform on 0..2**63-1 (non-negative int64)


@runtime_checkable
class ChanceSource(Protocol):
    def outcome(self, engine: Any, state: np.ndarray, out: np.ndarray, words: int) -> np.ndarray:
        """The pending chance event's outcome vector (written into ``out`` or returned); ``words``: the random
        words a seeded source draws for it (the game's ``Sizes.words``, whatever this event uses of them)."""
        ...


class ChanceExhausted(RuntimeError):
    """A scripted source was asked for more chance events than it holds."""


class SeededChance:
    """Ordinary play: random words from one NumPy generator, turned into outcomes by the engine.

    Words are drawn ``BLOCK`` events at a time (one ``integers`` call costs more than the rest of a chance event);
    each word is one 64-bit draw, so the stream is that of one draw per event (and of a batched round's
    ``(n, words)``), only drawn ahead."""

    trusted = True  # its outcomes come from the engine's own chance model: faces need not re-check them
    BLOCK = 64

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    @property
    def rng(self) -> np.random.Generator:
        return self._rng

    @rng.setter
    def rng(self, rng: np.random.Generator) -> None:
        self._rng, self._block, self._next = rng, None, 0

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def outcome(self, engine: Any, state: np.ndarray, out: np.ndarray, words: int) -> np.ndarray:
        """A fixed block of ``words`` words per event, so a batched round of ``(n, words)`` is the same stream."""
        block = self._block
        if block is None or self._next == block.shape[0] or block.shape[1] != words:
            block = self._block = self._rng.integers(0, WORD_HIGH, size=(self.BLOCK, words), dtype=np.int64)
            self._next = 0
        engine.draw_outcome(state, block[self._next], out)
        self._next += 1
        return out


class ScriptedChance:
    """Outcomes fixed in advance, one per chance event, in order (the engine's outcome vectors)."""

    def __init__(self, outcomes: Iterable[Sequence[int]]) -> None:
        self._outcomes = [np.asarray(o, dtype=np.int32) for o in outcomes]
        self._next = 0

    @property
    def remaining(self) -> int:
        return len(self._outcomes) - self._next

    def seed(self, seed: int | None) -> None:
        """A script ignores seeds: the script is the randomness."""

    def outcome(self, engine: Any, state: np.ndarray, out: np.ndarray, words: int = 0) -> np.ndarray:
        if self._next >= len(self._outcomes):
            raise ChanceExhausted(f"scripted chance exhausted after {len(self._outcomes)} outcomes")
        given = self._outcomes[self._next]
        if given.shape[0] > out.shape[0]:
            raise ValueError(f"scripted outcome #{self._next} has {given.shape[0]} values; at most {out.shape[0]}")
        self._next += 1
        out[:] = 0
        out[: given.shape[0]] = given
        return out


class DiceChance:
    """A dice source (``roll(k)`` faces, ``envs.common.dice``: seeded or a rulebook example's exact dice) as a
    chance source, for games whose chance events are dice rolls only (the outcome is the faces)."""

    trusted = True  # it checks an injected source's faces itself

    def __init__(self, dice: Any, faces: int, block: int, game: str) -> None:
        from .table import dice_source

        self.dice, self._trusted = dice_source(dice, faces, block, game)
        self.faces = faces

    def seed(self, seed: int | None) -> None:
        reseed = getattr(self.dice, "seed", None)
        if callable(reseed):
            reseed(seed)

    def outcome(self, engine: Any, state: np.ndarray, out: np.ndarray, words: int = 0) -> np.ndarray:
        from .table import check_faces

        k = engine.chance_words(state)
        rolled = self.dice.roll(k)
        return rolled if self._trusted else check_faces(rolled, k, self.faces)  # the k faces are the outcome
