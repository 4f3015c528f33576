"""The PettingZoo faces of Extra!: API conformance, seeding, rendering, bad input, random-game invariants."""

from __future__ import annotations

import warnings

import numpy as np
import pettingzoo
import pytest
from numba import njit
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test, seed_test

from dicearena.envs import extra_v0
from dicearena.envs.common.config import ConfigError
from dicearena.envs.common.dice import ScriptedDice, SeededDice
from dicearena.envs.extra import engine as E
from dicearena.envs.extra_v0 import parallel_env, raw_env
from tests.helpers import assert_step_rejected

# --- PettingZoo conformance


@pytest.mark.parametrize("num_players", [1, 2, 5])
def test_pettingzoo_api_test(num_players: int) -> None:
    api_test(extra_v0.env(num_players=num_players), num_cycles=300)


def test_pettingzoo_api_test_raw_env_score_reward() -> None:
    api_test(extra_v0.raw_env(num_players=3, reward="score"), num_cycles=300)


@pytest.mark.parametrize("kwargs", [{"num_players": 1}, {"num_players": 3, "reward": "score"}, {"num_players": 4}])
def test_pettingzoo_parallel_api_test(kwargs: dict) -> None:
    with warnings.catch_warnings():
        # reward="win" hands early finishers their result in the final step (see parallel.py): a known warning.
        warnings.filterwarnings("ignore", message="Agent was given reward but was dead last turn")
        parallel_api_test(extra_v0.parallel_env(**kwargs), num_cycles=300)


def test_pettingzoo_seed_tests() -> None:
    seed_test(extra_v0.env, num_cycles=100)
    seed_test(lambda: extra_v0.env(num_players=4), num_cycles=100)
    parallel_seed_test(lambda: extra_v0.parallel_env(num_players=3), num_cycles=100)


def test_pettingzoo_render_test(capsys: pytest.CaptureFixture[str]) -> None:
    render_test(extra_v0.env)
    assert "EXTRA" in capsys.readouterr().out  # "human" prints the text view


def test_registered_with_pettingzoo_make() -> None:
    aec = pettingzoo.make("aec", "dicearena/extra-v0", num_players=3)
    aec.reset(seed=1)
    assert aec.possible_agents == ["player_0", "player_1", "player_2"]
    par = pettingzoo.make("parallel", "dicearena/extra-v0", num_players=2)
    obs, _ = par.reset(seed=1)
    assert set(obs) == {"player_0", "player_1"}


def test_spaces_and_observation_layout() -> None:
    env = raw_env(num_players=3, dice=ScriptedDice([[0, 1, 1, 2, 4]]))
    env.reset()
    assert env.action_space("player_0").n == 45
    obs = env.observe("player_1")
    assert obs["observation"].shape == (E.observation_size(3),) == (77 + 48 * 3,)
    assert obs["observation"] in env.observation_space("player_1")["observation"]
    dice_slots = obs["observation"][E.OBS_DICE : E.OBS_DICE + 30].reshape(5, 6)
    assert dice_slots.argmax(axis=1).tolist() == [0, 1, 1, 2, 4] and dice_slots.sum() == 5
    # Everyone still has to decide on this throw (player_0 is asked first): flag and mask say so.
    assert obs["observation"][E.OBS_TO_ACT] == 1.0 and obs["action_mask"].sum() == 45
    # Each action's score change: two new rows (-200 each), except pairs 1+3 and 2+2 (fifth die 4, pairing 2):
    # two checks in row 4, still -200.
    gains = obs["observation"][E.OBS_GAINS : E.OBS_GAINS + 45]
    assert gains.tolist() == [-4.0] * 42 + [-2.0] * 3
    env.step(0)
    after = env.observe("player_0")
    assert after["observation"][E.OBS_TO_ACT] == 0.0 and after["action_mask"].sum() == 0
    assert not after["observation"][E.OBS_GAINS : E.OBS_GAINS + 45].any()  # nothing to choose: no gains shown


def test_observation_is_relative_to_the_observer() -> None:
    env = raw_env(num_players=3, dice=ScriptedDice([[0, 1, 1, 2, 4], [5] * 5]))
    env.reset()
    for agent in ("player_0", "player_1", "player_2"):
        env.step(E.encode_action(3, 2, 0) if agent == "player_1" else E.encode_action(0, 0, 0))
    # player_1 wrote EXTRA 3 in column 0; everyone else EXTRA 1.
    for observer, rel in (("player_0", 1), ("player_1", 0), ("player_2", 2)):
        o = env.observe(observer)["observation"]
        block = E.OBS_PLAYERS + rel * E.PLAYER_OBS
        assert o[block + E.PO_EXTRA_NUMBER + 3] == 1.0
        assert o[block + E.PO_ROW_CHECKS + 4 - 2] == pytest.approx(1 / 10)  # row 4: 4 minus + 6 boxes


# --- seeding and chance


def _play_aec(env: raw_env, rng: np.random.Generator) -> list:
    trajectory = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trajectory.append((agent, obs["observation"].tobytes(), reward, term, action))
        env.step(action)
    return trajectory


def test_same_seed_same_consecutive_episodes() -> None:
    a, b = raw_env(num_players=3), raw_env(num_players=3)
    a.reset(seed=7)
    b.reset(seed=7)
    for episode in range(5):
        if episode:
            a.reset()
            b.reset()
        assert _play_aec(a, np.random.default_rng(episode)) == _play_aec(b, np.random.default_rng(episode))


def test_aec_and_parallel_play_the_same_game() -> None:
    aec, par = raw_env(num_players=3), parallel_env(num_players=3)
    aec.reset(seed=3)
    obs, _ = par.reset(seed=3)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(par.possible_agents, 0.0)
    while par.agents:
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in par.agents}
        for a in par.agents:
            assert aec.agent_selection == a
            np.testing.assert_array_equal(aec.observe(a)["observation"], obs[a]["observation"])
            aec.step(actions[a])
        obs, rewards, *_ = par.step(actions)
        for a, r in rewards.items():
            totals[a] += r
    np.testing.assert_array_equal(aec.engine_state, par.engine_state)
    for a in aec.possible_agents:
        assert aec._cumulative_rewards[a] == totals[a]
    assert sorted(totals.values())[-1] == 1.0


def test_one_dice_roll_of_five_per_throw() -> None:
    class Counting(SeededDice):
        calls: list[int] = []

        def roll(self, n: int) -> np.ndarray:
            self.calls.append(n)
            return super().roll(n)

    dice = Counting(faces=6, block=5, seed=1)
    env = raw_env(num_players=2, dice=dice)
    env.reset()
    _play_aec(env, np.random.default_rng(1))
    assert dice.calls == [5] * int(env.engine_state[E.ROUND])


def test_aec_finished_player_is_terminated_at_once_and_steps_out_at_the_end() -> None:
    env = raw_env(num_players=2, sheet={"extra_columns": [9, 8, 1]}, dice=ScriptedDice([[0, 1, 2, 3, 4]] * 3))
    env.reset()
    env.step(E.encode_action(0, 0, 2))  # player_0 fills the 1-box column: finished
    env.step(E.encode_action(0, 0, 0))
    assert env.terminations == {"player_0": True, "player_1": False}
    assert env.agent_selection == "player_1" and env.agents == ["player_0", "player_1"]
    assert env.observe("player_0")["action_mask"].sum() == 0
    env.step(E.encode_action(1, 0, 1))
    env.step(E.encode_action(2, 0, 2))  # player_1 finishes too: game over
    assert all(env.terminations.values())
    assert sorted(env._cumulative_rewards.values()) == [-1.0, 1.0]
    for _agent in env.agent_iter():
        assert env.last()[2]
        env.step(None)
    assert env.agents == []


# --- bad input


def test_aec_shaped_score_rewards_sum_to_the_final_scores() -> None:
    env = raw_env(num_players=3, reward="score", shaping=True)
    rng = np.random.default_rng(8)
    for game in range(5):
        env.reset(seed=game)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            totals[agent] += reward
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        for seat, agent in enumerate(env.possible_agents):
            assert totals[agent] == pytest.approx(E.score(env.engine_state, seat) / 100)


def test_illegal_action_raw_env_names_it_and_the_legal_ones_state_unchanged() -> None:
    env = raw_env(num_players=1, dice=ScriptedDice([[0, 1, 1, 2, 4], [0, 1, 1, 2, 4]]))
    env.reset()
    env.step(E.encode_action(3, 0, 0))  # EXTRA 3 in column 0
    message = r"action 29 .*number of column 0, so the column must be 0\. Legal action ids: \[1, 2, 4, 5,"
    assert_step_rejected(env, E.encode_action(3, 0, 2), ValueError, message)
    empty = r"new EXTRA number and goes into an empty column \[1, 2\], not column 0"
    assert_step_rejected(env, E.encode_action(0, 0, 0), ValueError, empty)


@pytest.mark.parametrize("bad", [1.0, "3", None, [1], np.array([1, 2]), True, np.float32(2)])
def test_wrong_action_type_raw_env(bad: object) -> None:
    env = raw_env(num_players=2)
    env.reset(seed=0)
    assert_step_rejected(env, bad, TypeError, "action must be an int 0..44")


@pytest.mark.parametrize("bad", [-1, 45, np.int64(100)])
def test_out_of_range_action_raw_env(bad: object) -> None:
    env = raw_env(num_players=2)
    env.reset(seed=0)
    assert_step_rejected(env, bad, ValueError, r"out of range: actions are 0..44: 9 \* fifth die")


@pytest.mark.parametrize("ok", [np.int64(0), np.int32(0), np.array(0)])
def test_numpy_integer_actions_are_accepted(ok: object) -> None:
    env = raw_env(num_players=2)
    env.reset(seed=0)
    env.step(ok)
    assert env.agent_selection == "player_1"


def test_step_before_reset_and_after_the_end() -> None:
    env = raw_env(num_players=1)
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(0)
    env.reset(seed=2)
    _play_aec(env, np.random.default_rng(0))
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(0)
    par = parallel_env(num_players=1)
    with pytest.raises(RuntimeError, match="before reset"):
        par.step({"player_0": 0})
    obs, _ = par.reset(seed=2)
    while par.agents:
        obs, *_ = par.step({"player_0": int(np.flatnonzero(obs["player_0"]["action_mask"])[0])})
    with pytest.raises(RuntimeError, match="game is over"):
        par.step({"player_0": 0})


def test_illegal_move_in_wrapped_env_ends_the_game_with_minus_one(caplog: pytest.LogCaptureFixture) -> None:
    env = extra_v0.env(num_players=2, dice=ScriptedDice([[0, 1, 1, 2, 4], [0, 1, 1, 2, 4]]))
    env.reset()
    env.step(E.encode_action(3, 0, 0))  # player_0: EXTRA 3 in column 0
    env.step(E.encode_action(3, 0, 0))
    env.step(E.encode_action(3, 0, 2))  # the 3 belongs in column 0
    assert "Illegal move" in caplog.text
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0}
    assert all(env.terminations.values())


def test_parallel_bad_actions_change_nothing() -> None:
    par = parallel_env(num_players=2, dice=ScriptedDice([[0, 1, 1, 2, 4], [0, 1, 1, 2, 4]]))
    par.reset()
    par.step({"player_0": E.encode_action(3, 0, 0), "player_1": E.encode_action(3, 0, 1)})
    before = par.engine_state.copy()
    with pytest.raises(TypeError, match="actions must be a dict"):
        par.step([0, 0])
    with pytest.raises(ValueError, match=r"missing \['player_1'\]"):
        par.step({"player_0": 27})
    with pytest.raises(ValueError, match=r"not deciding or unknown \['player_9'\]"):
        par.step({"player_0": 27, "player_1": 28, "player_9": 0})
    # player_0 legal, player_1 illegal: nothing is applied, not even player_0's choice.
    with pytest.raises(ValueError, match="illegal action 27 .* for player_1: 3 is the EXTRA number of column 1"):
        par.step({"player_0": 27, "player_1": 27})
    with pytest.raises(TypeError, match="action must be an int"):
        par.step({"player_0": 27, "player_1": "28"})
    np.testing.assert_array_equal(before, par.engine_state)
    assert par.agents == ["player_0", "player_1"]


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"num_players": 0}, "'num_players'"),
        ({"num_players": 7}, "'num_players'"),
        ({"reward": "points"}, "'reward'"),
        ({"children": "yes"}, "'children'"),
        ({"colour": 1}, "unknown key 'colour'"),
        ({"sheet": {"minus_boxes": [3] * 10}}, "'sheet.minus_boxes'"),
        ({"sheet": {"extra_columns": [9, 8, 0]}}, "'sheet.extra_columns'"),
        ({"sheet": {"penalty": -1}}, "'sheet.penalty'"),
    ],
)
def test_bad_config_is_a_clear_error_naming_the_key(kwargs: dict, key: str) -> None:
    with pytest.raises(ConfigError, match=key):
        raw_env(**kwargs)
    with pytest.raises(ConfigError, match=key):
        parallel_env(**kwargs)


def test_bad_render_mode_and_dice() -> None:
    with pytest.raises(ValueError, match="render_mode 'svg'"):
        raw_env(render_mode="svg")
    with pytest.raises(TypeError, match="DiceSource"):
        raw_env(dice=[1, 2, 3])
    with pytest.raises(ValueError, match="block>=5"):
        parallel_env(dice=SeededDice(block=4))
    env = raw_env(dice=ScriptedDice([[0, 1, 2, 3]]))
    with pytest.raises(ValueError, match="scripted roll #0 has 4 dice, the game rolls 5"):
        env.reset()


def test_render_modes_return_the_right_things() -> None:
    for n in (1, 2, 5):
        env = raw_env(num_players=n, render_mode="rgb_array")
        env.reset(seed=n)
        _play_aec(env, np.random.default_rng(n))
        image = env.render()
        assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
        assert len(np.unique(image.reshape(-1, 3), axis=0)) > 10
    text_env = parallel_env(num_players=2, render_mode="ansi", dice=ScriptedDice([[0, 1, 1, 2, 4]]))
    text_env.reset()
    text = text_env.render()
    assert "throw 1 2 2 3 5" in text and text.count("EXTRA [ ]") == 2


# --- many random games at engine level


@njit(cache=True)
def _random_games(n_games: int, seed: int, children: int, minus, points, columns, finals, scores, problems) -> None:
    """Random legal play; problems[0] empty masks, [1] mask vs is_legal mismatches, [2] games not ended."""
    np.random.seed(seed)
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
    faces = np.zeros(E.NUM_DICE, dtype=np.int64)
    for g in range(n_games):
        n = 1 + g % E.MAX_PLAYERS
        E.start_game(state, n, children, 200, minus, points, columns)
        steps = 0
        while state[E.PHASE] != E.PHASE_OVER and steps < 100_000:
            steps += 1
            if E.dice_needed(state) > 0:
                for i in range(E.NUM_DICE):
                    faces[i] = np.random.randint(0, E.NUM_FACES)
                E.apply_chance(state, faces)
                continue
            for seat in range(n):
                E.legal_mask(state, seat, mask)
                for a in range(E.NUM_ACTIONS):
                    if (mask[a] == 1) != E.is_legal(state, seat, a):
                        problems[1] += 1
                if not E.must_act(state, seat):
                    if mask.sum() != 0:
                        problems[1] += 1
                    continue
                count = mask.sum()
                if count == 0:
                    problems[0] += 1
                    break
                pick = np.random.randint(0, count)
                for a in range(E.NUM_ACTIONS):
                    if mask[a]:
                        if pick == 0:
                            E.apply_action(state, seat, a)
                            break
                        pick -= 1
                break
        if state[E.PHASE] != E.PHASE_OVER:
            problems[2] += 1
        finals[g] = state
        for seat in range(n):
            scores[g, seat] = E.score(state, seat)


def _recompute_scores(finals: np.ndarray, minus: np.ndarray, points: np.ndarray, penalty: int) -> np.ndarray:
    """The rules file's scoring, vectorised, straight from the final sheets."""
    out = np.zeros((len(finals), E.MAX_PLAYERS), dtype=np.int64)
    for seat in range(E.MAX_PLAYERS):
        checks = finals[:, E.PLAYERS + seat * E.PLAYER_SIZE : E.PLAYERS + seat * E.PLAYER_SIZE + 11].astype(np.int64)
        value = np.where(checks <= minus, -penalty, points * (checks - minus - 1))
        out[:, seat] = np.where(checks == 0, 0, value).sum(axis=1)
    return out


@pytest.mark.parametrize(
    ("n_games", "children", "sheet"),
    [
        (10_000, 0, (E.DEFAULT_MINUS_BOXES, E.DEFAULT_POINTS, E.DEFAULT_EXTRA_COLUMNS)),
        (2_000, 1, (E.DEFAULT_MINUS_BOXES, E.DEFAULT_POINTS, E.DEFAULT_EXTRA_COLUMNS)),
        (2_000, 0, ((1, 2, 3, 4, 5, 6, 0, 2, 2, 2, 2), (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), (3, 2, 5))),
    ],
)
def test_invariants_over_random_engine_games(n_games: int, children: int, sheet: tuple) -> None:
    minus, points, columns = (np.array(x, dtype=np.int32) for x in sheet)
    finals = np.zeros((n_games, E.STATE_SIZE), dtype=np.int32)
    scores = np.zeros((n_games, E.MAX_PLAYERS), dtype=np.int64)
    problems = np.zeros(3, dtype=np.int64)
    _random_games(n_games, 12345 + children, children, minus, points, columns, finals, scores, problems)
    assert problems.tolist() == [0, 0, 0]  # masks never empty, mask == is_legal, every game ended
    np.testing.assert_array_equal(scores, _recompute_scores(finals, minus, points, 200))

    players = 1 + np.arange(n_games) % E.MAX_PLAYERS
    for seat in range(E.MAX_PLAYERS):
        base = E.PLAYERS + seat * E.PLAYER_SIZE
        seated = players > seat
        rows = finals[seated, base : base + 11]
        assert (rows <= minus + 6).all()  # no row beyond its boxes
        numbers = finals[seated, base + E.P_NUMBER : base + E.P_NUMBER + 3]
        checks = finals[seated, base + E.P_CHECKS : base + E.P_CHECKS + 3]
        assert (finals[seated, base + E.P_DONE] == 1).all()
        assert ((checks == columns).sum(axis=1) == 1).all()  # finished by exactly one full column
        assert (checks <= columns).all() and ((numbers == 0) <= (checks == 0)).all()
        written = np.sort(numbers, axis=1)
        assert not ((written[:, 1:] == written[:, :-1]) & (written[:, 1:] > 0)).any()  # numbers distinct
        # Every throw that reached this seat put 2 checks (or fewer into full rows) before it finished.
        assert (rows.sum(axis=1) <= 2 * finals[seated, base + E.P_FINISH_ROUND]).all()
    if sheet[0] == E.DEFAULT_MINUS_BOXES and not children:
        solo = scores[players == 1, 0]
        assert solo.mean() < 0  # random play is far below zero (the rules file's anchor)


def test_masks_match_an_independent_reading_of_the_rules() -> None:
    """Legality recomputed from the rules text on states reached by random play (AEC env, 2 and 3 players)."""
    rng = np.random.default_rng(5)
    checked = 0
    for game in range(40):
        n = 1 + game % 3
        env = raw_env(num_players=n, children=game % 2 == 1)
        env.reset(seed=game)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = int(agent[-1])
            state = env.engine_state
            base = E.PLAYERS + seat * E.PLAYER_SIZE
            dice = state[E.DICE : E.DICE + 5].tolist()
            numbers = state[base + E.P_NUMBER : base + E.P_NUMBER + 3].tolist()
            written = [v for v in numbers if v]
            expected = set()
            for fifth in range(5):
                v = dice[fifth]
                if len(written) == 3 and not set(dice) & set(written):
                    columns = [0]  # lucky guy
                elif v in written:
                    columns = [numbers.index(v)]
                elif len(written) < 3:
                    columns = [j for j in range(3) if numbers[j] == 0]
                else:
                    columns = []
                expected |= {9 * fifth + 3 * p + c for p in range(3) for c in columns}
            assert set(np.flatnonzero(obs["action_mask"]).tolist()) == expected
            checked += 1
            env.step(int(rng.choice(sorted(expected))))
    assert checked > 1000


# --- one winner rule


def test_the_engine_winner_rule_is_the_one_render_and_the_seat_env_use() -> None:
    """``E.wins`` (every top score wins, a shared one included) decides the win reward, the text rendering's
    winners and the seat env's infos ``won`` / ``tied``: over played games and a constructed tie for the top."""
    from dicearena.envs.common.game_seat import SeatGames
    from dicearena.envs.extra.render import render_ansi

    class Lowest:
        def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
            return masks.argmax(axis=1)

    players, learner, rng = 3, 1, np.random.default_rng(0)
    venv = SeatGames("extra", 16, Lowest(), num_players=players, learner_seat=learner, seed=5)
    venv.reset()
    cases: list[tuple[np.ndarray, dict | None]] = []
    while len(cases) < 40:
        masks = venv.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, _, dones, infos = venv.step(actions)
        cases += [(infos[i]["final_state"], infos[i]) for i in np.flatnonzero(dones)]
    tie = cases[0][0].copy()
    top = max(range(players), key=lambda s: E.score(tie, s))
    other = (top + 1) % players
    block = slice(E.PLAYERS + top * E.PLAYER_SIZE, E.PLAYERS + (top + 1) * E.PLAYER_SIZE)
    tie[E.PLAYERS + other * E.PLAYER_SIZE : E.PLAYERS + (other + 1) * E.PLAYER_SIZE] = tie[block]
    cases.append((tie, None))
    for state, info in cases:
        scores = [E.score(state, s) for s in range(players)]
        winners = [s for s in range(players) if scores[s] == max(scores)]  # the rule as rules/extra.md states it
        assert [s for s in range(players) if E.wins(state, s)] == winners
        final = np.zeros(players)
        E.rewards(state, final)
        expected = [1.0 if s in winners else -1.0 for s in range(players)]
        assert final.tolist() == [E.final_reward(state, s, E.REWARD_WIN) for s in range(players)] == expected
        names = ", ".join(f"player_{s}" for s in winners)
        assert f"{names} win{'s' if len(winners) == 1 else ''}" in render_ansi(state).splitlines()[0]
        if info is not None:
            assert info["final_rewards"].tolist() == final.tolist()
            assert info["won"] == (learner in winners) and info["tied"] == (learner in winners and len(winners) > 1)
    assert [E.wins(tie, s) for s in (top, other)] == [True, True]
