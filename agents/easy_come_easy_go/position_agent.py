"""Easy Come, Easy Go played on a table of position values, through the exact turn solver (``eceg_td``).

Why a table: in the 2-player game a position is only who holds each prize, seen from the seat to move (centre,
mine or theirs), so there are 3^9 = 19,683 of them, and a table holds the mover's chance of winning from each.
A turn played for the position's *gains* (what collecting each prize adds to that chance) is exactly the turn
solver's problem (``exact.solve_turns``), so a table plus the turn solver is a complete player. The full-game
heuristic guesses the prize values by hand; this agent plays on learned ones. The table is learned by self-play
(``python -m dicearena.agents.easy_come_easy_go.position_values``, the training layer) and shipped as
``agents/models/eceg_td.npz`` (``dicearena.agents.table_files``).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from dicearena.agents.table_files import load_arrays
from dicearena.envs.easy_come_easy_go import engine as eng

from .heuristics import FullGameHeuristicAgent

__all__ = [
    "NUM_POSITIONS",
    "TABLE",
    "PositionValueAgent",
    "check_table",
    "gains",
    "load_table",
    "position_index",
    "position_moves",
]

NUM_POSITIONS = 3**eng.NUM_PRIZES
CENTRE, MINE, THEIRS = 0, 1, 2  # a prize's digit in a position index
TABLE = Path(__file__).resolve().parents[1] / "models" / "eceg_td.npz"
_PLACES = 3 ** np.arange(eng.NUM_PRIZES, dtype=np.int64)


@cache
def position_moves() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(digits (N, 9), the opponent's view of each position (N,), the position after collecting prize k (N, 9))."""
    digits = (np.arange(NUM_POSITIONS)[:, None] // _PLACES) % 3
    swapped = np.where(digits == MINE, THEIRS, np.where(digits == THEIRS, MINE, CENTRE)) @ _PLACES
    take = np.arange(NUM_POSITIONS)[:, None] + (MINE - digits) * _PLACES
    for array in (digits, swapped, take):
        array.flags.writeable = False
    return digits, swapped, take


def position_index(owners: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(B,) position indices of 2-player prize holders ``owners`` (B, 9; a seat, or ``engine.CENTRE``) seen
    from ``seats`` (B,)."""
    owners = np.atleast_2d(np.asarray(owners, dtype=np.int64))
    seats = np.asarray(seats, dtype=np.int64).reshape(-1, 1)
    digits = np.where(owners == eng.CENTRE, CENTRE, np.where(owners == seats, MINE, THEIRS))
    return digits @ _PLACES


def gains(table: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(W (B,): the mover's chance after an empty turn, gains (B, 9): what collecting each prize adds to it)."""
    digits, swapped, take = position_moves()
    index = np.asarray(index, dtype=np.int64)
    hand_over = 1.0 - table[swapped[index]]
    after = 1.0 - table[swapped[take[index]]]
    gain = np.where(digits[index] == MINE, 0.0, np.maximum(after - hand_over[:, None], 0.0))
    return hand_over, gain


class PositionValueAgent(FullGameHeuristicAgent):
    """Plays each turn for the gains its position-value table gives (2 players; default: the shipped table)."""

    name = "eceg_td"

    def __init__(self, table: str | Path | np.ndarray | None = None, four_of_a_kind_is_two_pairs: bool = False) -> None:
        super().__init__(four_of_a_kind_is_two_pairs=four_of_a_kind_is_two_pairs)
        if table is None or isinstance(table, str | Path):
            table, meta = load_table(TABLE if table is None else table)
            if bool(meta.get("four_of_a_kind_is_two_pairs", False)) != self.variant:
                raise ValueError(f"{self.name}: the table was learned with four_of_a_kind_is_two_pairs="
                                 f"{meta.get('four_of_a_kind_is_two_pairs')}, not {self.variant}")  # fmt: skip
        self.table = check_table(table)

    def game_values(self, states: np.ndarray, seats: np.ndarray) -> np.ndarray:
        states = np.atleast_2d(states)
        players = states[:, eng.NUM_PLAYERS]
        if np.any(players != 2):
            raise ValueError(f"{self.name} plays 2-player games (its table is over 2-player positions), got a "
                             f"{int(players[players != 2][0])}-player game")  # fmt: skip
        return gains(self.table, position_index(states[:, eng.OWNER : eng.OWNER + eng.NUM_PRIZES], seats))[1]

    position_values = game_values


def check_table(table: Any) -> np.ndarray:
    """``table`` as float64, after checking it is a position-value table (``NUM_POSITIONS`` chances in [0, 1])."""
    table = np.asarray(table)
    if table.shape != (NUM_POSITIONS,) or not np.issubdtype(table.dtype, np.floating):
        raise ValueError(f"a position-value table is {NUM_POSITIONS} floats, got {table.dtype} {table.shape}")
    if not np.all((table >= 0) & (table <= 1)):
        raise ValueError("a position-value table holds chances of winning, in [0, 1]")
    return table.astype(np.float64)


def load_table(path: str | Path) -> tuple[np.ndarray, dict[str, Any]]:
    """(table, meta) of a file ``position_values.save_table`` wrote; read without pickle."""
    arrays, meta = load_arrays(path, ("table",))
    return check_table(arrays["table"]), meta
