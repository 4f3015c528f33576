"""Extra!'s rules, played with injected dice: the rulebook's examples and every rule sentence of rules/extra.md."""

from __future__ import annotations

import numpy as np
import pytest

from dicearena.envs.common.dice import ScriptedDice
from dicearena.envs.extra import engine as E
from dicearena.envs.extra_v0 import parallel_env, raw_env

# The rules file's sheet, written out again here so the engine's copy is checked, not trusted.
MINUS = {2: 3, 3: 3, 4: 4, 5: 5, 6: 7, 7: 7, 8: 7, 9: 5, 10: 4, 11: 3, 12: 3}
POINTS = {2: 100, 3: 70, 4: 60, 5: 50, 6: 40, 7: 30, 8: 40, 9: 50, 10: 60, 11: 70, 12: 100}


def pips(*values: int) -> list[int]:
    """A throw as printed in the rulebook (1..6) -> the dice source's 0-based faces."""
    return [v - 1 for v in values]


def new_state(num_players: int = 1, children: bool = False) -> np.ndarray:
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.start_game(
        state,
        num_players,
        int(children),
        E.DEFAULT_PENALTY,
        np.array(E.DEFAULT_MINUS_BOXES, dtype=np.int32),
        np.array(E.DEFAULT_POINTS, dtype=np.int32),
        np.array(E.DEFAULT_EXTRA_COLUMNS, dtype=np.int32),
    )
    return state


def throw(state: np.ndarray, *values: int) -> None:
    assert E.dice_needed(state) == 5
    E.apply_chance(state, np.array(pips(*values), dtype=np.int64))


def rows(state: np.ndarray, seat: int = 0) -> dict[int, int]:
    """Checks per row sum, only the rows with checks."""
    base = E.PLAYERS + seat * E.PLAYER_SIZE
    return {s: int(state[base + s - 2]) for s in range(2, 13) if state[base + s - 2]}


def extra(state: np.ndarray, seat: int = 0) -> list[tuple[int, int]]:
    """(EXTRA number, checks) of the three columns."""
    base = E.PLAYERS + seat * E.PLAYER_SIZE
    return [(int(state[base + E.P_NUMBER + j]), int(state[base + E.P_CHECKS + j])) for j in range(3)]


def legal(state: np.ndarray, seat: int = 0) -> set[int]:
    mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
    E.legal_mask(state, seat, mask)
    return set(np.flatnonzero(mask).tolist())


def play(state: np.ndarray, seat: int, action: int) -> int:
    assert E.is_legal(state, seat, action), (action, sorted(legal(state, seat)))
    return E.apply_action(state, seat, action)


def pair_sums(dice: list[int], action: int) -> list[int]:
    """The two pair sums an action forms, computed without the engine's pairing table."""
    fifth, pairing, _ = E.decode_action(action)
    others = [i for i in range(5) if i != fifth]
    partner = others[1 + pairing]  # the first of the other four dice pairs with the 2nd, 3rd or 4th
    rest = [i for i in others[1:] if i != partner]
    return sorted([dice[others[0]] + dice[partner], dice[rest[0]] + dice[rest[1]]])


def with_extra_numbers(first: int, second: int, third: int) -> np.ndarray:
    """A solitaire sheet whose EXTRA numbers are first, second, third in columns 0, 1, 2 (one check each)."""
    state = new_state()
    for column, value in enumerate((first, second, third)):
        throw(state, value, 2, 2, 3, 3)
        play(state, 0, E.encode_action(0, 0, column))
    return state


# --- the rulebook's worked examples


def test_example_mary_1_2_2_3_5_rows_4_and_6_extra_3() -> None:
    state = new_state()
    throw(state, 1, 2, 2, 3, 5)
    # Fifth die is die 3 (the 3); the others 1, 2, 2, 5 pair (1+5)(2+2): pairing 2 = (1st, 4th)(2nd, 3rd).
    action = E.encode_action(3, 2, 0)
    assert pair_sums([1, 2, 2, 3, 5], action) == [4, 6]
    assert play(state, 0, action) == 1
    assert rows(state) == {4: 1, 6: 1}
    assert extra(state) == [(3, 1), (0, 0), (0, 0)]


def test_example_mary_through_the_env_with_scripted_dice() -> None:
    env = raw_env(num_players=1, dice=ScriptedDice([pips(1, 2, 2, 3, 5), pips(6, 6, 6, 6, 6)]))
    env.reset()
    assert env.infos["player_0"]["dice"] == [1, 2, 2, 3, 5]
    env.step(E.encode_action(3, 2, 1))
    assert rows(env.engine_state) == {4: 1, 6: 1}
    assert extra(env.engine_state) == [(0, 0), (3, 1), (0, 0)]


def test_example_mary_extra_1_3_6_throw_2_4_5_5_5_no_extra_check() -> None:
    state = with_extra_numbers(1, 3, 6)
    before = extra(state)
    throw(state, 2, 4, 5, 5, 5)
    # Lucky guy: any die may be left out, any pairing, column must be 0.
    assert legal(state) == {E.encode_action(e, p, 0) for e in range(5) for p in range(3)}
    action = E.encode_action(0, 0, 0)  # leave out the 2: pairs 4+5, 5+5
    checked = rows(state)
    play(state, 0, action)
    assert extra(state) == before
    assert rows(state)[9] == checked.get(9, 0) + 1 and rows(state)[10] == checked.get(10, 0) + 1


# --- scoring


def test_row_11_with_7_checks_scores_210() -> None:
    state = new_state()
    state[E.PLAYERS + 11 - 2] = 7
    assert E.row_score(state, 11 - 2, 7) == 210
    assert E.score(state, 0) == 210


@pytest.mark.parametrize(
    ("total", "checks", "points"),
    [
        (7, 2, -200),  # never left the minus zone
        (7, 7, -200),  # minus zone full, still inside it
        (7, 8, 0),  # the 0 box
        (7, 0, 0),  # unchecked
        (2, 9, 500),  # full row: 100 x 5
        (6, 10, 80),  # 40 x 2
        (12, 4, 0),
        (12, 5, 100),
    ],
)
def test_row_scores(total: int, checks: int, points: int) -> None:
    state = new_state()
    assert E.row_score(state, total - 2, checks) == points
    expected = 0 if checks == 0 else (-200 if checks <= MINUS[total] else POINTS[total] * (checks - MINUS[total] - 1))
    assert points == expected


def test_default_sheet_matches_the_rules_file() -> None:
    assert dict(zip(range(2, 13), E.DEFAULT_MINUS_BOXES, strict=True)) == MINUS
    assert dict(zip(range(2, 13), E.DEFAULT_POINTS, strict=True)) == POINTS
    assert E.DEFAULT_EXTRA_COLUMNS == (9, 8, 7)
    assert E.DEFAULT_PENALTY == 200


def test_empty_sheet_scores_zero_and_score_sums_rows() -> None:
    state = new_state()
    assert E.score(state, 0) == 0
    base = E.PLAYERS
    state[base + 11 - 2] = 7  # 210
    state[base + 7 - 2] = 2  # -200
    state[base + 2 - 2] = 9  # 500
    assert E.score(state, 0) == 510


# --- pairs and full rows


def test_each_die_used_once_pairs_are_the_two_pairs_of_the_other_four() -> None:
    dice = [1, 2, 3, 4, 6]
    for action in range(E.NUM_ACTIONS):
        fifth, pairing, _ = E.decode_action(action)
        a, b, c, d = E.PAIRINGS[fifth, pairing]
        assert sorted([a, b, c, d, fifth]) == [0, 1, 2, 3, 4]
        assert sorted([dice[a] + dice[b], dice[c] + dice[d]]) == pair_sums(dice, action)


def test_a_full_row_takes_no_further_checks() -> None:
    state = new_state()
    state[E.PLAYERS + 12 - 2] = 9  # row 12 full (3 minus + 0 box + 5 factors)
    throw(state, 6, 6, 6, 6, 1)
    play(state, 0, E.encode_action(4, 0, 0))
    assert rows(state) == {12: 9}
    assert extra(state) == [(1, 1), (0, 0), (0, 0)]


def test_two_pairs_into_one_row_with_one_box_left_take_one_check() -> None:
    state = new_state()
    state[E.PLAYERS + 12 - 2] = 8
    throw(state, 6, 6, 6, 6, 1)
    play(state, 0, E.encode_action(4, 0, 0))
    assert rows(state) == {12: 9}


def test_two_pairs_with_the_same_sum_check_two_boxes() -> None:
    state = new_state()
    throw(state, 3, 4, 2, 5, 6)
    play(state, 0, E.encode_action(4, 0, 0))  # 3+4, 2+5
    assert rows(state) == {7: 2}


# --- the EXTRA chart


def test_new_extra_numbers_go_into_an_empty_column_of_the_players_choice() -> None:
    state = new_state()
    throw(state, 3, 1, 1, 2, 2)
    # The first number may go into any column.
    assert {E.encode_action(0, p, c) for p in range(3) for c in range(3)} <= legal(state)
    play(state, 0, E.encode_action(0, 0, 1))
    assert extra(state) == [(0, 0), (3, 1), (0, 0)]
    throw(state, 3, 5, 1, 2, 2)
    allowed = legal(state)
    # 3 is column 1's number: only column 1. 5 is new: only the empty columns 0 and 2.
    assert {a % 3 for a in allowed if a // 9 == 0} == {1}
    assert {a % 3 for a in allowed if a // 9 == 1} == {0, 2}
    play(state, 0, E.encode_action(1, 0, 2))
    assert extra(state) == [(0, 0), (3, 1), (5, 1)]
    throw(state, 3, 5, 1, 2, 2)
    play(state, 0, E.encode_action(0, 0, 1))  # an existing number may be checked again while < 3 numbers
    assert extra(state) == [(0, 0), (3, 2), (5, 1)]


def test_an_existing_extra_number_cannot_start_a_second_column() -> None:
    state = new_state()
    throw(state, 4, 1, 1, 2, 2)
    play(state, 0, E.encode_action(0, 0, 0))
    throw(state, 4, 1, 1, 2, 2)
    for column in (1, 2):
        assert not E.is_legal(state, 0, E.encode_action(0, 0, column))


def test_forced_extra_die_when_the_throw_holds_one_extra_number() -> None:
    state = with_extra_numbers(1, 3, 6)
    throw(state, 2, 4, 1, 5, 5)
    assert legal(state) == {E.encode_action(2, p, 0) for p in range(3)}
    play(state, 0, E.encode_action(2, 1, 0))
    assert extra(state) == [(1, 2), (3, 1), (6, 1)]


def test_several_extra_numbers_in_the_throw_the_player_picks_one() -> None:
    state = with_extra_numbers(1, 3, 6)
    throw(state, 6, 2, 3, 4, 3)
    expected = {E.encode_action(e, p, c) for e, c in ((0, 2), (2, 1), (4, 1)) for p in range(3)}
    assert legal(state) == expected
    assert not E.is_legal(state, 0, E.encode_action(1, 0, 0))  # the 2 may not be the fifth die


def test_children_variant_writes_the_number_and_checks_it_when_it_recurs() -> None:
    state = new_state(children=True)
    throw(state, 3, 1, 1, 2, 2)
    play(state, 0, E.encode_action(0, 0, 2))
    assert extra(state) == [(0, 0), (0, 0), (3, 0)]
    throw(state, 5, 3, 1, 2, 2)
    assert {a % 3 for a in legal(state) if a // 9 == 1} == {2}
    play(state, 0, E.encode_action(1, 0, 2))
    assert extra(state) == [(0, 0), (0, 0), (3, 1)]


def test_children_variant_three_written_numbers_force_the_extra_die() -> None:
    state = new_state(children=True)
    for column, value in enumerate((1, 3, 6)):
        throw(state, value, 2, 2, 4, 4)
        play(state, 0, E.encode_action(0, 0, column))
    assert extra(state) == [(1, 0), (3, 0), (6, 0)]
    throw(state, 2, 2, 4, 4, 6)
    assert legal(state) == {E.encode_action(4, p, 2) for p in range(3)}


# --- finishing


def test_checking_a_last_box_finishes_that_player_while_the_other_plays_on() -> None:
    state = new_state(num_players=2)
    column_of = {}
    for rnd in range(1, 8):
        throw(state, 1, 2, 3, 4, 5)
        # player_0 always puts the 1 into column 2 (7 boxes); player_1 spreads 2, 3, 4 over the columns.
        assert play(state, 0, E.encode_action(0, 0, 2)) == 0
        die = 1 + (rnd - 1) % 3
        column_of.setdefault(die, len(column_of))
        assert play(state, 1, E.encode_action(die, 0, column_of[die])) == 1
    base0 = E.PLAYERS
    assert state[base0 + E.P_DONE] == 1 and state[base0 + E.P_FINISH_ROUND] == 7
    assert extra(state, 0)[2] == (1, 7)
    assert state[E.PLAYERS + E.PLAYER_SIZE + E.P_DONE] == 0
    assert state[E.PHASE] == E.PHASE_ROLL  # the game goes on for player_1
    throw(state, 1, 2, 3, 4, 5)
    assert not E.must_act(state, 0) and legal(state, 0) == set()
    assert E.must_act(state, 1)
    assert play(state, 1, E.encode_action(1, 0, column_of[1])) == 1  # player_1 alone resolves the round
    assert rows(state, 0) == {5: 7, 9: 7}  # player_0's sheet stays as it was when it finished


def test_game_ends_when_everyone_has_finished_and_equal_best_scores_share_the_win() -> None:
    custom = new_state(num_players=3)
    custom[E.COLUMN_LENGTH : E.COLUMN_LENGTH + 3] = (1, 1, 1)
    throw(custom, 1, 6, 6, 5, 5)
    play(custom, 0, E.encode_action(0, 0, 0))  # 12 and 10
    play(custom, 1, E.encode_action(0, 1, 1))  # 11 and 11
    assert custom[E.PHASE] == E.PHASE_DECIDE
    play(custom, 2, E.encode_action(0, 0, 2))  # 12 and 10
    assert custom[E.PHASE] == E.PHASE_OVER
    scores = [E.score(custom, s) for s in range(3)]
    assert scores == [-400, -200, -400]
    out = np.zeros(E.MAX_PLAYERS)
    E.final_rewards(custom, E.REWARD_WIN, out)
    assert out[:3].tolist() == [-1.0, 1.0, -1.0]
    E.final_rewards(custom, E.REWARD_SCORE, out)
    assert out[:3].tolist() == [-4.0, -2.0, -4.0]
    base2 = E.PLAYERS + 2 * E.PLAYER_SIZE
    custom[base2 : base2 + E.NUM_ROWS] = 0
    custom[base2 + 11 - 2] = 2  # player_2 now has row 11 twice, like player_1: a shared win
    E.final_rewards(custom, E.REWARD_WIN, out)
    assert out[:3].tolist() == [-1.0, 1.0, 1.0]


def test_solitaire_negative_total_loses() -> None:
    state = new_state()
    state[E.COLUMN_LENGTH] = 1
    throw(state, 1, 2, 2, 3, 3)
    play(state, 0, E.encode_action(0, 0, 0))
    assert state[E.PHASE] == E.PHASE_OVER
    assert E.final_reward(state, 0, E.REWARD_WIN) == -1.0
    assert E.final_reward(state, 0, E.REWARD_SCORE) == -4.0
    state[E.PLAYERS + 4 - 2] = 0
    state[E.PLAYERS + 6 - 2] = 0
    assert E.final_reward(state, 0, E.REWARD_WIN) == 1.0  # 0 is not negative


def test_decisions_are_simultaneous_a_recorded_choice_is_invisible_until_the_round_resolves() -> None:
    state = new_state(num_players=2)
    throw(state, 1, 2, 2, 3, 5)
    seen_before = np.zeros(E.observation_size(2), dtype=np.float32)
    seen_after = np.zeros_like(seen_before)
    E.encode_observation(state, 1, seen_before)
    play(state, 0, E.encode_action(3, 2, 0))
    E.encode_observation(state, 1, seen_after)
    np.testing.assert_array_equal(seen_before, seen_after)
    assert rows(state, 0) == {}
    play(state, 1, E.encode_action(0, 0, 0))
    assert rows(state, 0) == {4: 1, 6: 1}


def test_parallel_env_finisher_leaves_agents_with_its_score_reward() -> None:
    throws = [pips(1, 2, 3, 4, 5)] * 9
    env = parallel_env(num_players=2, reward="score", dice=ScriptedDice(throws))
    env.reset()
    rewards: dict = {}
    for _ in range(7):
        _, rewards, terminations, _, _ = env.step(
            {"player_0": E.encode_action(0, 0, 2), "player_1": E.encode_action(4, 0, 0)}
        )
    assert terminations == {"player_0": True, "player_1": False}
    assert rewards["player_0"] == E.score(env.engine_state, 0) / 100 and rewards["player_1"] == 0.0
    assert env.agents == ["player_1"]
    _, rewards, terminations, _, _ = env.step({"player_1": E.encode_action(4, 0, 0)})
    assert terminations == {"player_1": False} and rewards == {"player_1": 0.0}
    _, rewards, terminations, _, _ = env.step({"player_1": E.encode_action(4, 0, 0)})
    assert terminations == {"player_1": True} and env.agents == []
    assert rewards == {"player_1": E.score(env.engine_state, 1) / 100}
