"""Reading Yay! observation batches: the sheet and the player count they come from (every Yay! agent's input check).

Why here: neither is in the observation itself. The mask has ``3 * rows * cols + 1`` entries and the observation
``engine.observation_size(P, rows, cols)``, so a square sheet and P can be read off the lengths; any other sheet
shape must be given.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.yay import engine as E

__all__ = ["check_sheet", "num_players_of", "read_batch"]


def check_sheet(agent: str, rows: Any, cols: Any) -> tuple[int | None, int | None]:
    """An agent's ``rows``/``cols`` arguments: both None (a square sheet, read off the masks) or both 3..MAX_SIDE."""
    if (rows is None) != (cols is None):
        raise ValueError(f"{agent}: give both 'rows' and 'cols', or neither (a square sheet is inferred)")
    for key, value in (("rows", rows), ("cols", cols)):
        if value is not None and (not isinstance(value, int | np.integer) or not 3 <= value <= E.MAX_SIDE):
            raise ValueError(f"{agent}: '{key}' must be an integer 3..{E.MAX_SIDE}, got {value!r}")
    return (None, None) if rows is None else (int(rows), int(cols))


def num_players_of(obs_size: int, rows: int, cols: int) -> int:
    """Players of the ``rows x cols`` game an observation of length ``obs_size`` comes from; ValueError if none."""
    for p in range(2, E.MAX_PLAYERS + 1):
        if obs_size == E.observation_size(p, rows, cols):
            return p
    allowed = [E.observation_size(p, rows, cols) for p in range(2, E.MAX_PLAYERS + 1)]
    raise ValueError(
        f"observation length {obs_size} is not a Yay! observation of a {rows}x{cols} sheet (one of {allowed} for "
        f"2..{E.MAX_PLAYERS} players); build the agent with the game's rows and cols"
    )


def read_batch(
    agent: str, observations: Any, action_masks: Any, rows: int | None, cols: int | None
) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    """(observations float32 (B, D), masks int8 (B, A), rows, cols, players), contiguous for the numba loops."""
    obs = np.atleast_2d(np.asarray(observations))
    masks = np.atleast_2d(np.asarray(action_masks))
    if obs.ndim != 2 or masks.ndim != 2 or obs.shape[0] != masks.shape[0]:
        raise ValueError(
            f"{agent}: need observations (B, D) and masks (B, A) of the same B; got {obs.shape} and {masks.shape}"
        )
    num_actions = masks.shape[1]
    if rows is not None:
        if num_actions != E.num_actions(rows, cols):
            raise ValueError(
                f"{agent}: masks of a {rows}x{cols} sheet have {E.num_actions(rows, cols)} entries, got {num_actions}"
            )
    else:
        side = round(((num_actions - 1) / 3) ** 0.5)
        if num_actions != E.num_actions(side, side) or not 3 <= side <= E.MAX_SIDE:
            raise ValueError(
                f"{agent}: masks with {num_actions} entries are not those of a square sheet (3S + 1 for S = side^2 "
                "squares); pass rows= and cols="
            )
        rows = cols = side
    players = num_players_of(obs.shape[1], rows, cols)
    return (np.ascontiguousarray(obs, dtype=np.float32), np.ascontiguousarray(masks, dtype=np.int8), rows, cols,
            players)  # fmt: skip
