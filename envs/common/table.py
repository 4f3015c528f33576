"""Small checks every game's PettingZoo / Gymnasium faces share: classic wrapping, action coercion, dice
sources, faces and seeds.

Why: the faces of each game differ only in the rules they call (engine) and the words of their errors; these
input checks are the same for every game, so they live here once. No rule lives here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .dice import DiceSource, SeededDice

__all__ = ["CheckActionWrapper", "check_faces", "check_seed", "coerce_action", "dice_source", "reseed", "wrap_classic"]


def wrap_classic(raw: AECEnv) -> AECEnv:
    """PettingZoo classic wrapping: an illegal move ends the game with -1 for the mover; an action that is no action
    id at all (a bool, a string, out of range) is the raw env's error first (``CheckActionWrapper``)."""
    e = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(CheckActionWrapper(e))


class CheckActionWrapper(wrappers.BaseWrapper):
    """The raw env's action check (its ``check_action``: the TypeError / ValueError every face gives) before
    PettingZoo's wrappers see the action, which they would mishandle: a bool indexes the action mask as an array
    ("truth value ambiguous"), a NumPy unsigned id is "not in action space", a string or an out-of-range id a bare
    AssertionError. The action goes on as a plain int, so a legal-typed but illegal id still ends the game with -1
    for the mover (``TerminateIllegalWrapper``); a finished agent's step (``None``) passes as it is."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped  # read once: every attribute through the wrapper chain costs a Python call per step

    def step(self, action: Any) -> None:
        raw = self._raw
        agent = raw.agent_selection
        if not (raw.terminations.get(agent, True) or raw.truncations.get(agent, True)):
            action = raw.check_action(action)
        self.env.step(action)


def coerce_action(action: Any, num_actions: int, action_help: str) -> int:
    """``action`` as an int in ``0..num_actions-1``: Python ints, NumPy integer scalars and 0-d integer arrays.

    Bools, floats, strings, sequences and other arrays are a TypeError; an integer out of range a ValueError
    that appends ``action_help`` (the game's wording of its action ids).
    """
    if type(action) is int and 0 <= action < num_actions:
        return action
    if isinstance(action, bool | np.bool_):
        raise TypeError(f"action must be an int 0..{num_actions - 1}, got a bool ({action!r})")
    if isinstance(action, int | np.integer):
        value = int(action)
    elif isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        value = int(action)
    else:
        shape = f" of shape {action.shape} and dtype {action.dtype}" if isinstance(action, np.ndarray) else ""
        raise TypeError(
            f"action must be an int 0..{num_actions - 1} (Python int, NumPy integer scalar or 0-d integer "
            f"array), got {type(action).__name__}{shape}: {action!r}"
        )
    if not 0 <= value < num_actions:
        raise ValueError(f"action {value} is out of range: {action_help}")
    return value


def dice_source(dice: Any, faces: int, block: int, game: str) -> tuple[DiceSource, bool]:
    """The dice a face will use (a seeded source when ``None``) and whether its rolls can be trusted unchecked."""
    if dice is None:
        return SeededDice(faces=faces, block=block, seed=None), True
    if not isinstance(dice, DiceSource):
        raise TypeError(f"dice must have a roll(n) method (a DiceSource), got {type(dice).__name__}")
    if isinstance(dice, SeededDice):
        if dice.faces != faces or dice.block < block:
            raise ValueError(
                f"SeededDice for {game} needs faces={faces} and block>={block}, got {dice.faces}, {dice.block}"
            )
        return dice, True
    return dice, False


def check_faces(faces: Any, k: int, num_faces: int) -> np.ndarray:
    """An injected source's roll as int64, or a ValueError saying what it must return."""
    arr = np.asarray(faces)
    if arr.shape != (k,) or arr.dtype.kind not in "iu" or (k and (arr.min() < 0 or arr.max() >= num_faces)):
        raise ValueError(f"the dice source must return {k} integer faces in 0..{num_faces - 1}, got {faces!r}")
    return arr.astype(np.int64)


def check_seed(seed: Any) -> int | None:
    """``seed`` as a non-negative int or None, else a TypeError / ValueError that says "seed"."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be a non-negative int or None, got {type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative int or None, got {seed}")
    return int(seed)


def reseed(dice: Any, seed: int | None) -> None:
    """Reseed a dice source that can be reseeded (scripted dice ignore it); ``None`` leaves it alone."""
    seed = check_seed(seed)
    if seed is not None:
        reseed_fn = getattr(dice, "seed", None)
        if reseed_fn is not None:
            reseed_fn(seed)
