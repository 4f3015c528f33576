"""Yay! rules (../shared/rules/yay.md) played with scripted throws: every rule sentence has a test here."""

from __future__ import annotations

import numpy as np
import pytest

from dicearena.envs.yay import engine as E
from dicearena.envs.yay.chance import ScriptedThrows, SeededThrows, corners_at
from dicearena.envs.yay.config import YayConfig
from dicearena.envs.yay_v0 import raw_env
from tests.yay_scripts import after_first_turns, block, game, legal, put, sq, throw

# --- how a throw lands


@pytest.mark.parametrize(
    ("corner", "size", "squares"),
    [
        ((0.0, 0.0), 1.27, {(0, 0), (0, 1), (1, 0), (1, 1)}),  # 4 squares
        ((0.8, 2.0), 1.27, {(2, 0), (2, 1), (2, 2), (3, 0), (3, 1), (3, 2)}),  # 6: three columns, two rows
        ((4.9, 4.9), 1.27, {(r, c) for r in (4, 5, 6) for c in (4, 5, 6)}),  # 9
        ((3.0, 2.0), 1.0, {(2, 3)}),  # an edge-aligned unit die touches one square: contact needs positive area
        ((6.73, 6.73), 1.27, {(6, 6), (6, 7), (7, 6), (7, 7)}),  # flush with the far edge
    ],
)
def test_a_die_touches_every_square_its_footprint_overlaps(corner: tuple, size: float, squares: set) -> None:
    out = np.zeros(64, dtype=np.int32)
    corners = np.array([corner, (-50.0, -50.0), (-50.0, -50.0)])  # two dice off the sheet touch nothing
    E.touched_squares(corners, size, 8, 8, out)
    assert {divmod(int(s), 8) for s in np.flatnonzero(out)} == squares


def test_dice_overlap_only_with_positive_area() -> None:
    corners = np.array([[1.0, 1.0], [2.26, 1.0], [2.27, 1.0]])
    assert E.dice_overlap(corners, 1, 1.27)  # 0.01 of the first die's width is shared
    corners[1] = (2.27, 1.0)
    assert not E.dice_overlap(corners, 1, 1.27)  # touching edges do not overlap


def test_seeded_landings_follow_the_chance_model() -> None:
    """Whole dice on the sheet, never overlapping; per axis a die spans 3 squares with probability 6 * 0.27 / 6.73."""
    source = SeededThrows(seed=0)
    wide, n = 0, 20_000
    for _ in range(n // 3):
        source.roll(3)
        corners = source.land(1.27, 8, 8)
        assert (corners >= 0).all() and (corners <= 8 - 1.27).all()
        assert not any(E.dice_overlap(corners, k, 1.27) for k in (1, 2))
        wide += int((np.ceil(corners[:, 0] + 1.27) - np.floor(corners[:, 0]) == 3).sum())
    assert abs(wide / (n // 3 * 3) - 6 * 0.27 / 6.73) < 0.015  # no-overlap redraws barely change the share


def test_default_sheet_landings_keep_their_stream() -> None:
    """Whole-throw redraws never happen on the default sheet, so its landings (and every seeded test) are as before."""
    corners, total = np.zeros((3, 2)), np.zeros((3, 2))
    E.sample_landing(0, 1.27, 8, 8, corners)
    expected = [[5.944681739277815, 2.9041834201364725], [0.17789928281818282, 6.534035712975266],
                [0.7157132342473398, 2.2029023931879865]]  # fmt: skip
    np.testing.assert_allclose(corners, expected, rtol=0, atol=1e-12)
    for key in range(1000):
        E.sample_landing(key * 2654435761, 1.27, 8, 8, corners)
        total += corners
    assert total.sum() == pytest.approx(20056.059576463213, abs=1e-9)


@pytest.mark.parametrize(("rows", "cols", "die_size"), [(3, 3, 1.0), (3, 8, 1.27), (3, 3, 1.27), (3, 3, 1.45)])
def test_landings_never_overlap_even_on_cramped_sheets(rows: int, cols: int, die_size: float) -> None:
    """A die with no room beside the first two makes the whole throw be drawn again (3x3 with 1.27 or 1.45 is
    refused by the config, yet three dice fit there, so the engine still finds landings)."""
    corners = np.zeros((3, 2))
    for key in range(3000):
        E.sample_landing(key, die_size, rows, cols, corners)
        assert not any(E.dice_overlap(corners, k, die_size) for k in (1, 2)), (key, corners.tolist())
        assert (corners >= 0).all() and (corners <= [cols - die_size, rows - die_size]).all()


def test_a_sheet_where_three_dice_never_fit_raises_instead_of_hanging() -> None:
    with pytest.raises(ValueError, match="no room"):
        E.sample_landing(1, 1.6, 3, 3, np.zeros((3, 2)))  # two 1.6 dice cannot even lie apart on 3 x 3


def _two_dice_can_block(rows: int, cols: int, d: float, n: int = 13) -> bool:
    """Brute force for ``dice_always_fit``: is there a pair of non-overlapping dice (lower corners on a grid that
    holds 0, the far edge, the middle and d per axis) beside which no third die fits? True also if no two dice lie
    apart at all. Exact per pair: the free corners for the third die form closed boxes, so if any exists one sits
    at coordinates among 0, the far edge and xj +- d (yj +- d)."""
    a, b = cols - d, rows - d
    if a < 0 or b < 0:
        return True
    xs = np.unique(np.r_[np.linspace(0, a, n), a / 2, min(d, a)])
    ys = np.unique(np.r_[np.linspace(0, b, n), b / 2, min(d, b)])
    points = np.array([(x, y) for x in xs for y in ys])
    first, second = (m.ravel() for m in np.meshgrid(np.arange(len(points)), np.arange(len(points))))
    p, q = points[first], points[second]
    apart = (np.abs(p - q) >= d).any(axis=1)
    if not apart.any():
        return True
    p, q = p[apart], q[apart]

    def candidates(axis: int, high: float) -> np.ndarray:
        c = np.stack([np.zeros(len(p)), np.full(len(p), high), p[:, axis] - d, p[:, axis] + d, q[:, axis] - d,
                      q[:, axis] + d], axis=1)  # fmt: skip
        return np.clip(c, 0, high)

    cx, cy = candidates(0, a)[:, :, None], candidates(1, b)[:, None, :]

    def outside(die: np.ndarray) -> np.ndarray:
        gap = d - 1e-9  # a candidate at xj + d lies exactly die_size from die j, give or take rounding
        return (np.abs(cx - die[:, 0, None, None]) >= gap) | (np.abs(cy - die[:, 1, None, None]) >= gap)

    room = (outside(p) & outside(q)).any(axis=(1, 2))
    return not room.all()


@pytest.mark.parametrize(("rows", "cols"), [(3, 3), (3, 5), (3, 8), (3, 12), (4, 4), (4, 9), (5, 7), (8, 8), (12, 12)])
def test_the_config_accepts_exactly_the_sheets_where_three_dice_always_fit(rows: int, cols: int) -> None:
    for d in (0.5, 0.75, 0.9, 1.0, 1.1, 1.27, 1.45, 1.6, 1.8, 2.0, 2.4, 2.5, 2.7, 3.0, 3.5, 4.0):
        fits = E.dice_always_fit(rows, cols, d)
        assert fits == (not _two_dice_can_block(rows, cols, d)), (rows, cols, d)
        assert fits == E.dice_always_fit(cols, rows, d) == (d <= E.largest_die(rows, cols))
        if fits:
            YayConfig(rows=rows, cols=cols, die_size=d)
        else:
            with pytest.raises(ValueError, match=f"'die_size' {d} does not fit a {rows}x{cols} sheet"):
                YayConfig(rows=rows, cols=cols, die_size=d)


def test_scripted_landings_the_model_cannot_produce_are_refused_naming_the_event() -> None:
    start = [[6, 6, 6], [1, 1, 1]]
    with pytest.raises(ValueError, match=r"scripted event #2: dice 0 and 2 are stacked on one corner \[3.0, 3.0\]"):
        ScriptedThrows([*start, ([4, 4, 4], corners_at((3, 3), (0, 0), (3, 3)))])
    with pytest.raises(ValueError, match=r"scripted event #1: corners must be finite and >= 0"):
        ScriptedThrows([[6, 6, 6], ([4, 4, 4], [(-0.5, 0.0), (3.0, 3.0), (6.0, 6.0)])])
    overlapping = ScriptedThrows([*start, throw([4, 4, 4], (3, 3)), ([4, 4, 4], corners_at((3, 3), (3, 4), (6, 6)))])
    with pytest.raises(ValueError, match=r"scripted event #3: dice 0 and 1 overlap .*die_size 1.27"):
        raw_env(dice=overlapping)  # refused when the env is built, before any game could half-play a step
    off_sheet = ScriptedThrows([*start, throw([4, 4, 4], (7, 3))])
    with pytest.raises(ValueError, match=r"scripted event #2: die 0 at corner \[3.0, 7.0\] leaves the 8x8 sheet"):
        raw_env(dice=off_sheet)
    side_by_side = ScriptedThrows([*start, throw([4, 4, 4], (3, 4), parked=((3, 3), (6, 6)))])  # corners 1 apart
    with pytest.raises(ValueError, match=r"scripted event #2: dice 0 and 1 overlap"):
        raw_env(dice=side_by_side)  # 1.27 dice overlap there...
    raw_env(dice=side_by_side, die_size=1.0).reset()  # ...unit dice do not
    with pytest.raises(ValueError, match=r"scripted event #2: dice 0 and 1 overlap"):
        side_by_side.land(1.27, 8, 8)  # ``land`` checks too, for a source used without an env


def test_the_total_is_the_sum_of_the_three_dice_and_touched_squares_are_the_union() -> None:
    env = game(([2, 5, 6], corners_at((3, 3), (0, 0), (6, 6))))
    state = env.engine_state
    assert state[E.TOTAL] == 13 and env.infos["player_0"]["dice"] == (2, 5, 6)
    touched = {divmod(int(s), 8) for s in np.flatnonzero(state[E.TOUCHED : E.TOUCHED + 64])}
    assert touched == {(r + dr, c + dc) for r, c in ((3, 3), (0, 0), (6, 6)) for dr in (0, 1) for dc in (0, 1)}


# --- the start


def test_the_highest_start_roll_starts_and_ties_roll_again() -> None:
    env = raw_env(dice=ScriptedThrows([[3, 3, 3], [3, 3, 3], [1, 1, 1], [2, 2, 2], throw([4, 4, 4], (3, 3))]))
    env.reset()
    assert env.agent_selection == "player_1"  # 9 and 9 tie; the re-roll 3 against 6 gives player_1 the start
    env3 = raw_env(
        num_players=3,
        dice=ScriptedThrows([[1, 2, 2], [6, 2, 1], [3, 3, 3], [2, 2, 2], [5, 5, 5], throw([4, 4, 4], (3, 3))]),
    )
    env3.reset()
    assert env3.agent_selection == "player_2"  # player_0 (5) is out of the re-roll between players 1 and 2


# --- a turn


def test_the_first_throw_counts_no_throwing_again() -> None:
    env = game(throw([4, 4, 4], (3, 3)))
    squares = {sq(3, 3), sq(3, 4), sq(4, 3), sq(4, 4), sq(0, 0), sq(0, 1), sq(1, 0), sq(1, 1)}
    squares |= {sq(6, 6), sq(6, 7), sq(7, 6), sq(7, 7)}
    assert legal(env) == squares  # write at any empty touched square; no throw again (action 192)
    with pytest.raises(ValueError, match="first throw counts"):
        env.step(192)


def test_later_turns_may_throw_again_and_block_only_when_no_square_allows_writing() -> None:
    env = game(throw([4, 4, 4], (3, 3)), throw([1, 1, 1], (3, 0)))
    after_first_turns(env)
    block(env, (0, 0), (0, 1), (1, 0), (1, 1), (6, 6), (6, 7), (7, 6), (7, 7))
    assert legal(env) == {sq(3, 3), sq(3, 4), sq(4, 3), sq(4, 4), 192}
    put(env, 1, 18, (2, 3), (2, 4), (3, 2), (4, 2), (5, 3), (5, 4), (3, 5), (4, 5))  # 12 beats none of them
    assert legal(env) == {64 + sq(3, 3), 64 + sq(3, 4), 64 + sq(4, 3), 64 + sq(4, 4), 192}
    env.step(64 + sq(3, 3))
    assert env.engine_state[E.BOARD + sq(3, 3)] == E.BLOCKED and env.agent_selection == "player_1"


def test_writing_a_higher_total_crosses_off_lower_opponent_numbers_beside_it() -> None:
    env = game(throw([4, 4, 4], (3, 4)), throw([1, 1, 1], (0, 3)))
    put(env, 1, 9, (3, 3))  # left of (3, 4)
    put(env, 1, 11, (2, 4))  # above it
    put(env, 1, 15, (2, 2))  # diagonal: not adjacent
    put(env, 0, 13, (4, 3))  # own number, not beside (3, 4)
    env.step(sq(3, 4))
    state = env.engine_state
    assert state[E.BOARD + sq(3, 4)] == E.number_code(0, 12)
    assert E.is_crossed(state[E.BOARD + sq(3, 3)]) and E.is_crossed(state[E.BOARD + sq(2, 4)])
    assert not E.is_crossed(state[E.BOARD + sq(2, 2)]) and not E.is_crossed(state[E.BOARD + sq(4, 3)])
    assert env.infos["player_0"]["standings"] == ((2, 25), (1, 15))


def test_writing_no_higher_than_an_opponent_number_beside_is_not_allowed() -> None:
    env = game(throw([3, 3, 3], (3, 4)))
    put(env, 1, 9, (3, 3))
    assert sq(3, 4) not in legal(env) and sq(3, 5) in legal(env)
    with pytest.raises(ValueError, match="not higher than every uncrossed opponent number"):
        env.step(sq(3, 4))


def test_own_crossed_and_blocked_neighbours_do_not_restrict_writing() -> None:
    env = game(throw([1, 1, 1], (3, 4)))
    put(env, 0, 18, (3, 3))  # own
    put(env, 1, 18, (2, 4))
    env.engine_state[E.BOARD + sq(2, 4)] |= 1 << 10  # crossed off
    block(env, (4, 4))
    assert sq(3, 4) in legal(env)


def test_a_throw_not_higher_than_the_previous_forces_crossing_off_an_own_number() -> None:
    """Rule 9: throwing 10 then 10."""
    env = game(throw([3, 3, 4], (3, 3)), throw([4, 4, 2], (3, 3)), throw([1, 1, 1], (3, 0)))
    after_first_turns(env)
    put(env, 0, 7, (5, 5), (5, 0))
    put(env, 1, 8, (2, 0))
    env.step(192)
    assert env.engine_state[E.PHASE] == E.PHASE_CROSS and env.agent_selection == "player_0"
    assert legal(env) == {128 + sq(5, 5), 128 + sq(5, 0)}
    scalars = 64 * (4 + 2)
    assert env.observe("player_0")["observation"][scalars + 4] == 1.0  # the cross-off-pending slot
    with pytest.raises(ValueError, match="forces crossing off"):
        env.step(sq(2, 2))
    env.step(128 + sq(5, 0))
    state = env.engine_state
    assert E.is_crossed(state[E.BOARD + sq(5, 0)]) and not E.is_crossed(state[E.BOARD + sq(5, 5)])
    assert env.agent_selection == "player_1" and state[E.LAST_EVENT] == E.EVENT_CROSSED


def test_a_throw_not_higher_with_no_own_number_ends_the_turn() -> None:
    env = game(throw([3, 3, 4], (3, 3)), throw([1, 2, 3], (3, 3)), throw([6, 6, 6], (1, 4)))
    after_first_turns(env)
    env.step(192)
    assert env.agent_selection == "player_1" and env.engine_state[E.LAST_EVENT] == E.EVENT_NOT_HIGHER


def test_a_higher_throw_offers_the_choice_again() -> None:
    env = game(throw([3, 3, 4], (3, 3)), throw([5, 5, 1], (3, 3)))
    after_first_turns(env)
    env.step(192)
    state = env.engine_state
    assert state[E.PHASE] == E.PHASE_DECIDE and state[E.TOTAL] == 11 and state[E.PREVIOUS] == 10
    assert env.agent_selection == "player_0" and 192 in legal(env)


def test_a_throw_touching_only_filled_squares_passes_the_turn() -> None:
    """Rule 5: no penalty, the next player throws."""
    env = game(throw([3, 3, 3], (3, 3)), throw([6, 6, 6], (3, 3)), throw([2, 2, 2], (1, 4)))
    block(env, (0, 0), (0, 1), (1, 0), (1, 1), (6, 6), (6, 7), (7, 6), (7, 7), (3, 4), (4, 3), (4, 4))
    env.step(sq(3, 3))  # player_0 writes 9; player_1's 18 touches only filled squares
    state = env.engine_state
    assert state[E.LAST_EVENT] == E.EVENT_ALL_FILLED and env.agent_selection == "player_0"
    assert state[E.TOTAL] == 6 and state[E.FIRST_DONE + 1] == 1  # a first turn passed by rule 5 still counts


def _passed_flags(env: raw_env, agent: str) -> list[float]:
    """The observation's rule-5 slots of ``agent``: per relative seat, its last turn passed by rule 5."""
    n = env.config.num_players
    return env.observe(agent)["observation"][-n:].tolist()


def test_a_turn_passed_by_rule_5_shows_in_the_losers_info_and_observation() -> None:
    """The pass changes nothing else a player sees, so the flag is the only trace; it lasts until that player's next
    turn ends, and everyone sees whose turn passed."""
    throws = [([3, 3, 3], (3, 3)), ([6, 6, 6], (3, 3)), ([2, 2, 2], (1, 4)), ([4, 4, 4], (5, 1)), ([1, 1, 1], (2, 5))]
    env = game(*(throw(faces, at) for faces, at in throws))
    block(env, (0, 0), (0, 1), (1, 0), (1, 1), (6, 6), (6, 7), (7, 6), (7, 7), (3, 4), (4, 3), (4, 4))
    assert not env.infos["player_1"]["turn_passed"] and _passed_flags(env, "player_1") == [0.0, 0.0]
    env.step(sq(3, 3))  # player_0 writes 9; player_1's 18 touches only filled squares: its turn passes
    assert env.agent_selection == "player_0"
    assert env.infos["player_1"]["turn_passed"] and not env.infos["player_0"]["turn_passed"]
    info = env.infos["player_0"]
    assert (info["last_event"], info["last_event_player"]) == ("all_filled", "player_1")
    assert _passed_flags(env, "player_1") == [1.0, 0.0] and _passed_flags(env, "player_0") == [0.0, 1.0]
    env.step(sq(1, 4))  # player_0 writes 6; player_1 throws onto empty squares
    assert env.agent_selection == "player_1" and env.last()[-1]["turn_passed"]  # still flagged at its next decision
    assert env.last()[0]["observation"][-2:].tolist() == [1.0, 0.0]
    assert env.infos["player_1"]["last_event"] == "wrote" and env.infos["player_1"]["last_event_player"] == "player_0"
    env.step(sq(5, 1))  # player_1 writes: its last turn no longer passed
    assert not env.infos["player_1"]["turn_passed"] and _passed_flags(env, "player_1") == [0.0, 0.0]


def test_a_rule_5_pass_that_ends_the_game_is_flagged_in_the_final_observation() -> None:
    """At ``max_turns`` a rule-5 pass ends the game inside the throw; the terminal view still says whose turn passed."""
    env = game(throw([3, 3, 3], (3, 3)), throw([6, 6, 6], (3, 3)), max_turns=2)
    block(env, (0, 0), (0, 1), (1, 0), (1, 1), (6, 6), (6, 7), (7, 6), (7, 7), (3, 4), (4, 3), (4, 4))
    env.step(sq(3, 3))
    assert all(env.truncations.values()) and env.infos["player_1"]["turn_passed"]
    assert env.infos["player_0"]["last_event_player"] == "player_1"
    assert _passed_flags(env, "player_1") == [1.0, 0.0] and _passed_flags(env, "player_0") == [0.0, 1.0]


# --- the end


def test_filling_the_last_square_of_a_row_ends_the_game() -> None:
    env = game(throw([3, 3, 3], (0, 6), parked=((3, 0), (6, 3))))
    block(env, *[(0, c) for c in range(6)])
    put(env, 1, 5, (0, 6))
    env.step(sq(0, 7))  # the 8th square of row 0
    assert env.engine_state[E.PHASE] == E.PHASE_OVER
    assert all(env.terminations.values()) and env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_a_full_column_ends_the_game_too_and_row_and_column_needs_both() -> None:
    env = game(throw([3, 3, 3], (6, 0), parked=((0, 4), (3, 6))))
    block(env, *[(r, 0) for r in range(7)])
    env.step(sq(7, 0))
    assert env.engine_state[E.PHASE] == E.PHASE_OVER
    both = game(throw([3, 3, 3], (6, 0), parked=((0, 4), (3, 6))), throw([1, 1, 1], (3, 3)), end_when="row_and_column")
    block(both, *[(r, 0) for r in range(7)])
    both.step(sq(7, 0))
    assert both.engine_state[E.PHASE] != E.PHASE_OVER and not any(both.terminations.values())
    block(both, *[(7, c) for c in range(1, 8)])
    assert E.line_filled(both.engine_state)


def test_most_uncrossed_numbers_win_then_the_higher_sum_then_a_shared_win() -> None:
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.start_game(state, 3, 8, 8, E.END_ROW_OR_COLUMN, 100, E.DEFAULT_DIE_BITS)
    state[E.PHASE] = E.PHASE_OVER
    for s, (seat, value) in enumerate([(0, 3), (0, 4), (1, 17), (2, 5), (2, 5), (2, 5)]):
        state[E.BOARD + s] = E.number_code(seat, value)
    state[E.BOARD + 10] = E.number_code(1, 18) | (1 << 10)  # crossed off: counts for nothing
    assert [E.final_reward(state, s) for s in range(3)] == [-1.0, -1.0, 1.0]  # 3 numbers beat 2 and 1
    state[E.BOARD + 5] = E.number_code(1, 9)  # 2 numbers each: sums 7, 17 + 9 = 26, 5 + 5 = 10
    assert [E.final_reward(state, s) for s in range(3)] == [-1.0, 1.0, -1.0]
    state[E.BOARD + 3] = E.number_code(2, 16)  # player_2: 16 + 5 = 21
    state[E.BOARD + 2] = E.number_code(1, 12)  # player_1: 12 + 9 = 21: a shared win
    assert [E.final_reward(state, s) for s in range(3)] == [-1.0, 1.0, 1.0]


def test_max_turns_truncates_with_reward_zero() -> None:
    env = raw_env(max_turns=2, dice=SeededThrows(3))
    env.reset(seed=3)
    while not any(env.truncations.values()) and not any(env.terminations.values()):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.engine_state[E.TURN] == 2 and set(env.rewards.values()) == {0.0}


def test_shaping_pays_changes_of_the_lead_and_keeps_returns_at_the_final_reward() -> None:
    env = game(throw([4, 4, 4], (3, 4)), throw([1, 1, 1], (0, 3)), shaping=True)
    put(env, 1, 9, (3, 3))
    put(env, 1, 11, (2, 4))
    put(env, 1, 15, (2, 2))
    put(env, 0, 13, (4, 3))
    env.step(sq(3, 4))  # lead of player_0: 1 - 3 before, 2 - 1 after
    assert env.rewards == {"player_0": pytest.approx(3 / 64), "player_1": pytest.approx(-3 / 64)}
    for seed, config in ((0, {}), (1, {"num_players": 3}), (2, {"max_turns": 6})):
        env = raw_env(shaping=True, **config)
        env.reset(seed=seed)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        shaped = 0
        while not any(env.terminations.values()) and not any(env.truncations.values()):
            env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
            for a in env.possible_agents:
                returns[a] += env.rewards[a]
            shaped += any(env.rewards.values())
        finals = [E.final_reward(env.engine_state, s) for s in range(len(returns))]
        assert list(returns.values()) == pytest.approx(finals, abs=1e-9)
        assert shaped > 3  # the lead moved during the game, not only at its end


def test_rule_9_comes_before_rule_5() -> None:
    """Our decision: a re-throw that is not higher forces the cross-off even when it touches only filled squares
    (its points never count); a higher one on filled squares just passes the turn."""
    landing = [(3, 3), (3, 4), (4, 3), (4, 4), (0, 0), (0, 1), (1, 0), (1, 1), (6, 6), (6, 7), (7, 6), (7, 7)]
    for second, not_higher in (([1, 2, 3], True), ([6, 6, 6], False)):
        env = game(throw([3, 3, 4], (3, 3)), throw(second, (3, 3)), throw([1, 1, 5], (3, 0)))
        after_first_turns(env)
        put(env, 0, 7, (5, 5))
        block(env, *landing)  # the re-throw lands on the same squares: all filled now
        env.step(192)
        if not_higher:
            assert env.engine_state[E.PHASE] == E.PHASE_CROSS and env.agent_selection == "player_0"
            assert legal(env) == {128 + sq(5, 5)}
        else:
            assert env.engine_state[E.LAST_EVENT] == E.EVENT_ALL_FILLED and env.agent_selection == "player_1"


# --- action ids and squares (the engine splits them without a division)


def test_squares_and_action_ids_split_as_divmod_on_every_sheet_size() -> None:
    for rows in range(1, E.MAX_SIDE + 1):
        for cols in range(1, E.MAX_SIDE + 1):
            squares = rows * cols
            for s in range(squares):
                assert E.row_col(s, cols) == divmod(s, cols), (rows, cols, s)
            for action in range(3 * squares + 1):
                assert E.kind_square(action, squares) == divmod(action, squares), (rows, cols, action)
    # the same in plain Python on NumPy's integers (NUMBA_DISABLE_JIT=1), where two NumPy bools add up by OR
    assert E.kind_square.py_func(np.int64(192), 64) == (3, 0)
    assert E.row_col.py_func(np.int64(63), 8) == (7, 7)


# --- what the state keeps beside the sheet (filled and legal squares as bitboards, for the hot paths)


def _mask_by_the_rules(state: np.ndarray) -> np.ndarray:
    """The legal actions read off the sheet square by square, as rules 4-9 word them (no bitboard)."""
    rows, cols = int(state[E.ROWS]), int(state[E.COLS])
    n, seat, total = rows * cols, int(state[E.CURRENT]), int(state[E.TOTAL])
    board, touched = state[E.BOARD : E.BOARD + n], state[E.TOUCHED : E.TOUCHED + n]
    mask = np.zeros(3 * n + 1, dtype=np.int8)

    def live(code: int) -> bool:
        return code > E.BLOCKED and not code & (1 << 10)

    if state[E.PHASE] == E.PHASE_CROSS:  # a throw not higher: cross off an own number
        for s in range(n):
            mask[2 * n + s] = live(board[s]) and E.owner(board[s]) == seat
        return mask

    def beside(s: int) -> list[int]:
        r, c = divmod(s, cols)
        return [nr * cols + nc for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                if 0 <= nr < rows and 0 <= nc < cols]  # fmt: skip

    def unbeaten(code: int) -> bool:  # an opponent's uncrossed number the total does not beat
        return live(code) and E.owner(code) != seat and code & 31 >= total

    open_squares = [s for s in range(n) if touched[s] and board[s] == E.EMPTY]
    writes = [s for s in open_squares if not any(unbeaten(board[t]) for t in beside(s))]
    for s in writes:
        mask[s] = 1
    if not writes:  # blocking only when no touched square allows writing
        for s in open_squares:
            mask[n + s] = 1
    mask[3 * n] = state[E.FIRST_DONE + seat]  # the first throw counts
    return mask


@pytest.mark.parametrize(("players", "rows", "cols"), [(2, 8, 8), (4, 8, 8), (3, 5, 7), (2, 9, 9)])
def test_the_bitboards_kept_in_the_state_follow_the_sheet_at_every_node(players: int, rows: int, cols: int) -> None:
    """Random games on the engine: at every node the kept bitboards equal a recount (``refresh``), and every
    decision's mask and ``is_legal`` equal the rules read square by square. 9 x 9 keeps none (zero slots)."""
    config = YayConfig(num_players=players, rows=rows, cols=cols)
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.init_state(state, E.header(config))
    rng = np.random.default_rng(players * 100 + rows * cols)
    words = np.zeros(E.CHANCE_WORDS, dtype=np.int64)
    outcome = np.zeros(E.NUM_DICE + rows * cols, dtype=np.int32)
    mask = np.zeros(E.num_actions(rows, cols), dtype=np.int8)
    kinds, games, kept = set(), 0, False
    while games < 3 or (kinds != {0, 1, 2, 3} and games < 100):
        recount = state.copy()
        E.refresh(recount)
        np.testing.assert_array_equal(recount, state)
        kept |= bool(state[E.LEGAL_KIND : E.FILLED_HIGH + 1].any())
        seat = E.to_act(state)
        if seat == E.NOBODY:
            games += 1
            E.init_state(state, E.header(config))
        elif seat == E.CHANCE:
            words[:] = rng.integers(0, 2**62, size=E.CHANCE_WORDS)
            E.draw_outcome(state, words, outcome)
            E.apply_outcome(state, outcome)
        else:
            E.legal_mask(state, seat, mask)
            np.testing.assert_array_equal(mask, _mask_by_the_rules(state))
            assert [E.is_legal(state, seat, a) for a in range(mask.size)] == mask.astype(bool).tolist()
            kinds |= {int(a) // (rows * cols) for a in np.flatnonzero(mask)}
            E.apply_action(state, seat, int(rng.choice(np.flatnonzero(mask))))
    assert kinds == {0, 1, 2, 3}, kinds  # writes, blocks, cross-offs and throwing again all came up
    assert kept == (rows * cols <= E.BITBOARD_SQUARES)


def test_a_state_written_by_hand_loads_with_its_bitboards_recounted() -> None:
    """The state API recounts what the state keeps (``refresh``), so a serialized state edited by hand loads right."""
    from dicearena.envs.common.game_state import load_game

    env = game(throw([4, 4, 4], (3, 3)))
    after_first_turns(env)
    game_ = load_game("yay")
    state = game_.state_from(env.engine_state)
    writes = [a for a in state.legal_actions() if a < 64]
    assert {sq(3, 3), sq(3, 4)} <= set(writes)
    values = state.serialize().split()
    for s in (sq(3, 3), sq(3, 4)):  # block two squares the throw touched, in the text only
        values[E.BOARD + s] = str(E.BLOCKED)
    loaded = game_.deserialize_state(" ".join(values))
    assert loaded.legal_actions() == [a for a in writes if a not in (sq(3, 3), sq(3, 4))] + [192]
    assert loaded.engine_state[E.FILLED_LOW] == (1 << sq(3, 3)) | (1 << sq(3, 4))
