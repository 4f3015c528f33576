"""The turn task: Gymnasium/SB3 checkers, registration, rewards with scripted dice, drawn values, the SB3
vectorised env, and MaskablePPO training on it with no glue."""

from __future__ import annotations

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
from dicearena.envs.easy_come_easy_go import engine as E
from dicearena.envs.easy_come_easy_go.turn_engine import T_VALUES, TURN_OBS_SIZE, encode_turn_observation
from dicearena.envs.easy_come_easy_go.turn_task import EasyComeEasyGoTurnEnv, EasyComeEasyGoTurnVecEnv, TurnTaskConfig

DRAWN = {"value_distribution": {"kind": "uniform_int", "low": 0, "high": 5}}
EXAMPLE_A = [[0, 2, 2, 5], [2, 5], [4]]  # rulebook: freeze both 2s, freeze the re-rolled 2, re-roll 5 -> 4
EXAMPLE_A_ACTIONS = [E.FREEZE_OFFSET + 0b0110, E.FREEZE_OFFSET + 0b0001]


@pytest.mark.parametrize("config", [{}, DRAWN, {"prize_values": [0, 0, 1, 0, 0, 0, 0, 0, 2.5]}])
def test_gymnasium_and_sb3_env_checkers_pass(config: dict) -> None:
    check_env(EasyComeEasyGoTurnEnv(config))
    sb3_check_env(EasyComeEasyGoTurnEnv(config))


def test_gymnasium_make_by_id_with_a_config() -> None:
    env = gymnasium.make("dicearena/EasyComeEasyGoTurn-v0", config=DRAWN)
    obs, info = env.reset(seed=3)
    assert obs.shape == (TURN_OBS_SIZE,) and env.observation_space.contains(obs)
    assert env.action_space == gymnasium.spaces.Discrete(E.NUM_ACTIONS)
    np.testing.assert_array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool))


@pytest.mark.parametrize("value", [1.0, 2.5])
def test_example_a_collects_prize_0_and_earns_its_value(value: float) -> None:
    values = [value, 1, 1, 1, 1, 1, 1, 1, 1]
    env = EasyComeEasyGoTurnEnv({"prize_values": values}, dice=ScriptedDice(EXAMPLE_A))
    env.reset()
    for action in EXAMPLE_A_ACTIONS:
        _, reward, terminated, truncated, info = env.step(action)
        assert (reward, terminated, truncated) == (0.0, False, False)
    np.testing.assert_array_equal(env.engine_state[E.DICE : E.DICE + 4], [2, 2, 2, 4])
    assert info["action_mask"][0] == 1
    obs, reward, terminated, truncated, info = env.step(0)
    assert reward == value and terminated and not truncated and info["prize"] == 0
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="is over: call reset"):
        env.step(9)


def test_example_b_ends_with_no_prize_and_reward_zero() -> None:
    env = EasyComeEasyGoTurnEnv(dice=ScriptedDice([[0, 1, 2, 5], [5]]))
    env.reset()
    _, reward, terminated, _, info = env.step(E.FREEZE_OFFSET + 0b0111)
    assert (reward, terminated) == (0.0, False)
    assert np.flatnonzero(info["action_mask"]).tolist() == [E.FREEZE_OFFSET + 0b1000]  # nothing satisfied
    _, reward, terminated, _, info = env.step(E.FREEZE_OFFSET + 0b1000)
    assert (reward, terminated, info["prize"]) == (0.0, True, -1)  # NO_PRIZE: an int, as every prize


def test_reward_is_the_value_of_the_prize_collected_under_drawn_values() -> None:
    env = EasyComeEasyGoTurnEnv(DRAWN)
    rng = np.random.default_rng(0)
    drawn = []
    for episode in range(200):
        obs, info = env.reset(seed=episode if episode == 0 else None)
        values = info["prize_values"]
        drawn.append(values)
        assert ((values >= 0) & (values <= 5) & (values == np.round(values))).all()
        np.testing.assert_allclose(obs[T_VALUES : T_VALUES + 9], values / 5.0, rtol=1e-6)
        terminated = False
        while not terminated:
            action = int(sample_masked(info["action_mask"][None], rng)[0])
            obs, reward, terminated, _, info = env.step(action)
        expected = values[info["prize"]] if info["prize"] >= 0 else 0.0
        assert reward == expected
        np.testing.assert_array_equal(info["prize_values"], values)  # fixed within the episode
    assert len({tuple(v) for v in drawn}) > 150  # drawn afresh each episode


def test_reset_with_a_seed_is_reproducible() -> None:
    a, b = EasyComeEasyGoTurnEnv(DRAWN), EasyComeEasyGoTurnEnv(DRAWN)
    for env in (a, b):
        env.reset(seed=42)
    for _ in range(3):
        oa, ia = a.reset()
        ob, ib = b.reset()
        np.testing.assert_array_equal(oa, ob)
        np.testing.assert_array_equal(ia["prize_values"], ib["prize_values"])


def test_bad_actions_are_clear_errors_and_change_nothing() -> None:
    env = EasyComeEasyGoTurnEnv(dice=ScriptedDice([[0, 1, 2, 3]]))
    with pytest.raises(RuntimeError, match="reset"):
        env.step(9)
    env.reset()
    before = env.engine_state.copy()
    for bad, error, message in [
        ("9", TypeError, "action must be an int"),
        (9.0, TypeError, "action must be an int"),
        (True, TypeError, "action must be an int"),
        (np.array([9, 9]), TypeError, "action must be an int"),  # (a 0-d or (1,) array is model.predict's: fine)
        (24, ValueError, "out of range"),
        (-1, ValueError, "out of range"),
        (3, ValueError, r"illegal action 3 in game 0; legal actions: \[5, 9, .*\] \(the dice \[0, 1, 2, 3\] do not "),
    ]:
        with pytest.raises(error, match=message):
            env.step(bad)
        np.testing.assert_array_equal(env.engine_state, before)
    env.step(np.int64(5))  # NumPy integers are fine (0,1,2,3 is a straight only)


@pytest.mark.parametrize(
    ("config", "key"),
    [
        ({"prize_values": [1.0] * 8}, "prize_values"),
        ({"prize_values": [1.0] * 8 + [-1.0]}, "prize_values"),
        ({"prize_values": [0.0] * 9}, "prize_values"),
        ({"value_distribution": {"kind": "uniform_int", "low": 4, "high": 2}}, "high"),
        ({"value_distribution": {"kind": "normal", "high": 2}}, "kind"),
        ({**DRAWN, "prize_values": [1.0] * 9}, "prize_values"),
        ({"four_of_a_kind_is_two_pairs": "yes"}, "four_of_a_kind_is_two_pairs"),
        ({"values": [1.0] * 9}, "values"),
    ],
)
def test_bad_configs_name_the_key(config: dict, key: str) -> None:
    with pytest.raises(ConfigError, match=key):
        EasyComeEasyGoTurnEnv(config)
    with pytest.raises(ConfigError, match=key):
        EasyComeEasyGoTurnVecEnv(2, config)


def test_value_scale_is_the_largest_possible_value() -> None:
    assert TurnTaskConfig(prize_values=[0, 0, 3, 0, 0, 0, 0, 0, 1.5]).value_scale == 3.0
    assert TurnTaskConfig.model_validate(DRAWN).value_scale == 5.0


# --- the vectorised env -------------------------------------------------------------------------------


def test_vec_env_shapes_masks_and_auto_reset() -> None:
    venv = EasyComeEasyGoTurnVecEnv(32, DRAWN, seed=0)
    obs = venv.reset()
    assert obs.shape == (32, TURN_OBS_SIZE) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    buf_mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
    buf_obs = np.zeros(TURN_OBS_SIZE, dtype=np.float32)
    finished = 0
    for _ in range(60):
        masks = venv.action_masks()
        assert masks.shape == (32, E.NUM_ACTIONS) and masks.dtype == bool
        states, values = venv.engine_states, venv.prize_values
        for i in range(32):
            E.legal_mask(states[i], states[i][E.CURRENT], buf_mask)
            np.testing.assert_array_equal(masks[i], buf_mask.astype(bool))
            encode_turn_observation(states[i], values[i] / 5.0, buf_obs)
            np.testing.assert_array_equal(obs[i], buf_obs)
        np.testing.assert_array_equal(np.stack(venv.env_method("action_masks")), masks)
        np.testing.assert_array_equal(venv.env_method("action_masks", indices=[3])[0], masks[3])
        obs, rewards, dones, infos = venv.step(sample_masked(masks, rng))
        assert rewards.shape == (32,) and dones.shape == (32,)
        for i in np.flatnonzero(dones):
            finished += 1
            info = infos[i]
            assert info["terminal_observation"].shape == (TURN_OBS_SIZE,)
            assert info["episode"]["r"] == rewards[i]
            if info["prize"] < 0:
                assert rewards[i] == 0.0
            else:
                assert rewards[i] == info["terminal_observation"][T_VALUES + info["prize"]] * 5.0
            assert venv.engine_states[i, E.ROLLS] == 1  # a fresh turn, already rolled
        assert not any(infos[i] for i in np.flatnonzero(~dones))
    assert finished > 50


def test_vec_env_seeding_is_reproducible_and_one_game_matches_the_single_env() -> None:
    def rollout(venv: EasyComeEasyGoTurnVecEnv) -> list[np.ndarray]:
        obs, rng, out = venv.reset(), np.random.default_rng(1), []
        for _ in range(40):
            obs, rewards, *_ = venv.step(sample_masked(venv.action_masks(), rng))
            out += [obs, rewards]
        return out

    a, b = EasyComeEasyGoTurnVecEnv(8, DRAWN), EasyComeEasyGoTurnVecEnv(8, DRAWN)
    assert a.seed(7) == list(range(7, 15))
    b.seed(7)
    ra, rb = rollout(a), rollout(b)
    assert all(np.array_equal(x, y) for x, y in zip(ra, rb, strict=True))

    single, vec = EasyComeEasyGoTurnEnv(DRAWN), EasyComeEasyGoTurnVecEnv(1, DRAWN)
    vec.seed(11)
    vobs = vec.reset()
    sobs, info = single.reset(seed=11)
    rng = np.random.default_rng(2)
    for _ in range(100):
        np.testing.assert_array_equal(vobs[0], sobs)
        action = sample_masked(info["action_mask"][None], rng)
        vobs, vrew, vdone, vinfo = vec.step(action)
        sobs, srew, sdone, _, info = single.step(int(action[0]))
        assert (vrew[0], vdone[0]) == (srew, sdone)
        if sdone:
            np.testing.assert_array_equal(vinfo[0]["terminal_observation"], sobs)
            sobs, info = single.reset()


def test_vec_env_bad_input() -> None:
    venv = EasyComeEasyGoTurnVecEnv(4, seed=0)
    venv.reset()
    with pytest.raises(ValueError, match=r"must give 4 integer actions, got int64 of shape \(3,\)"):
        venv.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match=r"illegal action 24 in game 0; legal actions: .* \(actions are 0..23\)"):
        venv.step(np.full(4, 24))
    with pytest.raises(AttributeError, match="no method 'render'"):
        venv.env_method("render")
    with pytest.raises(ValueError, match="num_envs"):
        EasyComeEasyGoTurnVecEnv(0)


def test_maskable_ppo_learns_on_the_vec_env_with_no_glue_and_beats_random() -> None:
    torch.manual_seed(0)
    torch.set_num_threads(1)

    def mean_reward(model: MaskablePPO | None, episodes: int = 3000) -> float:
        venv = EasyComeEasyGoTurnVecEnv(256, seed=99)
        obs, rng, total, count = venv.reset(), np.random.default_rng(0), 0.0, 0
        while count < episodes:
            masks = venv.action_masks()
            if model is None:
                actions = sample_masked(masks, rng)
            else:
                actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
            obs, rewards, dones, _ = venv.step(actions)
            total += rewards[dones].sum()
            count += dones.sum()
        return total / count

    venv = EasyComeEasyGoTurnVecEnv(16, seed=1)
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=256, n_epochs=4, learning_rate=1e-3, seed=0)
    model.learn(total_timesteps=8192)
    random_score, trained_score = mean_reward(None), mean_reward(model)
    assert random_score < 0.3
    assert trained_score > random_score + 0.3, (random_score, trained_score)


def _brute_force_lookahead(dice: list[int], frozen: int, values: np.ndarray, m: int) -> float:
    """Expected best collectable value after freezing subset m and re-rolling the rest once."""
    import itertools

    kept = frozen | m
    free = [i for i in range(4) if not (kept >> i) & 1]
    total = 0.0
    for faces in itertools.product(range(6), repeat=len(free)):
        d = list(dice)
        for i, f in zip(free, faces, strict=True):
            d[i] = f
        bits = int(E.PRIZE_TABLE[0, E.dice_code(np.array(d))])
        total += max([values[p] for p in range(9) if (bits >> p) & 1], default=0.0)
    return total / 6 ** len(free)


def test_lookahead_slots_match_brute_force() -> None:
    from dicearena.envs.easy_come_easy_go.turn_engine import T_LOOKAHEAD

    rng = np.random.default_rng(7)
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    out = np.zeros(TURN_OBS_SIZE, dtype=np.float32)
    for trial in range(25):
        values = rng.integers(0, 4, 9).astype(np.float32) / 3
        frozen = int(rng.integers(0, 15)) if trial else 0
        dice = rng.integers(0, 6, 4)
        E.init_turn_state(state, 0)
        state[E.FROZEN] = frozen
        E.apply_chance(state, dice[[i for i in range(4) if not (frozen >> i) & 1]])
        dice = state[E.DICE : E.DICE + 4].tolist()
        encode_turn_observation(state, values, out)
        for m in range(1, 16):
            expected = 0.0
            if not m & frozen and (frozen | m) != 15:
                expected = _brute_force_lookahead(dice, frozen, values, m)
            assert out[T_LOOKAHEAD + m] == pytest.approx(expected, abs=1e-6), (dice, frozen, m)


def test_lookahead_of_rulebook_example_b() -> None:
    """Example B: 0,1,2 frozen, the 5 re-rolled: a 0, 3 or 4 wins a prize -> 1/2 with every value 1."""
    from dicearena.envs.easy_come_easy_go.turn_engine import T_LOOKAHEAD

    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.init_turn_state(state, 0)
    E.apply_chance(state, np.array([0, 1, 2, 5]))
    out = np.zeros(TURN_OBS_SIZE, dtype=np.float32)
    encode_turn_observation(state, np.ones(9, dtype=np.float32), out)
    assert out[T_LOOKAHEAD + 0b0111] == pytest.approx(0.5)
    assert out[T_LOOKAHEAD + 0b1111] == 0.0  # freezing everything leaves nothing to roll
