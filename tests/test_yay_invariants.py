"""Yay! invariants under generated games (Hypothesis picks the sheet, players, end rule, seed and moves).

What must hold after every step, whatever was played: a written number never changes except to be crossed off,
a filled square never empties, a crossed number never comes back, only the mover's opponents lose numbers by a
write, the mover is the only one with legal actions, and the game ends exactly when a line is full.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicearena.envs import yay_v0
from dicearena.envs.yay import engine as E


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 4),
    rows=st.integers(4, 9),
    cols=st.integers(4, 9),
    end_when=st.sampled_from(["row_or_column", "row_and_column"]),
    seed=st.integers(0, 2**31 - 1),
    picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=400),
)
def test_what_is_written_stays_written(
    players: int, rows: int, cols: int, end_when: str, seed: int, picks: list[int]
) -> None:
    env = yay_v0.raw_env(num_players=players, rows=rows, cols=cols, end_when=end_when)
    env.reset(seed=seed)
    squares = rows * cols
    board = env.engine_state[E.BOARD : E.BOARD + squares].copy()
    for pick in picks:
        state = env.engine_state
        if state[E.PHASE] == E.PHASE_OVER:
            assert E.line_filled(state) or state[E.TRUNCATED]
            break
        mover = env.possible_agents.index(env.agent_selection)
        masks = [env.observe(a)["action_mask"] for a in env.possible_agents]
        assert masks[mover].any() and not any(m.any() for i, m in enumerate(masks) if i != mover)
        legal = np.flatnonzero(masks[mover])
        action = int(legal[pick % legal.size])
        env.step(action)
        after = env.engine_state[E.BOARD : E.BOARD + squares].copy()
        for s in range(squares):
            old, new = int(board[s]), int(after[s])
            if old == E.EMPTY:
                continue
            assert new != E.EMPTY  # nothing is ever erased
            if old != new:  # the only change to a filled square: crossing off a number
                assert new == old | (1 << 10) and old > E.BLOCKED and not E.is_crossed(old)
                crossed_by_write = action < squares
                assert E.owner(old) != mover if crossed_by_write else E.owner(old) == mover
        written = np.flatnonzero((board == E.EMPTY) & (after != E.EMPTY))
        assert written.size <= 1 and (written.size == 0 or written[0] == action % squares)
        if env.engine_state[E.PHASE] != E.PHASE_OVER:
            assert not E.line_filled(env.engine_state)  # the game runs on only while no line is full
        board = after
