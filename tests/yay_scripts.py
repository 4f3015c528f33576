"""Scripted Yay! positions for the rules and agent tests: dice put on chosen squares, numbers written by hand."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.yay import engine as E
from envs.yay.aec import raw_env
from envs.yay.chance import ScriptedThrows, corners_at

FAR = ((0, 0), (6, 6))  # two dice parked in opposite corners, away from the action in the middle


def sq(r: int, c: int, cols: int = 8) -> int:
    return r * cols + c


def throw(faces: list[int], at: tuple[int, int], parked: tuple = FAR) -> tuple[list[int], np.ndarray]:
    """Faces and a landing with one die's lower corner on square ``at`` and the other two parked."""
    return faces, corners_at(at, *parked)


def game(*throws: tuple, starter: int = 0, **config: Any) -> raw_env:
    """A game where ``starter`` starts (start rolls 18 against 3s) and then throws the scripted ``throws``."""
    starts = [[6, 6, 6] if seat == starter else [1, 1, 1] for seat in range(config.get("num_players", 2))]
    env = raw_env(dice=ScriptedThrows([*starts, *throws]), **config)
    env.reset()
    return env


def put(env: raw_env, seat: int, value: int, *squares: tuple[int, int]) -> None:
    for r, c in squares:
        env.engine_state[E.BOARD + sq(r, c)] = E.number_code(seat, value)


def block(env: raw_env, *squares: tuple[int, int]) -> None:
    for r, c in squares:
        env.engine_state[E.BOARD + sq(r, c)] = E.BLOCKED


def legal(env: raw_env) -> set[int]:
    return set(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist())


def after_first_turns(env: raw_env) -> None:
    env.engine_state[E.FIRST_DONE : E.FIRST_DONE + E.MAX_PLAYERS] = 1
