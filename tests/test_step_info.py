"""The batched step's compiled info arrays against NumPy's own answers."""

from __future__ import annotations

import numpy as np
import pytest

from dicearena.envs.common.contract import NOBODY, TERMINATED, TRUNCATED
from dicearena.envs.common.step_info import ended_games, seats_acting


@pytest.mark.parametrize("games", [0, 1, 7, 8, 9, 64, 1001])  # eight flags a word, then the rest
@pytest.mark.parametrize("density", [0.0, 0.02, 0.5, 1.0])
def test_ended_games_are_the_nonzero_flags_in_order(games: int, density: float) -> None:
    rng = np.random.default_rng(games * 10 + int(density * 100))
    done = np.where(rng.random(games) < density, rng.choice([TERMINATED, TRUNCATED], games), 0).astype(np.int8)
    ended = ended_games(done)
    assert ended.dtype == np.int64
    assert np.array_equal(ended, np.flatnonzero(done))


def test_ended_games_finds_a_flag_in_every_byte_of_a_word() -> None:
    for b in range(17):
        done = np.zeros(17, dtype=np.int8)
        done[b] = TRUNCATED
        assert ended_games(done).tolist() == [b]


@pytest.mark.parametrize("players", [1, 2, 4])
def test_seats_acting_marks_each_games_seat_and_none_for_nobody(players: int) -> None:
    rng = np.random.default_rng(players)
    seats = rng.integers(0, players, size=500)
    seats[::7] = NOBODY
    acting = seats_acting(seats, players)
    expected = seats[:, None] == np.arange(players)[None, :]
    assert acting.dtype == np.bool_ and acting.shape == (500, players)
    assert np.array_equal(acting, expected)
    assert not acting[::7].any()
