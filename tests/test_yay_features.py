"""Yay!'s ``square_features`` option: per square, how much the legal write or cross-off there changes the mover's
lead now, appended to the observation.

The values are checked against a plain-Python reference that plays every legal action on a copy of the state with
the engine and measures the lead with the engine's own scoring (``own_live_count``, ``own_live_sum``, and the
shaping ``potentials`` for the count), on seeded random-play positions of several sheets and table sizes. Off, the
observation is the one it was; on, it only grows at its end.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import dicearena.envs  # noqa: F401  (registers the games)
from dicearena.agents import make_agent
from dicearena.agents.random_agent import sample_masked
from dicearena.envs.common.config import ConfigError
from dicearena.envs.common.game_aec import GameAEC, make_env
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.common.game_seat import SeatEnv
from dicearena.envs.yay import engine as E
from dicearena.envs.yay.config import YayConfig
from tests.yay_scripts import POSITION_CASES, random_positions

CASES = [*POSITION_CASES, ({"num_players": 3, "rows": 12, "cols": 10}, 15)]  # 120 squares: no bitboard
SUM_UNIT = 90.0  # the README's lead: count + sum / 90


def value(change: float) -> float:
    """The README's value of a lead change: (change + 2) / 8."""
    return (change + 2) / 8


def lead(state: np.ndarray, seat: int) -> tuple[int, int]:
    """(own uncrossed numbers minus the most any opponent has, own sum minus the highest opponent sum)."""
    n = int(state[E.NUM_PLAYERS])
    counts = [E.own_live_count(state, s) for s in range(n)]
    sums = [E.own_live_sum(state, s) for s in range(n)]
    others = [s for s in range(n) if s != seat]
    return counts[seat] - max(counts[s] for s in others), sums[seat] - max(sums[s] for s in others)


def count_lead(state: np.ndarray, seat: int) -> float:
    """The count part of the lead, from the engine's shaping potentials (they are it / squares)."""
    out = np.zeros(int(state[E.NUM_PLAYERS]))
    E.potentials(state, out)
    return out[seat] * int(state[E.ROWS] * state[E.COLS])


def reference(state: np.ndarray, seat: int) -> np.ndarray:
    """Each square's value by brute force: its legal write, block or cross-off played on a copy, then the lead's
    change as ``value``; 0 where no action on the square is legal."""
    squares = int(state[E.ROWS] * state[E.COLS])
    mask = np.zeros(3 * squares + 1, dtype=np.int8)
    E.legal_mask(state, seat, mask)
    values = np.zeros(squares)
    for s in range(squares):
        for action in (s, squares + s, 2 * squares + s):
            if mask[action]:
                after = state.copy()
                E.apply_action(after, seat, action)
                (count_after, sum_after), (count, pips) = lead(after, seat), lead(state, seat)
                assert values[s] == 0  # one legal action per square at most
                values[s] = value(count_after - count + (sum_after - pips) / SUM_UNIT)
                shaped = count_lead(after, seat) - count_lead(state, seat)
                assert shaped == pytest.approx(count_after - count)  # the count part is the shaping lead's
    return values


def observed(state: np.ndarray, seat: int, config: YayConfig) -> np.ndarray:
    out = np.full(E.sizes(config).observation, np.nan, dtype=np.float32)
    E.observe(state, seat, out)
    assert not np.isnan(out).any()  # every slot written
    return out


@pytest.mark.parametrize(("overrides", "seed"), CASES)
def test_every_square_value_is_the_lead_change_its_legal_action_makes(overrides: dict, seed: int) -> None:
    config = YayConfig(**overrides, square_features=True)
    states, masks, seats = random_positions({**overrides, "square_features": True}, seed)
    squares = config.rows * config.cols
    seen = {"write": 0, "crossing write": 0, "cross-off": 0, "block": 0}
    for state, mask, mover in zip(states, masks, seats, strict=True):
        assert state[E.SQUARE_FEATURES] == 1
        for seat in range(config.num_players):
            values = observed(state, seat, config)[-squares:]
            np.testing.assert_allclose(values, reference(state, seat), rtol=0, atol=1e-6)
            if seat != mover:
                assert not values.any()  # no legal action, no value
        values = observed(state, mover, config)[-squares:]
        legal = mask[:squares] | mask[squares : 2 * squares] | mask[2 * squares : 3 * squares]
        np.testing.assert_array_equal(values != 0, legal == 1)  # a value exactly where an action is legal
        assert (values[legal == 1] >= 0.1 - 1e-6).all() and (values < 0.87).all()
        seen["write"] += int(mask[:squares].sum())
        seen["crossing write"] += int((values > value(1 + 18 / SUM_UNIT)).sum())  # more than one number gained
        seen["cross-off"] += int(mask[2 * squares : 3 * squares].sum())
        seen["block"] += int(mask[squares : 2 * squares].sum())
    assert seen["write"] > 0 and seen["crossing write"] > 0 and seen["cross-off"] > 0, seen


def test_a_write_beside_opponent_numbers_is_worth_the_numbers_it_crosses() -> None:
    """A hand-made position: player 0 throws 12 beside player 1's 9 and 5 (and its own 4); 3 players."""
    config = YayConfig(num_players=3, square_features=True)
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.init_state(state, E.header(config))
    board = {(2, 3): E.number_code(1, 9), (3, 2): E.number_code(1, 5), (4, 3): E.number_code(0, 4),
             (0, 0): E.number_code(1, 7), (7, 7): E.number_code(2, 6), (7, 6): E.number_code(2, 3)}  # fmt: skip
    for (r, c), code in board.items():
        state[E.BOARD + r * 8 + c] = code
    state[E.PHASE], state[E.CURRENT], state[E.TOTAL] = E.PHASE_DECIDE, 0, 12
    state[E.FIRST_DONE : E.FIRST_DONE + 3] = 1
    for square in (3 * 8 + 3, 5 * 8 + 5):
        state[E.TOUCHED + square] = 1
    values = observed(state, 0, config)[-64:]
    # before: own 1 (4 pips); best opponent 3 numbers (player 1), 21 pips. At (3, 3) the 9 and the 5 are crossed:
    # own 2 (16), best opponent 2 (player 2: 9 pips; player 1: 1 number, 7 pips): lead -2 - 17/90 -> 0 + 7/90
    assert values[3 * 8 + 3] == pytest.approx(value(2 + 24 / SUM_UNIT), abs=1e-7)
    assert values[5 * 8 + 5] == pytest.approx(value(1 + 12 / SUM_UNIT), abs=1e-7)  # nothing beside: one more number
    assert np.count_nonzero(values) == 2
    state[E.TOTAL] = 9  # not above the 9: only (5, 5) allows writing, and no block is allowed
    assert np.flatnonzero(observed(state, 0, config)[-64:]).tolist() == [5 * 8 + 5]
    state[E.TOUCHED + 5 * 8 + 5] = 0  # no write anywhere: blocking (3, 3) is legal and changes no number
    assert np.flatnonzero(observed(state, 0, config)[-64:]).tolist() == [3 * 8 + 3]
    assert observed(state, 0, config)[-64 + 3 * 8 + 3] == value(0)
    state[E.PHASE] = E.PHASE_CROSS  # a forced cross-off: the own 4 is the only choice, one number and 4 pips lost
    assert np.flatnonzero(observed(state, 0, config)[-64:]).tolist() == [4 * 8 + 3]
    assert observed(state, 0, config)[-64 + 4 * 8 + 3] == pytest.approx(value(-1 - 4 / SUM_UNIT), abs=1e-7)
    assert not observed(state, 1, config)[-64:].any()  # not player 1's decision


def test_off_the_observation_is_unchanged_and_on_it_grows_at_its_end() -> None:
    for overrides, seed in CASES:
        off, on = YayConfig(**overrides), YayConfig(**overrides, square_features=True)
        squares, n = off.rows * off.cols, off.num_players
        assert E.sizes(off).observation == squares * (4 + n) + 8 + 2 * n == E.observation_size(n, off.rows, off.cols)
        assert E.sizes(on).observation == E.sizes(off).observation + squares
        assert E.observation_size(n, off.rows, off.cols, True) == E.sizes(on).observation
        assert E.header(off)[-1] == 0 and E.header(on)[-1] == 1
        states, _, _ = random_positions(overrides, seed)
        for state in states[::3]:
            assert state[E.SQUARE_FEATURES] == 0
            featured = state.copy()
            featured[E.SQUARE_FEATURES] = 1
            for seat in range(n):
                plain = observed(state, seat, off)
                np.testing.assert_array_equal(observed(featured, seat, on)[: plain.size], plain)
    assert E.sizes(YayConfig()).observation == 396
    assert GameAEC("yay").observation_space("player_0")["observation"].shape == (396,)
    assert GameAEC("yay", square_features=True).observation_space("player_0")["observation"].shape == (460,)


def test_a_bad_square_features_value_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="square_features"):
        GameAEC("yay", square_features="yes")


def test_the_pettingzoo_and_gymnasium_checks_pass_with_square_features() -> None:
    """The conformance suite's checks run on default configs; these are the ones the option could break."""
    api_test(make_env("yay", square_features=True), num_cycles=200)
    seed_test(lambda render_mode=None: make_env("yay", render_mode=render_mode, square_features=True), num_cycles=200)
    env = SeatEnv("yay", opponents=make_agent("yay_greedy"), square_features=True)
    check_env(env, skip_render_check=True)
    assert env.observation_space.shape == (460,)


def test_the_batched_engine_encodes_the_same_values_and_replays_the_aec_game() -> None:
    """The batched kernels' observations: the AEC env's at B = 1 move for move, the reference in a batch."""
    config = YayConfig(num_players=3, square_features=True)
    env, one = GameAEC("yay", config=config), BatchedGame("yay", 1, seed=5, config=config)
    env.reset(seed=5)
    obs, masks, _ = one.reset()
    rng = np.random.default_rng(0)
    for _ in range(300):
        np.testing.assert_array_equal(env.observe(env.agent_selection)["observation"], obs[0])
        actions = sample_masked(masks, rng)
        env.step(int(actions[0]))
        obs, masks, _, terminated, truncated, _ = one.step(actions)
        if terminated[0] or truncated[0]:
            env.reset()
    batch = BatchedGame("yay", 64, seed=6, config=config)
    obs, masks, info = batch.reset()
    for _ in range(40):
        for b in range(64):
            seat = int(info["to_act"][b])
            np.testing.assert_allclose(obs[b, -64:], reference(batch.states[b], seat), rtol=0, atol=1e-6)
        obs, masks, _, _, _, info = batch.step(sample_masked(masks, rng))
