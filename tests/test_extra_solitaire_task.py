"""The Extra! solitaire task (the generic one-seat envs with one player): Gymnasium/SB3 checkers, registration, the
reward with scripted dice, errors, the SB3 vectorised env (masks, auto-reset, one game = the single env), and
MaskablePPO on it with no glue."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest
import torch
from gymnasium.utils.env_checker import check_env
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import dicearena.envs  # noqa: F401  (registers the ids)
from dicearena.agents.random_agent import sample_masked
from dicearena.envs.common.config import ConfigError
from dicearena.envs.common.dice import ScriptedDice
from dicearena.envs.extra import engine as E
from dicearena.envs.extra.solitaire_task import ExtraSolitaireEnv, ExtraSolitaireVecEnv

OBS_SIZE = E.observation_size(1)


@pytest.mark.parametrize("config", [{}, {"children": True, "sheet": {"extra_columns": [2, 3, 2]}}])
def test_gymnasium_and_sb3_env_checkers_pass(config: dict) -> None:
    check_env(ExtraSolitaireEnv(config), skip_render_check=True)
    sb3_check_env(ExtraSolitaireEnv(config))


def test_gymnasium_make_by_id_and_render() -> None:
    env = gymnasium.make("dicearena/ExtraSolitaire-v0", render_mode="ansi")
    obs, info = env.reset(seed=3)
    assert obs.shape == (OBS_SIZE,) and env.observation_space.contains(obs)
    assert env.action_space == gymnasium.spaces.Discrete(E.NUM_ACTIONS)
    np.testing.assert_array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool))
    assert "EXTRA" in env.render()


def test_scripted_game_reward_is_final_score_over_100() -> None:
    # Throw 1,2,2,3,5 (rulebook): pairs 2+2 and 1+5, fifth die 3 -> rows 4 and 6, EXTRA 3 in column 0.
    # Then 3,3,3,3,3 eight times: pairs 6+6, fifth die 3 -> column 0 (9 boxes) fills on the last of them.
    rolls = [[0, 1, 1, 2, 4]] + [[2, 2, 2, 2, 2]] * 8
    env = ExtraSolitaireEnv(sheet={"penalty": 150}, dice=ScriptedDice(rolls))
    _, info = env.reset()
    assert info["dice"] == [1, 2, 2, 3, 5] and info["action_mask"].all()  # first throw: every split is legal
    _, reward, terminated, truncated, info = env.step(E.encode_action(3, 2, 0))  # pairs (1+5)(2+2), fifth 3
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["extra_numbers"] == [3, 0, 0] and info["score"] == -300  # rows 4 and 6 in the minus zone
    state = env.engine_state
    assert state[E.PLAYERS + E.P_ROWS + 4 - 2] == 1 and state[E.PLAYERS + E.P_ROWS + 6 - 2] == 1
    total = 0.0
    for step in range(8):
        assert np.flatnonzero(info["action_mask"]).tolist() == [9 * e + 3 * p for e in range(5) for p in range(3)]
        _, reward, terminated, _, info = env.step(0)
        total += reward
        assert terminated == (step == 7) and (reward == 0.0) == (step < 7)
    # Row 6 (7 minus boxes, 13 boxes) is full: x5 = 200; row 4 is still in the minus zone: -150.
    assert info["score"] == 50 and total == 0.5 and not env.action_masks().any()
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(0)


def test_shaping_pays_each_score_change_and_the_game_sums_to_the_final_score() -> None:
    # The scripted game above, shaped: -3 for the two new rows (-150 each), then row 6 (7 minus boxes) gets two
    # checks a throw: 3, 5, 7 checks (-150), 9 (x1 = 40), 11 (x3 = 120), 13 (x5 = 200, full), full, full.
    rolls = [[0, 1, 1, 2, 4]] + [[2, 2, 2, 2, 2]] * 8
    env = ExtraSolitaireEnv(sheet={"penalty": 150}, shaping=True, dice=ScriptedDice(rolls))
    env.reset()
    _, reward, *_ = env.step(E.encode_action(3, 2, 0))
    assert reward == -3.0
    rewards = [env.step(0)[1] for _ in range(8)]
    np.testing.assert_array_equal(np.float32(rewards), np.float32([0.0, 0.0, 0.0, 1.9, 0.8, 0.8, 0.0, 0.0]))  # float32
    assert env.engine_state[E.PLAYERS + E.P_ROWS + 6 - 2] == 13 and sum(rewards) - 3.0 == pytest.approx(0.5)


def test_shaped_single_env_rewards_are_score_changes_over_random_games() -> None:
    env = ExtraSolitaireEnv(shaping=True)
    rng = np.random.default_rng(5)
    for game in range(40):
        _, info = env.reset(seed=game)
        total, score, terminated = 0.0, 0, False
        while not terminated:
            _, reward, terminated, _, info = env.step(int(sample_masked(info["action_mask"][None], rng)[0]))
            assert reward == pytest.approx((info["score"] - score) / 100)
            total, score = total + reward, info["score"]
        assert total == pytest.approx(info["score"] / 100) and score != 0


def test_shaped_vec_env_returns_equal_final_scores_and_default_is_unshaped() -> None:
    num = 64
    shaped, plain = ExtraSolitaireVecEnv(num, shaping=True, seed=3), ExtraSolitaireVecEnv(num, seed=3)
    shaped.reset(), plain.reset()
    rng = np.random.default_rng(3)
    returns = np.zeros(num)
    ended = 0
    for _ in range(120):
        actions = sample_masked(shaped.action_masks(), rng)
        before = [E.score(shaped.engine_states[i], 0) for i in range(num)]
        _, rewards, dones, infos = shaped.step(actions)
        _, prewards, pdones, pinfos = plain.step(actions)  # same dice, same actions: the same games
        np.testing.assert_array_equal(dones, pdones)
        returns += rewards
        for i in range(num):
            after = infos[i]["score"] if dones[i] else E.score(shaped.engine_states[i], 0)
            assert rewards[i] == np.float32((after - before[i]) / 100)
        for i in np.flatnonzero(dones):
            ended += 1
            assert infos[i]["score"] == pinfos[i]["score"]
            assert returns[i] == pytest.approx(infos[i]["score"] / 100, abs=1e-4)
            assert infos[i]["episode"]["r"] == pytest.approx(returns[i]) and prewards[i] == pinfos[i]["episode"]["r"]
            returns[i] = 0.0
        assert (prewards[~pdones] == 0).all() and rewards[~dones].any()  # off by default: paid only at the end
    assert ended > 200


def test_bad_actions_are_clear_errors_and_change_nothing() -> None:
    env = ExtraSolitaireEnv(dice=ScriptedDice([[0, 1, 2, 3, 4]] * 3 + [[5, 5, 5, 5, 0]] * 2))
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset()
    env.step(E.encode_action(0, 0, 0))  # EXTRA 1 in column 0
    env.step(E.encode_action(1, 0, 1))  # EXTRA 2 in column 1
    env.step(E.encode_action(2, 0, 2))  # EXTRA 3 in column 2; next throw 6,6,6,6,1 holds only the 1
    before = env.engine_state.copy()
    for bad, error, message in [
        ("0", TypeError, "action must be an int"),
        (1.0, TypeError, "action must be an int"),
        (True, TypeError, "action must be an int"),
        (45, ValueError, "out of range"),
        (-1, ValueError, "out of range"),
        (0, ValueError, r"Extra! seat env: the learner played the illegal action 0 .*legal actions: \[36, 39, 42\]"),
    ]:
        with pytest.raises(error, match=message):
            env.step(bad)
        np.testing.assert_array_equal(env.engine_state, before)
    env.step(np.int64(36))  # NumPy integers are fine


def test_injected_dice_serve_game_after_game_and_a_failing_source_changes_nothing() -> None:
    """The env restarts an ended game at once, but the next game's first throw is the script's next one (taken at
    ``reset``); a source that runs out or returns no faces raises in ``step`` and leaves the game as it was."""
    rolls = [[0, 1, 1, 2, 4]] + [[2, 2, 2, 2, 2]] * 8 + [[5, 5, 5, 5, 0]]
    dice = ScriptedDice(rolls)
    env = ExtraSolitaireEnv(sheet={"penalty": 150}, dice=dice, render_mode="ansi")
    assert env.dice is dice
    env.reset(seed=3)  # a script ignores seeds
    env.step(E.encode_action(3, 2, 0))
    for _ in range(8):
        _, _, terminated, _, info = env.step(0)
    assert terminated and info["score"] == 50 and info["round"] == 9 and dice.remaining == 1
    assert "EXTRA" in env.render()  # the final sheet
    _, info = env.reset()
    assert info["dice"] == [6, 6, 6, 6, 1] and info["round"] == 1 and info["score"] == 0 and dice.remaining == 0
    before = env.engine_state.copy()
    with pytest.raises(RuntimeError, match="exhausted"):
        env.step(E.encode_action(4, 0, 0))
    np.testing.assert_array_equal(env.engine_state, before)

    class NoFaces:
        def roll(self, n: int) -> list[int]:
            return [9] * n

    with pytest.raises(ValueError, match="the dice source must return 5 integer faces in 0..5"):
        ExtraSolitaireEnv(dice=NoFaces()).reset()
    with pytest.raises(TypeError, match="roll"):
        ExtraSolitaireEnv(dice=object())


@pytest.mark.parametrize("duplicate", [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))],
                         ids=["deepcopy", "pickle"])  # fmt: skip
def test_a_copied_env_plays_on_like_the_original_across_games(duplicate: Callable[[Any], Any]) -> None:
    env = ExtraSolitaireEnv()
    _, info = env.reset(seed=4)
    twin = duplicate(env)
    rng = np.random.default_rng(4)
    games = 0
    for _ in range(120):
        action = int(sample_masked(info["action_mask"][None], rng)[0])
        obs, reward, terminated, _, info = env.step(action)
        tobs, treward, tterminated, _, tinfo = twin.step(action)
        np.testing.assert_array_equal(obs, tobs)
        assert (reward, terminated, info["score"]) == (treward, tterminated, tinfo["score"])
        if terminated:
            games += 1
            (obs, info), (tobs, _) = env.reset(), twin.reset()
            np.testing.assert_array_equal(obs, tobs)
    assert games >= 3


@pytest.mark.parametrize(("config", "key"), [({"num_players": 2}, "num_players"), ({"children": "no"}, "children"),
                                            ({"sheet": {"extra_columns": [9, 8]}}, "extra_columns"),
                                            ({"shaping": "yes"}, "shaping"), ({"shaping": 1}, "shaping")])  # fmt: skip
def test_bad_configs_name_the_key(config: dict, key: str) -> None:
    with pytest.raises(ConfigError, match=key):
        ExtraSolitaireEnv(config)
    with pytest.raises(ConfigError, match=key):
        ExtraSolitaireVecEnv(2, config)


def test_reset_with_a_seed_is_reproducible() -> None:
    a, b = ExtraSolitaireEnv(), ExtraSolitaireEnv()
    for env in (a, b):
        env.reset(seed=42)
    for _ in range(3):
        np.testing.assert_array_equal(a.reset()[0], b.reset()[0])


# --- the vectorised env -------------------------------------------------------------------------------


def test_vec_env_masks_infos_and_auto_reset() -> None:
    venv = ExtraSolitaireVecEnv(32, seed=0)
    obs = venv.reset()
    assert obs.shape == (32, OBS_SIZE) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    buf_mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
    buf_obs = np.zeros(OBS_SIZE, dtype=np.float32)
    finished = 0
    for _ in range(80):
        masks = venv.action_masks()
        assert masks.shape == (32, E.NUM_ACTIONS) and masks.dtype == bool and masks.any(axis=1).all()
        for i in range(32):
            E.legal_mask(venv.engine_states[i], 0, buf_mask)
            np.testing.assert_array_equal(masks[i], buf_mask.astype(bool))
            E.encode_observation(venv.engine_states[i], 0, buf_obs)
            np.testing.assert_array_equal(obs[i], buf_obs)
        np.testing.assert_array_equal(np.stack(venv.env_method("action_masks")), masks)
        np.testing.assert_array_equal(venv.env_method("action_masks", indices=[3])[0], masks[3])
        obs, rewards, dones, infos = venv.step(sample_masked(masks, rng))
        for i in np.flatnonzero(dones):
            finished += 1
            info = infos[i]
            assert info["terminal_observation"].shape == (OBS_SIZE,)
            assert rewards[i] == np.float32(info["score"] / 100) == info["episode"]["r"]
            assert info["terminal_observation"][E.OBS_PLAYERS + E.PO_SCORE] == np.float32(info["score"] / 1000)
            assert venv.engine_states[i, E.ROUND] == 1
        assert (rewards[~dones] == 0).all() and not any(infos[i] for i in np.flatnonzero(~dones))
    assert finished > 50


def test_vec_env_seeding_and_one_game_matches_the_single_env() -> None:
    single, vec = ExtraSolitaireEnv(), ExtraSolitaireVecEnv(1)
    assert vec.seed(11) == [11]
    vobs = vec.reset()
    sobs, info = single.reset(seed=11)
    rng = np.random.default_rng(2)
    episodes = 0
    for _ in range(200):
        np.testing.assert_array_equal(vobs[0], sobs)
        action = sample_masked(info["action_mask"][None], rng)
        vobs, vrew, vdone, vinfo = vec.step(action)
        sobs, srew, sdone, _, info = single.step(int(action[0]))
        assert (vrew[0], vdone[0]) == (np.float32(srew), sdone)
        if sdone:
            episodes += 1
            np.testing.assert_array_equal(vinfo[0]["terminal_observation"], sobs)
            assert vinfo[0]["score"] == info["score"]
            sobs, info = single.reset()
    assert episodes >= 5


def test_vec_env_bad_input() -> None:
    venv = ExtraSolitaireVecEnv(4, seed=0)
    venv.reset()
    with pytest.raises(ValueError, match=r"must give 4 integer actions, got int64 of shape \(3,\)"):
        venv.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="the learner played the illegal action 45 in game 0"):
        venv.step(np.full(4, 45))
    with pytest.raises(AttributeError, match="no method 'render'"):
        venv.env_method("render")
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        venv.get_attr("nothing")
    with pytest.raises(ValueError, match="num_envs"):
        ExtraSolitaireVecEnv(0)


def test_maskable_ppo_runs_on_the_vec_env_with_no_glue() -> None:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    venv = ExtraSolitaireVecEnv(8, seed=1)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    model.learn(total_timesteps=512)
    obs = venv.reset()
    for _ in range(30):
        masks = venv.action_masks()
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[np.arange(8), actions].all()
        obs, *_ = venv.step(actions)
