"""Dice as contract chance outcomes, written once: each engine's ``draw_outcome`` / ``check_outcome`` for dice.

Why: every game here rolls fair six-sided dice; turning random words into faces and checking an injected
roll's faces is the same loop in each engine, whatever it rolls (``k`` dice at this chance node).
"""

from __future__ import annotations

from numba import njit

__all__ = ["BAD_FACE_WORDS", "bad_faces", "draw_faces"]

BAD_FACE_WORDS = "a die shows a face 0..5 (the faces 1..6)"  # why an injected roll is refused

NUM_FACES = 6


@njit(cache=True, inline="always")
def draw_faces(k, words, outcome):
    """Faces = word mod 6 into ``outcome[:k]``, the rest 0 (words are uniform on 0..2**63-1: a bias below 1e-18)."""
    for i in range(outcome.shape[0]):
        outcome[i] = words[i] % NUM_FACES if i < k else 0


@njit(cache=True, inline="always")
def bad_faces(k, outcome):
    """True if any of the first ``k`` values is not a face 0..5."""
    for i in range(k):
        if outcome[i] < 0 or outcome[i] >= NUM_FACES:
            return True
    return False
