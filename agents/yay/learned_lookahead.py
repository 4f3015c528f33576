"""Yay!'s lookahead on a learned board value (``yay_td``).

Why: the lookahead agent (``lookahead``) plans on a hand-set value ``V = tanh(lead / scale)`` of four board terms.
This agent runs the same search on a value *learned* by self-play (``python -m dicearena.agents.yay.learned_values``,
the training layer): a network with one tanh hidden layer over the board's features (``board_features``) gives the
log-odds ``z`` that the seat wins, and ``V = tanh(z / 2) = 2 P(win) - 1``, in the final rewards' units. Shipped as
``agents/models/yay_td.npz`` (``dicearena.agents.table_files``: plain arrays, read without pickle).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from dicearena.agents.table_files import load_arrays

from .board_features import NUM_FEATURES
from .lookahead import YayLookaheadAgent

__all__ = ["NET", "NET_ARRAYS", "LearnedLookaheadAgent", "check_net", "load_net"]

NET = Path(__file__).resolve().parents[1] / "models" / "yay_td.npz"
NET_ARRAYS = ("w1", "b1", "w2", "b2")
"""A value network's arrays: w1 (NUM_FEATURES, H), b1 (H,), w2 (H,), b2 (1,)."""


class LearnedLookaheadAgent(YayLookaheadAgent):
    """The lookahead on a learned value network (default: the shipped ``yay_td.npz``)."""

    name = "yay_td"

    def __init__(self, net: str | Path | dict[str, np.ndarray] | None = None, samples: int = 32,
                 seed: int | None = None, end_weight: float = 1.0) -> None:  # fmt: skip
        """``net``: a file ``learned_values.save_net`` wrote, or its arrays (``NET_ARRAYS``); ``samples``, ``seed``:
        as the lookahead's; ``end_weight``: a finished game's value per unit of final reward (1: the network's
        ``V`` is already a win chance, so a won end is worth more than any unfinished board)."""
        super().__init__(samples=samples, end_weight=end_weight, seed=seed)
        arrays = net if isinstance(net, dict) else load_net(NET if net is None else net)[0]
        arrays = check_net(arrays)
        self.net = tuple(arrays[name] for name in NET_ARRAYS)


def check_net(arrays: Any) -> dict[str, np.ndarray]:
    """``arrays`` as contiguous float64, after checking they are a value network of ``NET_ARRAYS`` (finite, of
    matching shapes, at least one hidden unit)."""
    if not isinstance(arrays, dict) or set(arrays) != set(NET_ARRAYS):
        got = sorted(arrays) if isinstance(arrays, dict) else type(arrays).__name__
        raise ValueError(f"a yay_td network is the arrays {', '.join(NET_ARRAYS)}, got {got}")
    out = {name: np.ascontiguousarray(arrays[name], dtype=np.float64) for name in NET_ARRAYS}
    hidden = out["b1"].shape[0] if out["b1"].ndim == 1 else 0
    shapes = {"w1": (NUM_FEATURES, hidden), "b1": (hidden,), "w2": (hidden,), "b2": (1,)}
    wrong = [f"{name} {out[name].shape} (want {shape})" for name, shape in shapes.items() if out[name].shape != shape]
    if hidden < 1 or wrong or not all(np.isfinite(a).all() for a in out.values()):
        raise ValueError(f"a yay_td network has finite arrays w1 ({NUM_FEATURES}, H), b1 (H,), w2 (H,), b2 (1,) with "
                         f"H >= 1; got {', '.join(wrong) or 'non-finite or empty arrays'}")  # fmt: skip
    return out


def load_net(path: str | Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(arrays, meta) of a file ``learned_values.save_net`` wrote; read without pickle."""
    arrays, meta = load_arrays(path, NET_ARRAYS)
    return check_net(arrays), meta
