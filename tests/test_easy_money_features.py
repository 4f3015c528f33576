"""Ea$y Money's optional Greed observation features (config ``greed_features``): the mover's exact expected units
of rolling on and of stopping at a Greed roll-or-stop decision, and whether rolling is worth more.

The reference is the exact solver (``dicearena.agents.easy_money.greed_solver``: the full programme over every total up
to the cash + 6), read here in plain Python; the engine's values come from
``dicearena.envs.easy_money.greed.greed_values``,
which solves only the totals below ``GREED_STOP_FROM``. Positions: a grid of crafted (total, cash) pairs, a Greed
sequence played with injected dice, and every Greed decision of seeded batched games.
"""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from dicearena.agents.easy_money.greed_solver import greed_table
from dicearena.envs.common.config import ConfigError, validate_config
from dicearena.envs.common.game_aec import GameAEC, make_env
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.easy_money import engine as E
from dicearena.envs.easy_money.config import EasyMoneyConfig
from dicearena.envs.easy_money.greed import GREED_STOP_FROM, greed_values

ON = {"greed_features": True}


def solver_values(total: int, cash: int) -> tuple[float, float, bool]:
    """(rolling on, stopping, rolling is optimal) from the solver's table: a face f (0..5) busts on 0, else adds
    f + 1 pips; a total past the table (cash + 6) is worth 0."""
    values, stop = greed_table(cash)
    roll = sum(0.0 if f == 0 or total + f + 1 >= len(values) else float(values[total + f + 1]) for f in range(6)) / 6
    paid = float(total if total <= cash else 0)
    if total < len(values):  # the table agrees with itself: its value is the better of the two, its choice the stop
        assert values[total] == max(paid, roll) and bool(stop[total]) == (paid >= roll)
    return roll, paid, roll > paid


def expected_slots(total: int, cash: int) -> np.ndarray:
    roll, paid, better = solver_values(total, cash)
    return np.array([min(roll, 100) / 100, min(paid, 100) / 100, float(better)], dtype=np.float32)


def new_state(**overrides: object) -> tuple[EasyMoneyConfig, np.ndarray]:
    config = validate_config(EasyMoneyConfig, {"first_player": 0, **ON, **overrides})
    state = np.zeros(E.sizes(config).state, dtype=np.int32)
    E.init_state(state, E.header(config))
    return config, state


def observe(config: EasyMoneyConfig, state: np.ndarray, seat: int) -> np.ndarray:
    out = np.full(E.sizes(config).observation, np.nan, dtype=np.float32)  # observe must write every slot
    E.observe(state, seat, out)
    return out


def greed_slots(obs: np.ndarray) -> np.ndarray:
    return obs[-E.NUM_GREED_FEATURES :]


# --- the values


def test_greed_values_equal_the_exact_solver_bit_for_bit_on_every_total_and_cash() -> None:
    cases = [(t, m) for m in [*range(0, 61), 99, 100, 101, 150, 720, 5000] for t in range(0, m + 9)]
    for total, cash in cases:
        roll, paid, _ = solver_values(total, cash)
        assert greed_values(total, cash) == (roll, paid), (total, cash)
    assert GREED_STOP_FROM == 20 and greed_values(0, 10)[0] == pytest.approx(179 / 36)  # the README's 4.97222
    assert greed_values(19, 100)[0] > 19 and greed_values(20, 100) == (20.0, 20.0)  # a tie at 20: stop


# --- the observation


@pytest.mark.parametrize("players", [2, 3, 4])
def test_sizes_grow_by_three_slots_at_the_end_and_the_default_is_off(players: int) -> None:
    off = validate_config(EasyMoneyConfig, {"num_players": players})
    on = validate_config(EasyMoneyConfig, {"num_players": players, **ON})
    assert off.greed_features is False and E.observation_size(players) == 139 + 17 * players
    assert E.sizes(on).observation == E.sizes(off).observation + 3 == E.observation_size(players, True)
    assert E.sizes(on)._replace(observation=0) == E.sizes(off)._replace(observation=0)
    env = GameAEC("easy_money", num_players=players, **ON)
    assert env.observation_space("player_0")["observation"].shape == (139 + 17 * players + 3,)


def test_a_bad_greed_features_value_is_a_clear_error() -> None:
    for bad in ("yes", 1, None):
        with pytest.raises(ConfigError, match="greed_features"):
            validate_config(EasyMoneyConfig, greed_features=bad)


@pytest.mark.parametrize("players", [2, 4])
def test_crafted_greed_decisions_show_the_solvers_values_to_every_seat(players: int) -> None:
    config, state = new_state(num_players=players)
    rng = np.random.default_rng(5)
    state[E.PHASE], state[E.CURRENT], state[E.ACTOR] = E.PHASE_GREED_DECIDE, 1, 1
    positions = [(2, 0), (2, 1), (19, 19), (20, 20), (21, 20), (50, 10), (18, 400), (95, 400), (150, 400)]
    positions += [(int(rng.integers(2, 60)), int(rng.integers(0, 200))) for _ in range(40)]
    for total, cash in positions:
        state[E.GREED_TARGET], state[E.GREED_TOTAL] = 0, total
        state[E.CASH] = cash
        for seat in range(players):
            obs = observe(config, state, seat)
            np.testing.assert_array_equal(greed_slots(obs), expected_slots(total, cash), err_msg=str((total, cash)))
    state[E.GREED_TOTAL], state[E.CASH] = 150, 400  # stopping pays 150, rolling is worth 128.33: both capped
    assert greed_slots(observe(config, state, 0)).tolist() == [1.0, 1.0, 0.0]
    state[E.GREED_TOTAL] = 95  # 95 and (5 * 95 + 20) / 6 = 82.5: under the cap
    np.testing.assert_allclose(greed_slots(observe(config, state, 0)), [0.825, 0.95, 0.0], rtol=1e-6)


def test_a_greed_sequence_played_with_injected_dice_shows_the_values_only_at_its_decisions() -> None:
    config, state = new_state()
    sizes = E.sizes(config)

    def outcome(*values: int) -> None:
        out = np.zeros(sizes.outcome, dtype=np.int32)
        out[: len(values)] = values
        assert E.check_outcome(state, out) == 0
        E.apply_outcome(state, out)

    for deck in (12, 6, 12):  # the three shuffles, identity order
        outcome(*range(deck))
    while state[E.PHASE] == E.PHASE_STAKE:
        assert not greed_slots(observe(config, state, int(state[E.ACTOR]))).any()
        E.apply_action(state, int(state[E.ACTOR]), E.ACT_STAKE_NONE)
    state[E.PAWN] = 7
    outcome(0, 0)  # 1 + 1: lands on 9, Greed
    assert state[E.PHASE] == E.PHASE_GREED_NAME
    E.apply_action(state, 0, E.ACT_NAME + 1)  # names seat 2 (cash 36)
    seen = []
    for pips in (6, 5, 6, 4):
        assert state[E.PHASE] == E.PHASE_GREED_ROLL and not greed_slots(observe(config, state, 0)).any()
        outcome(pips - 1)
        total = int(state[E.GREED_TOTAL])
        for seat in range(4):
            np.testing.assert_array_equal(greed_slots(observe(config, state, seat)), expected_slots(total, 36))
        seen.append(greed_slots(observe(config, state, 0)))
        E.apply_action(state, 0, E.ACT_GREED_ROLL)  # on, whatever the values say
    assert [s[2] for s in seen] == [1, 1, 1, 0]  # totals 6, 11, 17 against 36: roll on (17.53 > 17); 21: stop
    np.testing.assert_allclose(seen[-1][:2] * 100, [125 / 6, 21], rtol=1e-6)  # from 21: (5 * 21 + 20) / 6
    outcome(0)  # a 1: bust, the turn ends
    assert state[E.PHASE] == E.PHASE_STAKE and not greed_slots(observe(config, state, 1)).any()


def test_seeded_games_show_the_solvers_values_at_every_greed_decision_and_change_nothing_else() -> None:
    """Two batches, the option off and on, same seed and actions: the same games; the on-observation is the
    off-observation plus the three slots, which hold the solver's values at Greed decisions and 0 elsewhere."""
    games, steps = 64, 1500
    off, on = BatchedGame("easy_money", games, seed=11), BatchedGame("easy_money", games, seed=11, **ON)
    (obs_off, masks, _), (obs_on, masks_on, _) = off.reset(), on.reset()
    rng = np.random.default_rng(11)
    base = E.observation_size(4)
    decisions, rolls_better, totals = 0, 0, set()
    for _ in range(steps):
        np.testing.assert_array_equal(masks, masks_on)
        np.testing.assert_array_equal(obs_on[:, :base], obs_off)
        states = on.states
        greed = states[:, E.PHASE] == E.PHASE_GREED_DECIDE
        assert not obs_on[~greed, base:].any()
        for g in np.flatnonzero(greed):
            total, cash = int(states[g, E.GREED_TOTAL]), int(states[g, E.CASH + states[g, E.GREED_TARGET]])
            np.testing.assert_array_equal(obs_on[g, base:], expected_slots(total, cash))
            other = (int(states[g, E.CURRENT]) + 1) % 4
            np.testing.assert_array_equal(greed_slots(observe(on.config, states[g], other)), obs_on[g, base:])
            decisions, rolls_better = decisions + 1, rolls_better + int(obs_on[g, base + E.GREED_ROLL_BETTER])
            totals.add((total, cash))
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
        actions[greed] = np.where(rng.random(int(greed.sum())) < 0.8, E.ACT_GREED_ROLL, E.ACT_GREED_STOP)
        obs_off, masks, *_ = off.step(actions)
        obs_on, masks_on, *_ = on.step(actions)
    assert decisions > 200 and 0 < rolls_better < decisions and len(totals) > 50


def test_the_pettingzoo_api_test_passes_with_the_features_on() -> None:
    api_test(make_env("easy_money", **ON), num_cycles=300)
