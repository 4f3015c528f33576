"""Easy Come, Easy Go's learned position values (dicearena.agents.easy_come_easy_go.position_values trains them,
position_agent plays them, shipped as ``eceg_td``):
the position encoding, the backup against value iteration, seeded self-play training, the shipped table's play and
its errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dicearena.agents import make_agent, table_player
from dicearena.agents.easy_come_easy_go.exact import solve_turn
from dicearena.agents.easy_come_easy_go.position_agent import (
    NUM_POSITIONS,
    TABLE,
    PositionValueAgent,
    load_table,
    position_index,
)
from dicearena.agents.easy_come_easy_go.position_values import (
    backup,
    initial_table,
    save_table,
    solve_positions,
    train_position_values,
)
from dicearena.agents.evaluation.play import head_to_head
from dicearena.agents.shipped import ShippedAgent
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.easy_come_easy_go import engine as eng

C = eng.CENTRE
TWO = {"num_players": 2}


@pytest.fixture(scope="module")
def exact() -> np.ndarray:
    return solve_positions(tolerance=1e-6)


def test_a_position_is_each_prize_centre_mine_or_theirs_from_the_movers_seat() -> None:
    owners = np.array([[C] * 9, [0, 1, C, C, C, C, C, C, 1]])
    assert position_index(owners, np.array([0, 0])).tolist() == [0, 1 + 2 * 3 + 2 * 3**8]
    assert position_index(owners, np.array([1, 1])).tolist() == [0, 2 + 1 * 3 + 1 * 3**8]


def test_value_iteration_gives_a_fixed_point_of_the_backup(exact: np.ndarray) -> None:
    everything = np.arange(NUM_POSITIONS)
    assert np.abs(backup(exact, everything) - exact).max() < 1e-5
    assert 0.5 < exact[0] < 0.6  # the first mover's edge
    won = position_index(np.array([[0, 0, 0, 1, C, C, C, C, C]]), np.array([0]))
    assert exact[won].item() == 1.0  # the win check: three prizes at the start of my turn


def test_facing_three_prizes_is_worth_at_most_the_chance_of_stealing_one(exact: np.ndarray) -> None:
    """The opponent holds prizes 0-2: I lose unless I take one this turn, so my chance is below that turn's."""
    s = position_index(np.array([[1, 1, 1, C, C, C, C, C, C]]), np.array([0])).item()
    steal = solve_turn([1, 1, 1, 0, 0, 0, 0, 0, 0]).value
    assert 0 < exact[s] < steal


def test_self_play_training_is_seeded_and_learns_the_opening_values(exact: np.ndarray) -> None:
    first, history = train_position_values(rounds=6, games=128, seed=4)
    again, _ = train_position_values(rounds=6, games=128, seed=4)
    np.testing.assert_array_equal(first, again)
    assert [h["round"] for h in history] == list(range(1, 7))
    assert history[-1]["visited"] > history[0]["positions"]  # it reaches new positions as it plays
    assert not np.array_equal(first, initial_table())
    assert abs(first[0] - exact[0]) < abs(initial_table()[0] - exact[0])


def test_the_shipped_table_beats_the_heuristic_and_plays_like_the_exact_table(exact: np.ndarray) -> None:
    bot = make_agent("eceg_td")
    assert isinstance(bot, ShippedAgent) and bot.reads_state and bot.players == [2]
    rival = table_player("easy_come_easy_go", "eceg_heuristic", TWO)
    row = head_to_head("easy_come_easy_go", bot, rival, TWO, games=4000, seed=12345)
    assert row["ci95"][0] > 0.5, row
    table, _ = load_table(TABLE)
    assert abs(table[0] - exact[0]) < 1e-6  # its opening value is value iteration's


def test_a_game_that_is_not_two_player_or_a_bad_table_is_refused(tmp_path) -> None:
    agent = PositionValueAgent(initial_table())
    engine = BatchedGame("easy_come_easy_go", 2, seed=0, num_players=3)
    _, masks, info = engine.reset(seed=0)
    before = engine.states.copy()
    with pytest.raises(ValueError, match="plays 2-player games.*3-player"):
        agent.act_states(engine.states, masks, info["to_act"])
    np.testing.assert_array_equal(engine.states, before)
    with pytest.raises(ValueError, match="19683 floats"):
        PositionValueAgent(np.zeros(10))
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        PositionValueAgent(np.full(NUM_POSITIONS, 2.0))
    with pytest.raises(ValueError, match="no value table"):
        PositionValueAgent(tmp_path / "missing.npz")
    with pytest.raises(ValueError, match="need rounds >= 1"):
        train_position_values(rounds=0)


def test_a_table_file_round_trips_and_loading_runs_no_code(tmp_path) -> None:
    path = tmp_path / "t.npz"
    save_table(path, initial_table(), {"seed": 3, "four_of_a_kind_is_two_pairs": False})
    table, meta = load_table(path)
    np.testing.assert_array_equal(table, initial_table())
    assert meta["seed"] == 3
    with pytest.raises(ValueError, match="four_of_a_kind_is_two_pairs"):
        PositionValueAgent(path, four_of_a_kind_is_two_pairs=True)
    pickled = tmp_path / "p.npz"
    np.savez(pickled, table=np.array([object()], dtype=object), meta=np.array(json.dumps({})))
    with pytest.raises(ValueError, match="[Pp]ickle|object"):
        load_table(pickled)
