"""Yay!'s lookahead on a learned board value (``yay_td``).

Why: the lookahead agent (``lookahead``) plans on a value ``V = tanh(lead / scale)`` of four board terms, with
hand-set weights and a scale per ``m`` (the fewest empty squares left in any line). This agent runs the same search
on a value *learned* by self-play (``python -m dicearena.agents.yay.learned_values``, the training layer): one weight
per term and per ``m`` (``VALUE_ROWS`` x 4), ``V = tanh(sum_k w[m, k] * term_k)``, shipped as
``agents/models/yay_td.npz`` (``dicearena.agents.table_files``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from dicearena.agents.table_files import load_arrays

from .lookahead import NUM_TERMS, VALUE_ROWS, YayLookaheadAgent

__all__ = ["TABLE", "LearnedLookaheadAgent", "check_table", "learned_value_table", "load_table"]

TABLE = Path(__file__).resolve().parents[1] / "models" / "yay_td.npz"


class LearnedLookaheadAgent(YayLookaheadAgent):
    """The lookahead on a learned value table (default: the shipped ``yay_td.npz``)."""

    name = "yay_td"

    def __init__(self, table: str | Path | np.ndarray | None = None, samples: int = 32, seed: int | None = None,
                 end_weight: float = 1.5) -> None:  # fmt: skip
        """``table``: a file ``learned_values.save_table`` wrote, or the (``VALUE_ROWS``, 4) weights; ``samples``,
        ``seed``, ``end_weight``: as the lookahead's."""
        super().__init__(samples=samples, end_weight=end_weight, seed=seed)
        weights = load_table(TABLE if table is None else table)[0] if not isinstance(table, np.ndarray) else table
        self.table = learned_value_table(check_table(weights))


def learned_value_table(weights: np.ndarray) -> np.ndarray:
    """The search's (``VALUE_ROWS``, 5) table for learned weights: the weights, and a scale of 1."""
    return np.ascontiguousarray(np.concatenate([weights, np.ones((VALUE_ROWS, 1))], axis=1), dtype=np.float64)


def check_table(weights: Any) -> np.ndarray:
    """``weights`` as float64, after checking they are a yay_td table ((``VALUE_ROWS``, 4) finite numbers)."""
    out = np.asarray(weights, dtype=np.float64)
    if out.shape != (VALUE_ROWS, NUM_TERMS) or not np.isfinite(out).all():
        raise ValueError(f"a yay_td table is ({VALUE_ROWS}, {NUM_TERMS}) finite numbers, got shape {out.shape}")
    return out


def load_table(path: str | Path) -> tuple[np.ndarray, dict[str, Any]]:
    """(weights, meta) of a file ``learned_values.save_table`` wrote; read without pickle."""
    arrays, meta = load_arrays(path, ("weights",))
    return check_table(arrays["weights"]), meta
