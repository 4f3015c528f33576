"""Extra!'s planner on learned planning tables (``extra_td``).

Why: the planner and expectimax (``heuristics``) score an afterstate with a planning value ``V`` that is a sum of
table entries, one per row (by its checks), one per EXTRA column (by its checks) and one per EXTRA number, and the
tables are drawn from three hand-set weights. This agent plays the planner on tables *learned* by self-play instead
(``python -m dicearena.agents.extra.learned_values``, the training layer), shipped as ``agents/models/extra_td.npz``
(``dicearena.agents.table_files``) with the sheet layout they fit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from dicearena.agents.table_files import load_arrays
from dicearena.envs.extra import engine as E
from dicearena.envs.extra.config import ExtraConfig

from .heuristics import MAX_CHECKS, SHEET_SLOTS, PlannerAgent

__all__ = ["SHAPES", "TABLES", "LearnedPlannerAgent", "check_tables", "default_sheet", "load_tables"]

TABLES = Path(__file__).resolve().parents[1] / "models" / "extra_td.npz"
SHAPES = {"rows": (E.NUM_ROWS, MAX_CHECKS), "columns": (E.NUM_COLUMNS, MAX_CHECKS), "numbers": (7,)}


def default_sheet() -> tuple[int, ...]:
    """The default sheet layout's key (``state[SHEET_SLOTS]``): the layout the shipped tables were learned on."""
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.init_state(state, E.header(ExtraConfig(num_players=1)))
    return tuple(int(v) for v in state[SHEET_SLOTS])


class LearnedPlannerAgent(PlannerAgent):
    """The planner on learned tables (default: the shipped ``extra_td.npz``), on the sheet layout they fit."""

    name = "extra_td"

    def __init__(self, tables: str | Path | dict[str, np.ndarray] | None = None) -> None:
        super().__init__()
        if tables is None or isinstance(tables, str | Path):
            tables, meta = load_tables(TABLES if tables is None else tables)
            self.sheet = tuple(meta["sheet"])
        else:
            self.sheet = default_sheet()
        tables = check_tables(tables)
        self._numbers = tables["numbers"]
        self._tables = {self.sheet: (tables["rows"], tables["columns"])}

    def _sheet_tables(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        sheets = np.atleast_2d(states)[:, SHEET_SLOTS]
        other = np.flatnonzero((sheets != np.array(self.sheet)).any(axis=1))
        if other.size:
            raise ValueError(f"{self.name}'s tables were learned on the default sheet; state {int(other[0])} has "
                             "another layout (config sheet)")  # fmt: skip
        rows, cols = self._tables[self.sheet]
        return np.zeros(len(sheets), dtype=np.int64), rows[None], cols[None]


def check_tables(tables: Any) -> dict[str, np.ndarray]:
    """``tables`` as float64 arrays, after checking they are the three planning tables (``SHAPES``), finite."""
    if not isinstance(tables, dict) or set(tables) != set(SHAPES):
        raise ValueError(f"planning tables are a dict of {', '.join(SHAPES)}, got {type(tables).__name__}")
    out = {k: np.ascontiguousarray(tables[k], dtype=np.float64) for k in SHAPES}
    for k, shape in SHAPES.items():
        if out[k].shape != shape or not np.isfinite(out[k]).all():
            raise ValueError(f"planning table {k!r} must be {shape} finite numbers, got {out[k].shape}")
    return out


def load_tables(path: str | Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(tables, meta) of a file ``learned_values.save_tables`` wrote; read without pickle."""
    arrays, meta = load_arrays(path, tuple(SHAPES))
    if "sheet" not in meta:
        raise ValueError(f"{path}: its meta does not name the sheet layout the tables fit")
    return check_tables(arrays), meta
