"""Exact chance of securing each prize this turn, played for that prize alone: the tables behind the
``prize_features`` observation slots (``engine.encode_prize_features``).

A decision position is (frozen dice F, dice just rolled R); prizes and chance depend only on their multisets, and
how many re-rolls are left follows from F (each re-roll freezes at least one more die), so the rolls made need not
be looked up. Per prize p, with ``sat(D)`` 1 when the four dice D satisfy p:
``V(F, R) = max(sat(F+R), max over non-empty S strictly inside R of W(F+S))`` and ``W(G) = E_R'[V(G, R')]`` over
the re-roll R' of the 4-|G| free dice (freezing every remaining die ends the turn empty: worth 0). Solved once per
variant, level by level (|G| = 3, 2, 1, 0), in float64, for all nine prizes at once (max per prize), then indexed by
ordered position so ``observe`` needs two array reads per prize.

No engine import (the engine imports this module): the prize table is passed in.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np

NUM_DICE = 4
NUM_FACES = 6
NUM_PRIZES = 9
NUM_MASKS = 1 << NUM_DICE

Multiset = tuple[int, ...]


def _code(dice: Multiset) -> int:
    """Ordered dice code (die 0 most significant), the engine's PRIZE_TABLE index."""
    code = 0
    for d in dice:
        code = code * NUM_FACES + d
    return code


def _multisets(size: int) -> list[Multiset]:
    return list(itertools.combinations_with_replacement(range(NUM_FACES), size))


def _probability(roll: Multiset) -> float:
    """Chance that len(roll) fair dice show exactly the multiset ``roll``."""
    ways = math.factorial(len(roll))
    for count in Counter(roll).values():
        ways //= math.factorial(count)
    return ways / NUM_FACES ** len(roll)


def _proper_subsets(roll: Multiset) -> set[Multiset]:
    """The distinct non-empty sub-multisets S of ``roll`` with S != roll (what a freeze may keep to re-roll)."""
    return {tuple(sorted(c)) for n in range(1, len(roll)) for c in itertools.combinations(roll, n)}


def _pairs() -> list[tuple[Multiset, Multiset]]:
    """Every (frozen F, rolled R) multiset pair of four dice, R empty included (all frozen: only ``sat`` counts)."""
    return [(f, r) for k in range(NUM_DICE + 1) for f in _multisets(k) for r in _multisets(NUM_DICE - k)]


PAIRS = _pairs()
PAIR_INDEX = {pair: i for i, pair in enumerate(PAIRS)}


def _solve(prize_bits: np.ndarray) -> np.ndarray:
    """(len(PAIRS), 9) float64: V(F, R) per prize, under one variant's prize table (ordered code -> bitmask)."""
    bits = np.arange(NUM_PRIZES)

    def sat(dice: Multiset) -> np.ndarray:
        return ((int(prize_bits[_code(dice)]) >> bits) & 1).astype(np.float64)

    value = np.zeros((len(PAIRS), NUM_PRIZES))
    keep: dict[Multiset, np.ndarray] = {}  # W(G): frozen G, the rest re-rolled and played on
    for k in range(NUM_DICE, -1, -1):
        for f in _multisets(k):
            w = np.zeros(NUM_PRIZES)
            for r in _multisets(NUM_DICE - k):
                v = sat(tuple(sorted(f + r)))
                for s in _proper_subsets(r):
                    v = np.maximum(v, keep[tuple(sorted(f + s))])
                value[PAIR_INDEX[(f, r)]] = v
                w += _probability(r) * v
            keep[f] = w if k < NUM_DICE else np.zeros(NUM_PRIZES)
    return value


def _positions() -> np.ndarray:
    """(16, 1296) int32: the PAIRS row of each (frozen mask, ordered dice code) position."""
    out = np.zeros((NUM_MASKS, NUM_FACES**NUM_DICE), dtype=np.int32)
    for dice in itertools.product(range(NUM_FACES), repeat=NUM_DICE):
        code = _code(dice)
        for mask in range(NUM_MASKS):
            frozen = tuple(sorted(d for i, d in enumerate(dice) if (mask >> i) & 1))
            rolled = tuple(sorted(d for i, d in enumerate(dice) if not (mask >> i) & 1))
            out[mask, code] = PAIR_INDEX[(frozen, rolled)]
    return out


def build_tables(prize_table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(positions, chances)``: positions (16, 1296) int32 as in :func:`_positions`; chances (variants, pairs, 9)
    float64, V(F, R) per prize of each variant row of ``prize_table`` (variant, ordered code) -> bitmask."""
    chances = np.stack([_solve(prize_table[v]) for v in range(prize_table.shape[0])])
    return _positions(), chances
