"""Where Yay!'s chance comes from: three faces per roll, and where a throw's dice land.

A throw source has ``roll(3)`` (faces 0..5, as every game's ``DiceSource``) and ``land(die_size, rows, cols)``:
the lower corners ``(x, y)`` of the three dice in board units. The landing model is rules/yay.md's: each die's
centre uniform over the positions where the whole die lies on the board, a landing that overlaps an earlier die
drawn again (the whole throw, if the dice already placed leave no room). Which squares a landing touches is a
rule, so it is the engine's (``engine.touched_squares``). A source may also have ``check_sheet(die_size, rows,
cols)``, which the env calls when it is built, so a source that cannot serve the sheet fails before any game.
``ThrowChance`` turns a throw source into the contract's chance source (``dicearena.envs.common.chance``) for
``yay_v0``'s ``dice=``; without ``dice=`` the env uses the contract's ``SeededChance``, the batched engine's stream.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from dicearena.envs.common.dice import DiceExhausted

from . import engine as E

__all__ = ["LANDING_KEYS", "ScriptedThrows", "SeededThrows", "ThrowChance", "corners_at", "throw_chance"]

LANDING_KEYS = E.LANDING_KEYS  # keys for engine.sample_landing


class SeededThrows:
    """A seeded throw source (one NumPy generator; ``seed`` makes the whole stream reproducible), for tools that
    want corners rather than touched squares (the env's default is the contract's ``SeededChance`` instead).

    Every chance event draws ``integers(0, 6, size=3)`` (faces) then ``integers(0, LANDING_KEYS)`` (a key that
    ``engine.sample_landing`` turns into the landing), a start roll included.
    """

    faces = E.NUM_FACES

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self._key = 0

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def roll(self, n: int) -> np.ndarray:
        faces = self.rng.integers(0, E.NUM_FACES, size=E.NUM_DICE)
        self._key = int(self.rng.integers(0, LANDING_KEYS))
        return faces[:n]

    def land(self, die_size: float, rows: int, cols: int) -> np.ndarray:
        """The landing of the throw just rolled."""
        corners = np.empty((E.NUM_DICE, 2))
        E.sample_landing(self._key, die_size, rows, cols, corners)
        return corners


class ThrowChance:
    """A throw source (``roll`` and ``land``) as the contract's chance source: each chance event's outcome is the
    three faces, then at a throw the squares its landing touches (``engine.touched_squares``, a rule)."""

    trusted = False  # an injected source's outcomes are checked by the face (``engine.check_outcome``)

    def __init__(self, dice: Any, die_size: float | None = None) -> None:
        """``die_size``: the config's die (default: the state's float32 copy of it)."""
        if not callable(getattr(dice, "roll", None)) or not callable(getattr(dice, "land", None)):
            raise TypeError(
                f"dice must be a Yay! throw source with roll(n) and land(die_size, rows, cols) "
                f"(dicearena.envs.yay.chance.SeededThrows / ScriptedThrows), got {type(dice).__name__}"
            )
        self.dice, self.die_size = dice, die_size

    def seed(self, seed: int | None) -> None:
        reseed = getattr(self.dice, "seed", None)
        if callable(reseed):
            reseed(seed)

    def outcome(self, engine: Any, state: np.ndarray, out: np.ndarray, words: int = 0) -> np.ndarray:
        faces = np.asarray(self.dice.roll(E.NUM_DICE), dtype=np.int64).reshape(-1)
        if faces.shape != (E.NUM_DICE,):
            raise ValueError(f"the throw source must roll {E.NUM_DICE} faces, got {faces.tolist()}")
        out[:] = 0
        out[: E.NUM_DICE] = faces
        if E.needs_landing(state):
            rows, cols, die_size = int(state[E.ROWS]), int(state[E.COLS]), self.die_size
            if die_size is None:
                die_size = float(E.die_size_of(state))
            corners = np.asarray(self.dice.land(die_size, rows, cols), dtype=np.float64)
            if corners.shape != (E.NUM_DICE, 2):
                raise ValueError(f"the throw source must land {E.NUM_DICE} dice as (x, y) corners, got {corners}")
            touched = np.zeros(rows * cols, dtype=np.int32)
            E.touched_squares(corners, die_size, rows, cols, touched)
            out[E.NUM_DICE : E.NUM_DICE + rows * cols] = touched
        return out


def throw_chance(config: Any, dice: Any) -> ThrowChance:
    """``yay_v0``'s ``dice=``: a throw source as the contract's chance source. A source that can check the sheet
    (``check_sheet``) does so now, so a scripted landing the sheet forbids fails before any game."""
    chance = ThrowChance(dice, config.die_size)
    check_sheet = getattr(dice, "check_sheet", None)
    if callable(check_sheet):
        check_sheet(config.die_size, config.rows, config.cols)
    return chance


def corners_at(*squares: tuple[int, int]) -> np.ndarray:
    """Corners that put each die's lower corner on the given ``(row, col)`` squares: with the default die
    (1.27) a die so placed touches that square and the ones right of, below and diagonal to it."""
    return np.array([(float(c), float(r)) for r, c in squares])


class ScriptedThrows:
    """Faces and landings fixed in advance (a rule's example): one entry per chance event, in order.

    An entry is a start roll ``[f1, f2, f3]`` (faces 1..6) or a throw ``([f1, f2, f3], corners)`` with
    ``corners`` as ``land`` returns them (see ``corners_at``). A landing the chance model could not produce is
    rejected, naming the event: at construction what no sheet allows (a corner below 0 or not finite, two dice on
    one corner), in ``check_sheet`` (the env calls it when it is built, before any game) or ``land`` what the sheet
    and die size forbid (a die off the sheet, dice overlapping).
    """

    faces = E.NUM_FACES

    def __init__(self, events: Iterable[Any]) -> None:
        self._events: list[tuple[np.ndarray, np.ndarray | None]] = []
        for number, event in enumerate(events):
            if isinstance(event, tuple):
                faces, corners = event
                corners = _scripted_corners(number, corners)
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

    def check_sheet(self, die_size: float, rows: int, cols: int) -> None:
        """Every scripted landing against this sheet and die: a ValueError for the first that leaves the sheet or
        overlaps, so a bad script fails before a game starts rather than in the middle of a step."""
        for number, (_, corners) in enumerate(self._events):
            if corners is not None:
                _check_on_sheet(number, corners, die_size, rows, cols)

    def roll(self, n: int) -> np.ndarray:
        if self._next >= len(self._events):
            raise DiceExhausted(f"scripted throws exhausted after {len(self._events)} events")
        faces, self._landing = self._events[self._next]
        self._next += 1
        return faces[:n]

    def land(self, die_size: float, rows: int, cols: int) -> np.ndarray:
        number = self._next - 1
        if self._landing is None:
            raise ValueError(f"scripted event #{number} is a start roll, but the game throws onto the sheet")
        _check_on_sheet(number, self._landing, die_size, rows, cols)
        return self._landing.copy()


def _scripted_corners(number: int, corners: Any) -> np.ndarray:
    """Event ``number``'s corners as a (3, 2) array, or a ValueError for what no sheet or die size allows."""
    where = f"scripted event #{number}"
    arr = np.asarray(corners, dtype=np.float64)
    if arr.shape != (E.NUM_DICE, 2):
        raise ValueError(f"{where}: a landing needs {E.NUM_DICE} (x, y) corners, got {arr.tolist()}")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError(f"{where}: corners must be finite and >= 0 (dice lie on the sheet), got {arr.tolist()}")
    for k in range(1, E.NUM_DICE):
        for j in range(k):
            if (arr[j] == arr[k]).all():
                raise ValueError(f"{where}: dice {j} and {k} are stacked on one corner {arr[k].tolist()}")
    return arr


def _check_on_sheet(number: int, corners: np.ndarray, die_size: float, rows: int, cols: int) -> None:
    """A ValueError naming event ``number`` if a die leaves the ``rows x cols`` sheet or two dice overlap."""
    where = f"scripted event #{number}"
    high = np.array([cols - die_size, rows - die_size])
    for k in range(E.NUM_DICE):
        if (corners[k] > high).any():
            raise ValueError(
                f"{where}: die {k} at corner {corners[k].tolist()} leaves the {rows}x{cols} sheet: a die of size "
                f"{die_size} needs 0 <= x <= {high[0]:.4g} and 0 <= y <= {high[1]:.4g}"
            )
        for j in range(k):
            if np.all(np.abs(corners[k] - corners[j]) < die_size):
                raise ValueError(
                    f"{where}: dice {j} and {k} overlap (corners {corners[j].tolist()} and {corners[k].tolist()}, "
                    f"die_size {die_size}): corners must differ by at least die_size in x or in y"
                )
