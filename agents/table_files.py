"""Learned value tables' files: an ``.npz`` of plain arrays and a JSON ``meta``, read without pickle.

Why here, in the policy layer: a table-valued agent (``eceg_td``, ``extra_td``, ``yay_td``) reads its table when it
is built, and its trainer (``dicearena.agents.training.value_tables`` and each game's trainer) writes it; the
format lives once, below both. Loading such a file runs no code (unlike a pickle): an object array is an error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["load_arrays", "save_arrays"]


def save_arrays(path: str | Path, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
    """``arrays`` and ``meta`` (as JSON text) in one compressed .npz."""
    np.savez_compressed(Path(path), meta=np.array(json.dumps(meta)), **arrays)


def load_arrays(path: str | Path, names: tuple[str, ...]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(the arrays ``names``, meta) of a file :func:`save_arrays` wrote; read without pickle, so an object array
    is an error rather than code run."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no value table at {path}")
    with np.load(path, allow_pickle=False) as data:
        if set(data.files) != {*names, "meta"}:
            raise ValueError(f"{path} is not a value table of {', '.join(names)} (it holds {sorted(data.files)})")
        return {name: data[name] for name in names}, json.loads(str(data["meta"]))
