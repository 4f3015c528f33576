"""The random agent's pick: the ``int(u * n)``-th legal action of a row, u drawn first, for any mask width."""

from __future__ import annotations

import numpy as np
import pytest

from dicearena.agents.random_agent import PARALLEL_ROWS, SKIP, sample_masked


def reference_picks(masks: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    out = np.full(len(masks), -1, dtype=np.int64)
    for b, row in enumerate(masks):
        legal = np.flatnonzero(row)
        if legal.size:
            out[b] = legal[int(uniforms[b] * legal.size)]
    return out


@pytest.mark.parametrize("width", [1, SKIP - 1, SKIP, SKIP + 1, 78, 193])
@pytest.mark.parametrize("rows", [7, PARALLEL_ROWS + 3])
def test_sample_masked_picks_the_drawn_legal_action(width: int, rows: int) -> None:
    rng = np.random.default_rng(width * 1000 + rows)
    density = rng.uniform(0.0, 0.3, size=(rows, 1))
    masks = (rng.random((rows, width)) < density).astype(np.int8)
    masks[::5] = 0  # rows with no legal action pick -1
    masks[1::7, -1] = 3  # any nonzero entry is legal
    expected = reference_picks(masks != 0, np.random.default_rng(5).random(rows))
    picks = sample_masked(masks, np.random.default_rng(5))
    assert np.array_equal(picks, expected)
    assert np.array_equal(sample_masked(masks.astype(bool), np.random.default_rng(5)), expected)


def test_sample_masked_is_uniform_over_legal_actions() -> None:
    masks = np.zeros((40_000, 193), dtype=np.int8)
    legal = np.array([3, 9, 64, 130, 192])  # spread over several skipped blocks
    masks[:, legal] = 1
    counts = np.bincount(sample_masked(masks, np.random.default_rng(0)), minlength=193)[legal]
    assert counts.sum() == 40_000
    assert np.all(np.abs(counts / 40_000 - 0.2) < 0.01)
