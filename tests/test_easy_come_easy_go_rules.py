"""Every rule sentence and worked example of Easy Come, Easy Go, played through ``raw_env`` with scripted dice.

Sources: /work/shared/rulebooks/easy_come_easy_go.txt and the project's rules file rules/easy_come_easy_go.md.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from dicearena.envs.common.dice import ScriptedDice
from dicearena.envs.easy_come_easy_go import engine as E
from dicearena.envs.easy_come_easy_go_v0 import raw_env

FREEZE_ALL = E.FREEZE_OFFSET + 0b1111  # 23
ALL_ROLLS = list(itertools.product(range(6), repeat=4))


def freeze(*dice: int) -> int:
    """Action id freezing the given die indices."""
    return E.FREEZE_OFFSET + sum(1 << i for i in dice)


def game(rolls: list[list[int]], **config: object) -> tuple[raw_env, ScriptedDice]:
    """A reset raw env whose dice are exactly ``rolls`` (player_0 starts unless the config says otherwise)."""
    dice = ScriptedDice(rolls)
    env = raw_env(dice=dice, **{"first_player": 0, **config})
    env.reset()
    return env, dice


def owners(env: raw_env) -> list[int]:
    return env.engine_state[E.OWNER : E.OWNER + E.NUM_PRIZES].tolist()


def dice(env: raw_env) -> list[int]:
    return env.engine_state[E.DICE : E.DICE + E.NUM_DICE].tolist()


def legal(env: raw_env) -> set[int]:
    return set(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist())


def satisfied_slots(env: raw_env) -> set[int]:
    obs = env.observe(env.agent_selection)["observation"]
    return set(np.flatnonzero(obs[E.OBS_SATISFIED : E.OBS_SATISFIED + E.NUM_PRIZES]).tolist())


def expected_prizes(d: tuple[int, ...], four_of_a_kind_is_two_pairs: bool) -> set[int]:
    """Independent statement of the rules file's prize table (not the engine's code)."""
    counts = Counter(d)
    top = max(counts.values())
    total = sum(d)
    won = set()
    if top >= 3 and all(x % 2 == 0 for x in d):
        won.add(0)
    if top >= 3 and all(x % 2 == 1 for x in d):
        won.add(1)
    if total >= 17:
        won.add(2)
    if total == 7:
        won.add(3)
    if top == 4:
        won.add(4)
    if set(d) in ({0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}):
        won.add(5)
    if total == 13:
        won.add(6)
    if total <= 3:
        won.add(7)
    if sorted(counts.values()) == [2, 2] or (four_of_a_kind_is_two_pairs and top == 4):
        won.add(8)
    return won


# --- Worked examples from the rulebook


def test_example_a_three_twos_and_a_four_collect_all_even() -> None:
    env, script = game([[0, 2, 2, 5], [2, 5], [4], [1, 2, 3, 5]])
    assert dice(env) == [0, 2, 2, 5]
    env.step(freeze(1, 2))  # freeze the two 2s; re-roll the 0 and the 5 -> 2 and 5
    assert dice(env) == [2, 2, 2, 5] and env.infos["player_0"]["frozen"] == [False, True, True, False]
    env.step(freeze(0))  # freeze the new 2: three 2s frozen; re-roll the 5 -> 4
    assert dice(env) == [2, 2, 2, 4]
    assert env.engine_state[E.ROLLS] == 3
    assert 0 in legal(env) and satisfied_slots(env) == {0}
    env.step(0)
    assert owners(env)[0] == 0 and owners(env).count(E.CENTRE) == 8
    assert env.agent_selection == "player_1"
    assert env.infos["player_1"]["last_prize"] == 0 and env.infos["player_1"]["last_player"] == 0
    assert script.remaining == 0


def test_example_b_no_prize_and_the_last_die_must_be_frozen() -> None:
    env, script = game([[0, 1, 2, 5], [5], [1, 2, 3, 5]])
    env.step(freeze(0, 1, 2))
    assert dice(env) == [0, 1, 2, 5]
    assert satisfied_slots(env) == set()
    assert legal(env) == {freeze(3)}  # the only legal move: freeze the last die
    env.step(freeze(3))
    assert owners(env) == [E.CENTRE] * 9
    assert env.agent_selection == "player_1"
    assert env.infos["player_1"]["last_prize"] == -1
    assert script.remaining == 0


@pytest.mark.parametrize(
    ("reroll", "prizes"),
    [(0, {7}), (3, {5}), (4, {3}), (1, set()), (2, set()), (5, set())],
)
def test_example_b_what_the_last_die_could_have_won(reroll: int, prizes: set[int]) -> None:
    """'A 0 for 3 or less, a 3 for the Straight, a 4 for 7 exactly' (and nothing for the other faces)."""
    env, _ = game([[0, 1, 2, 5], [reroll]])
    env.step(freeze(0, 1, 2))
    assert satisfied_slots(env) == prizes
    assert legal(env) == prizes | {freeze(3)}


# --- The prize table on every roll


@pytest.mark.parametrize("variant", [False, True])
def test_every_prize_predicate_on_all_1296_rolls_engine(variant: bool) -> None:
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.start_game(state, 2, 10, int(variant), 0)
    E.apply_chance(state, np.zeros(4, dtype=np.int64))
    for roll in ALL_ROLLS:
        state[E.DICE : E.DICE + 4] = roll
        got = {p for p in range(9) if (E.satisfied_prizes(state) >> p) & 1}
        assert got == expected_prizes(roll, variant), roll


@pytest.mark.parametrize("variant", [False, True])
def test_every_prize_predicate_on_all_1296_rolls_through_raw_env(variant: bool) -> None:
    """Each roll as a first roll in the env: observation slots and collect actions match the table."""
    env, script = game([list(r) for r in ALL_ROLLS], max_turns=len(ALL_ROLLS), four_of_a_kind_is_two_pairs=variant)
    for roll in ALL_ROLLS:
        assert tuple(dice(env)) == roll
        want = expected_prizes(roll, variant)
        assert satisfied_slots(env) == want, roll
        assert legal(env) & set(range(9)) == want, roll
        env.step(FREEZE_ALL)
    assert script.remaining == 0
    assert all(env.truncations.values())


def test_exact_single_roll_probabilities_from_the_rules_file() -> None:
    reference = {0: 0.020833, 1: 0.020833, 2: 0.027006, 7: 0.027006, 3: 0.080247, 6: 0.080247}
    reference |= {4: 0.004630, 5: 0.055556, 8: 0.069444}
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.start_game(state, 2, 10, 0, 0)
    E.apply_chance(state, np.zeros(4, dtype=np.int64))
    hits = Counter()
    any_prize = 0
    for roll in ALL_ROLLS:
        state[E.DICE : E.DICE + 4] = roll
        bits = int(E.satisfied_prizes(state))
        any_prize += bits != 0
        hits.update(p for p in range(9) if (bits >> p) & 1)
    for prize, p in reference.items():
        assert hits[prize] / 1296 == pytest.approx(p, abs=5e-7), prize
    assert any_prize / 1296 == pytest.approx(0.364198, abs=5e-7)


# --- Setup: the roll-off


def test_roll_off_highest_total_starts() -> None:
    env, script = game([[1, 1, 1, 1], [5, 5, 4, 0], [2, 2, 2, 2], [1, 2, 3, 5]], num_players=3, first_player=None)
    assert env.agent_selection == "player_1"
    assert env.engine_state[E.TURN] == 1 and dice(env) == [1, 2, 3, 5]
    assert script.remaining == 0


def test_roll_off_ties_reroll_among_the_tied_only() -> None:
    # player_0 and player_2 tie on 20, player_1 is out; in the re-roll player_2 (8) beats player_0 (4).
    rolls = [[5, 5, 5, 5], [0, 0, 0, 1], [5, 5, 5, 5], [1, 1, 1, 1], [2, 2, 2, 2], [1, 2, 3, 5]]
    env, script = game(rolls, num_players=3, first_player=None)
    assert env.agent_selection == "player_2"
    assert script.remaining == 0  # exactly two re-rolls: player_1 did not roll again


def test_roll_off_tie_again_keeps_rolling() -> None:
    rolls = [[3, 3, 3, 3], [3, 3, 3, 3], [1, 1, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0], [0, 0, 0, 1], [1, 2, 3, 5]]
    env, script = game(rolls, num_players=2, first_player=None)
    assert env.agent_selection == "player_1"
    assert script.remaining == 0


# --- A turn


def test_stealing_from_another_player() -> None:
    rolls = [[0, 0, 0, 0], [0, 0, 0, 0], [1, 2, 3, 5]]
    env, _ = game(rolls)
    env.step(4)  # player_0 takes 4 of a kind from the centre
    assert owners(env)[4] == 0
    assert 4 in legal(env)  # player_1 may take it from player_0
    env.step(4)
    assert owners(env)[4] == 1
    assert env.engine_state[E.LAST_FROM] == 0 and env.infos["player_0"]["last_prize"] == 4


def test_cannot_collect_a_prize_you_hold() -> None:
    rolls = [[0, 0, 0, 0], [1, 2, 3, 5], [0, 0, 0, 0]]
    env, _ = game(rolls)
    env.step(4)
    env.step(FREEZE_ALL)
    assert env.agent_selection == "player_0"
    assert legal(env) & set(range(9)) == {0, 7}  # 4 of a kind is satisfied but already held
    before = env.engine_state.copy()
    with pytest.raises(ValueError, match=r"collect prize 4 \(4 of a kind\).*already holds"):
        env.step(4)
    np.testing.assert_array_equal(env.engine_state, before)


def test_one_prize_per_turn_then_the_dice_pass_left() -> None:
    env, script = game([[0, 0, 0, 0], [1, 2, 3, 5]], num_players=3)
    env.step(7)  # 0,0,0,0 satisfies prizes 0, 4 and 7; collecting one ends the turn
    assert owners(env).count(0) == 1
    assert env.agent_selection == "player_1" and dice(env) == [1, 2, 3, 5]
    assert env.engine_state[E.ROLLS] == 1 and env.engine_state[E.FROZEN] == 0
    assert script.remaining == 0


def test_at_most_four_rolls() -> None:
    env, script = game([[1, 2, 3, 5], [1, 1, 5], [3, 5], [1], [1, 2, 3, 5]])
    for roll in range(1, 5):
        obs = env.observe("player_0")["observation"]
        assert obs[E.OBS_ROLL : E.OBS_ROLL + 4].tolist() == [float(r == roll) for r in range(1, 5)]
        assert env.agent_selection == "player_0"
        env.step(freeze(roll - 1))  # freeze one die per roll
    assert env.agent_selection == "player_1"
    assert env.infos["player_1"]["rolls"] == 1
    assert script.remaining == 0


def test_fourth_roll_allows_only_the_last_die_or_a_prize() -> None:
    env, _ = game([[1, 2, 3, 5], [1, 1, 5], [3, 5], [1]])
    for die in range(3):
        env.step(freeze(die))
    assert dice(env) == [1, 1, 3, 1]
    assert legal(env) == {1, freeze(3)}  # three odd 1s: prize 1, else freeze the last die


def test_freezing_all_dice_ends_the_turn_with_no_prize() -> None:
    env, script = game([[0, 0, 0, 0], [1, 2, 3, 5]])
    assert {0, 4, 7} <= legal(env)  # declining a satisfied prize is allowed
    env.step(FREEZE_ALL)
    assert owners(env) == [E.CENTRE] * 9
    assert env.agent_selection == "player_1"
    assert script.remaining == 0


def test_a_frozen_die_cannot_be_frozen_again() -> None:
    env, _ = game([[1, 2, 3, 5], [1, 5, 5]])
    env.step(freeze(0))
    assert not legal(env) & {freeze(0), freeze(0, 1), FREEZE_ALL}
    with pytest.raises(ValueError, match="already frozen"):
        env.step(freeze(0, 1))


# --- Winning, truncation, rewards


def _three_prizes_for_player_0(extra: list[list[int]], **config: object) -> raw_env:
    """player_0 collects prizes 0, 4, 7 on three turns; player_1 freezes everything in between."""
    z, miss = [0, 0, 0, 0], [1, 2, 3, 5]
    env, _ = game([z, miss, z, miss, z, *extra], **config)
    for prize in (0, 4):
        env.step(prize)
        env.step(FREEZE_ALL)
    env.step(7)
    return env


def test_win_is_checked_at_the_start_of_the_winners_next_turn() -> None:
    env = _three_prizes_for_player_0([[1, 2, 3, 5]])
    assert owners(env).count(0) == 3
    assert not any(env.terminations.values())  # three prizes, but the others get their turns first
    assert env.agent_selection == "player_1"
    env.step(FREEZE_ALL)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.agent_selection == "player_0"
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.infos["player_0"]["winner"] == 0


def test_stealing_before_the_holders_turn_prevents_the_win() -> None:
    env = _three_prizes_for_player_0([[0, 0, 0, 0], [1, 2, 3, 5]])
    env.step(4)  # player_1 steals 4 of a kind
    assert owners(env).count(0) == 2
    assert not any(env.terminations.values())
    assert env.agent_selection == "player_0" and dice(env) == [1, 2, 3, 5]


def test_truncation_by_max_turns_gives_zero_rewards() -> None:
    env, script = game([[1, 2, 3, 5], [1, 2, 3, 5]], max_turns=2)
    env.step(FREEZE_ALL)
    assert not any(env.truncations.values())
    env.step(FREEZE_ALL)
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert script.remaining == 0  # no third turn was rolled


def test_win_takes_precedence_over_truncation_on_the_same_turn_start() -> None:
    env = _three_prizes_for_player_0([[1, 2, 3, 5]], max_turns=6)
    env.step(FREEZE_ALL)  # turn 6 ends; player_0's 7th turn would be truncated, but they have already won
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards["player_0"] == 1.0


def test_custom_win_and_loss_rewards_with_three_players() -> None:
    z, miss = [0, 0, 0, 0], [1, 2, 3, 5]
    env, _ = game([z, miss, miss] * 3, num_players=3, win_reward=5.0, loss_reward=-2.5)
    for prize in (0, 4, 7):
        env.step(prize)
        env.step(FREEZE_ALL)
        env.step(FREEZE_ALL)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 5.0, "player_1": -2.5, "player_2": -2.5}


def test_dead_steps_after_the_win_then_a_clear_error() -> None:
    env = _three_prizes_for_player_0([[1, 2, 3, 5]])
    env.step(FREEZE_ALL)
    seen = []
    while env.agents:
        seen.append(env.agent_selection)
        env.step(None)
    assert sorted(seen) == ["player_0", "player_1"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
