"""Chance sources for contract games: where a face gets each chance event's outcome.

Why: chance must be injectable (a rulebook example's exact dice, a card order a test sets up) and
reproducible (a seed fixes every later episode too). A source answers ``outcome(engine, state, out, words)`` at
each chance node. The seeded source draws the event's random words from a keyed stream and lets the engine's own
chance model turn them into the outcome, so game 0 of a batched engine seeded alike plays the same game. A scripted
source hands out outcomes fixed in advance; faces check them with ``given_outcome`` (the
engine's ``check_outcome``, the spec's ``explain_outcome``), written once here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .dice_outcomes import BAD_FACE_WORDS
from .streams import draw_words, stream_keys
from .table import check_faces, dice_source

__all__ = [
    "ChanceExhausted", "ChanceSource", "DiceChance", "ScriptedChance", "SeededChance", "WORD_HIGH", "given_outcome",
    "injected_chance",
]  # fmt: skip

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
    """Ordinary play: random words from game 0's keyed stream (``dicearena.envs.common.streams``), turned into outcomes
    by the engine; the batched engine's game 0 draws the same words, so a 1-game batch plays the same game."""

    trusted = True  # its outcomes come from the engine's own chance model: faces need not re-check them

    def __init__(self, seed: int | None = None) -> None:
        self.seed(seed)

    def seed(self, seed: int | None) -> None:
        self.stream = stream_keys(seed, 1)
        self._words = np.zeros(1, dtype=np.int64)

    def outcome(self, engine: Any, state: np.ndarray, out: np.ndarray, words: int) -> np.ndarray:
        """The next ``words`` words of the stream (a batched game draws as many per event)."""
        if self._words.shape[0] != words:
            self._words = np.zeros(words, dtype=np.int64)
        draw_words(self.stream, 0, self._words)
        engine.draw_outcome(state, self._words, out)
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
    """A dice source (``roll(k)`` faces, ``dicearena.envs.common.dice``: seeded or a rulebook example's exact dice) as a
    chance source: each dice roll's outcome is its faces. ``k`` is the engine's optional ``dice_needed(state)`` (how
    many dice the pending event rolls), else ``chance_words(state)``. An event that rolls no dice (``dice_needed``
    0, e.g. the turn task's prize values) is ``rest``'s (default: seeded words, reseeded with the dice)."""

    REFUSED = BAD_FACE_WORDS  # a dice game's explain_outcome: why an injected roll is refused
    trusted = True  # it checks an injected source's faces itself, and ``rest`` is the engine's own chance model

    def __init__(self, dice: Any, faces: int, block: int, game: str, rest: Any = None) -> None:
        self.dice, self._trusted = dice_source(dice, faces, block, game)
        self.faces = faces
        self.rest = SeededChance() if rest is None else rest

    def seed(self, seed: int | None) -> None:
        for source in (self.dice, self.rest):
            reseed = getattr(source, "seed", None)
            if callable(reseed):
                reseed(seed)

    def outcome(self, engine: Any, state: np.ndarray, out: np.ndarray, words: int = 0) -> np.ndarray:
        dice_needed = getattr(engine, "dice_needed", engine.chance_words)
        k = dice_needed(state)
        if k == 0:
            return self.rest.outcome(engine, state, out, words)
        rolled = self.dice.roll(k)
        return rolled if self._trusted else check_faces(rolled, k, self.faces)  # the k faces are the outcome


def injected_chance(spec: Any, config: Any, chance: Any = None, dice: Any = None) -> Any:
    """What a face's ``chance=`` / ``dice=`` keywords inject: a contract source, the game's dice interface made one
    (``GameSpec.dice``), or ``None`` (the seeded stream)."""
    if chance is not None and not callable(getattr(chance, "outcome", None)):
        raise TypeError(f"chance must have outcome(engine, state, out, words) "
            f"(dicearena.envs.common.chance), got {chance!r}")
    if dice is None:
        return chance
    if chance is not None:
        raise ValueError("give dice= (the game's dice interface) or chance= (a contract source), not both")
    if spec.dice is None:
        raise TypeError(f"{spec.title} takes no dice=; inject outcomes with chance= (dicearena.envs.common.chance)")
    return spec.dice(config, dice)


def given_outcome(source: Any, spec: Any, config: Any, state: np.ndarray, out: np.ndarray, words: int) -> np.ndarray:
    """The pending chance event's outcome from an injected ``source``, checked the contract's way (unless the source
    is ``trusted``): the outcome's length, then the engine's ``check_outcome`` in the spec's words. A source that
    raises is named (a ValueError / TypeError stays one, anything else becomes a RuntimeError); the caller keeps its
    state unchanged (these errors say so)."""
    E = spec.engine
    try:
        outcome = source.outcome(E, state, out, words)
    except Exception as exc:
        kind = type(exc) if isinstance(exc, ValueError | TypeError) else RuntimeError
        raise kind(f"{spec.title}: the chance source failed ({type(exc).__name__}: {exc}); the game is "
                   "unchanged") from exc  # fmt: skip
    if getattr(source, "trusted", False):
        return outcome
    outcome = np.asarray(outcome)
    if outcome.shape != out.shape or outcome.dtype.kind not in "iu" or (outcome != outcome.astype(np.int32)).any():
        raise ValueError(f"{spec.title}: a chance outcome is {out.shape[0]} int32 values, got {outcome.dtype} of shape "
                         f"{outcome.shape}; the game is unchanged")  # fmt: skip
    outcome = outcome.astype(np.int32)
    code = E.check_outcome(state, outcome)
    if code != 0:
        why = spec.explain_outcome(config, int(code))
        raise ValueError(f"{spec.title}: chance outcome {outcome.tolist()} refused: {why}; the game is unchanged")
    return outcome
