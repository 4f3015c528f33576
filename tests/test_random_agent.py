"""The random agent's pick: the ``int(u * n)``-th legal action of a row, u drawn first, for any mask width."""

from __future__ import annotations

import numpy as np
import pytest

from dicearena.agents.random_agent import PARALLEL_ROWS, sample_masked


def reference_picks(masks: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    out = np.full(len(masks), -1, dtype=np.int64)
    for b, row in enumerate(masks):
        legal = np.flatnonzero(row)
        if legal.size:
            out[b] = legal[int(uniforms[b] * legal.size)]
    return out


@pytest.mark.parametrize("width", [1, 7, 8, 9, 16, 45, 78, 193])  # the pick reads 8 actions a word, then the rest
@pytest.mark.parametrize("rows", [7, PARALLEL_ROWS + 3])
def test_sample_masked_picks_the_drawn_legal_action(width: int, rows: int) -> None:
    rng = np.random.default_rng(width * 1000 + rows)
    density = rng.uniform(0.0, 1.0, size=(rows, 1))  # sparse to full rows
    masks = (rng.random((rows, width)) < density).astype(np.int8)
    masks[::5] = 0  # rows with no legal action pick -1
    masks[1::7, -1] = 3  # any nonzero entry is legal, whatever its bits
    masks[2::9, 0] = -1
    masks[3::11, width // 2] = -128
    expected = reference_picks(masks != 0, np.random.default_rng(5).random(rows))
    picks = sample_masked(masks, np.random.default_rng(5))
    assert np.array_equal(picks, expected)
    for dtype in (bool, np.uint8, np.int64, np.float32):
        assert np.array_equal(sample_masked(masks.astype(dtype), np.random.default_rng(5)), expected), dtype


def test_sample_masked_is_uniform_over_legal_actions() -> None:
    masks = np.zeros((40_000, 193), dtype=np.int8)
    legal = np.array([3, 9, 64, 130, 192])  # spread over several skipped blocks
    masks[:, legal] = 1
    counts = np.bincount(sample_masked(masks, np.random.default_rng(0)), minlength=193)[legal]
    assert counts.sum() == 40_000
    assert np.all(np.abs(counts / 40_000 - 0.2) < 0.01)


def test_plain_python_pick_is_the_compiled_pick() -> None:
    """``NUMBA_DISABLE_JIT=1`` swaps in NumPy versions of the word read and the pick: they agree with the compiled."""
    from numba import njit

    from dicearena.agents.random_agent import _compiled_pick, _python_pick
    from dicearena.envs.common.byte_words import (
        _compiled_byte_word,
        _compiled_popcount,
        _python_byte_word,
        _python_popcount,
    )

    compiled_word = njit(lambda mask, at: _compiled_byte_word(mask, at))
    compiled_pick = njit(lambda mask, uniform: _compiled_pick(mask, uniform))
    compiled_popcount = njit(lambda x: _compiled_popcount(x))
    rng = np.random.default_rng(3)
    for width in (5, 8, 13, 193):
        mask = rng.integers(-128, 128, size=width).astype(np.int8) * (rng.random(width) < 0.4)
        for at in range(width - 7):
            word = compiled_word(mask, at)
            assert word == _python_byte_word(mask, at)
            bits = np.unpackbits(mask[at : at + 8].view(np.uint8)).sum()
            assert compiled_popcount(np.uint64(word)) == _python_popcount(word) == bits
        for uniform in rng.random(20):
            assert compiled_pick(mask, uniform) == _python_pick(mask, uniform)


@pytest.mark.parametrize("shape", [(5,), (4, 2, 6), ()])
def test_sample_masked_names_the_shape_it_takes(shape: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match=r"\(B, A\) masks.*got shape"):
        sample_masked(np.ones(shape, dtype=np.int8), np.random.default_rng(0))
