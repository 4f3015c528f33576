"""Greed: the rule, the task engine and the exact solver (rules/easy_money.md, "Greed" and "Task environments")."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from dicearena.agents.easy_money.greed_solver import greed_table, policy_value, sequence_value, should_stop
from dicearena.envs.common.config import ConfigError
from dicearena.envs.common.contract import CHANCE, NOBODY
from dicearena.envs.easy_money import greed as G


def test_optimal_value_with_ten_units_is_179_over_36() -> None:
    assert sequence_value(10) == pytest.approx(179 / 36, abs=1e-12)  # 4.97222...: the first roll is not a choice


@pytest.mark.parametrize("cash", [30, 31, 45, 200])
def test_with_enough_cash_the_value_is_8_14179_and_stopping_starts_at_20(cash: int) -> None:
    assert sequence_value(cash) == pytest.approx(8.14179, abs=5e-6)
    assert [should_stop(t, cash) for t in range(2, 26)] == [t >= 20 for t in range(2, 26)]


def _brute_force(stop_at: frozenset[int], cash: int) -> Fraction:
    """A deterministic policy's exact value by expanding every roll sequence (no tables)."""

    def after_roll(total: int) -> Fraction:
        value = Fraction(0)
        for pips in range(2, 7):  # a 1 busts: worth 0
            new = total + pips
            if new in stop_at or new > cash + 6:
                value += Fraction(new if new <= cash else 0, 6)
            else:
                value += after_roll(new) / 6
        return value

    return after_roll(0)


@pytest.mark.parametrize("cash", range(0, 9))
def test_the_solver_matches_the_best_of_every_stop_rule(cash: int) -> None:
    totals = range(2, cash + 7)
    best = max(
        _brute_force(frozenset(t for t, stop in zip(totals, choice, strict=True) if stop), cash)
        for choice in itertools.product((False, True), repeat=len(totals))
    )
    assert sequence_value(cash) == pytest.approx(float(best), abs=1e-12)


def test_policy_value_scores_a_policy_exactly() -> None:
    _, stop = greed_table(25)
    assert policy_value(stop.astype(float), 25) == pytest.approx(sequence_value(25), abs=1e-12)
    always_stop = np.ones(32)
    assert policy_value(always_stop, 25) == pytest.approx(20 / 6)  # stop after the forced roll: mean of 2..6 / 6 * 5
    half = np.full(32, 0.5)
    assert 0 < policy_value(half, 25) < sequence_value(25)
    with pytest.raises(ValueError, match="32 probabilities"):
        policy_value(np.ones(5), 25)


def _play(cash: int, faces: list[int], actions: list[int]) -> tuple[np.ndarray, float]:
    """One task episode through the engine with injected outcomes (faces 0..5 for pips 1..6)."""
    config = G.GreedTaskConfig(named_cash=cash)
    state = np.zeros(G.STATE_SIZE, dtype=np.int32)
    G.init_state(state, G.header(config))
    outcome = np.zeros(2, dtype=np.int32)
    faces, actions = list(faces), list(actions)
    while G.to_act(state) != NOBODY:
        if G.to_act(state) == CHANCE:
            outcome[:] = [cash, faces.pop(0)] if state[G.PHASE] == G.P_START else [faces.pop(0), 0]
            assert G.check_outcome(state, outcome) == 0
            G.apply_outcome(state, outcome)
        else:
            action = actions.pop(0)
            assert G.is_legal(state, 0, action)
            G.apply_action(state, 0, action)
    out = np.zeros(1)
    G.rewards(state, out)
    assert not faces and not actions
    return state, float(out[0])


def test_the_task_engine_plays_the_rule() -> None:
    assert _play(30, [5, 3], [G.GREED_ROLL, G.GREED_STOP])[1] == 10.0  # 6 then 4: stop at 10
    assert _play(30, [5, 0], [G.GREED_ROLL])[1] == 0.0  # a 1 busts
    assert _play(8, [5, 3], [G.GREED_ROLL, G.GREED_STOP])[1] == 0.0  # 10 is more than the named player's 8
    assert _play(10, [5, 3], [G.GREED_ROLL, G.GREED_STOP])[1] == 10.0  # exactly the cash is paid
    state, reward = _play(30, [1, 2, 0], [G.GREED_ROLL, G.GREED_ROLL])
    assert reward == 0.0 and state[G.ROLLS] == 3 and state[G.PHASE] == G.P_OVER  # 2, 3, then a 1: nothing


def test_the_task_draws_cash_in_range_and_refuses_bad_outcomes() -> None:
    config = G.GreedTaskConfig(named_cash=(3, 7))
    state = np.zeros(G.STATE_SIZE, dtype=np.int32)
    G.init_state(state, G.header(config))
    outcome = np.zeros(2, dtype=np.int32)
    drawn = set()
    for word in range(40):
        G.draw_outcome(state, np.array([word, word], dtype=np.int64), outcome)
        drawn.add(int(outcome[0]))
    assert drawn == {3, 4, 5, 6, 7}
    assert G.check_outcome(state, np.array([8, 1], dtype=np.int32)) == G.BAD_CASH
    assert G.check_outcome(state, np.array([5, 6], dtype=np.int32)) == G.BAD_FIRST_FACE
    assert G.check_outcome(state, np.array([5, 0], dtype=np.int32)) == G.BAD_FIRST_FACE  # starts at a decision
    outcomes, probs = np.zeros((64, 2), dtype=np.int32), np.zeros(64)
    assert G.enumerate_outcomes(state, outcomes, probs) == 25 and probs[:25].sum() == pytest.approx(1.0)
    assert set(outcomes[:25, 1].tolist()) == {1, 2, 3, 4, 5}
    faces = set()
    for word in range(40):
        G.draw_outcome(state, np.array([0, word], dtype=np.int64), outcome)
        faces.add(int(outcome[1]))
    assert faces == {1, 2, 3, 4, 5}


@pytest.mark.parametrize("bad", [-1, (5, 2), (0, 10**6)])
def test_bad_cash_configs_name_the_key(bad: object) -> None:
    with pytest.raises((ConfigError, ValueError), match="named_cash"):
        G.GreedTaskConfig(named_cash=bad)


def test_the_greed_stop_env_plays_injected_rolls_and_passes_gymnasium_checks() -> None:
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    import dicearena.envs  # noqa: F401  (registers the ids)
    from dicearena.envs.common.chance import ScriptedChance
    from dicearena.envs.easy_money.greed_task import GreedStopEnv

    check_env(gymnasium.make("dicearena/GreedStop-v0").unwrapped)
    env = GreedStopEnv({"named_cash": [5, 20]}, chance=ScriptedChance([[12, 5], [3], [0]]))
    obs, info = env.reset(seed=0)
    assert (info["named_cash"], info["total"], info["rolls"]) == (12, 6, 1) and info["action_mask"].tolist() == [1, 1]
    obs, reward, terminated, _, info = env.step(G.GREED_ROLL)  # a 4: total 10
    assert (reward, terminated, info["total"]) == (0.0, False, 10)
    obs, reward, terminated, _, info = env.step(G.GREED_STOP)
    assert (reward, terminated, info["collected"]) == (10.0, True, 10)
    with pytest.raises(ValueError, match="first roll"):
        GreedStopEnv(chance=ScriptedChance([[12, 0]])).reset()  # an episode starts at a decision


def test_the_exact_agent_scores_the_optimum_and_the_others_less() -> None:
    import dicearena.agents.training.tasks  # noqa: F401  (the task registry first)
    from dicearena.agents import make_agent
    from dicearena.agents.easy_money import GreedTaskExactAgent, GreedTaskThresholdAgent
    from dicearena.agents.easy_money.tasks import score_greed_policy

    config = {"named_cash": [1, 40]}
    exact = score_greed_policy(GreedTaskExactAgent(config), config)
    assert exact["percent_of_optimum"] == pytest.approx(100.0)
    assert exact["optimal_units"] == pytest.approx(np.mean([sequence_value(m) for m in range(1, 41)]))
    threshold = score_greed_policy(GreedTaskThresholdAgent(config), config)["percent_of_optimum"]
    random_play = score_greed_policy(make_agent("random", seed=0), config)["percent_of_optimum"]
    assert 95.0 < threshold < 100.0 and random_play < threshold


def test_the_vectorised_task_pays_what_the_sequences_collect() -> None:
    from dicearena.envs.easy_money.greed_task import GreedStopGames

    games = GreedStopGames(64, {"named_cash": 30}, seed=3)
    obs = games.reset()
    assert obs.shape == (64, G.OBSERVATION_SIZE) and games.action_masks().all()
    rng, paid = np.random.default_rng(0), []
    for _ in range(200):
        obs, rewards, dones, infos = games.step(rng.integers(0, 2, 64))
        for i in np.flatnonzero(dones):
            final = infos[i]["final_state"]
            assert rewards[i] == final[G.COLLECTED] == infos[i]["episode"]["r"]
            paid.append(rewards[i])
    assert len(paid) > 100 and 0 < np.mean(paid) < sequence_value(30) * 6 / 5
