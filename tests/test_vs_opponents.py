"""One learning seat against fixed opponents, both games: the opponents' moves are theirs and the learner sees only
its own decisions (replayed against the PettingZoo envs), rewards, checkers, bad input, and scoring."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from agents import make_agent
from agents.random_agent import sample_masked
from agents.vs_opponents import score_vs_opponents
from envs.common.config import ConfigError
from envs.easy_come_easy_go import engine as EC
from envs.easy_come_easy_go.aec import raw_env as eceg_raw_env
from envs.easy_come_easy_go.vs_opponents import EasyComeEasyGoVsOpponentsEnv, EasyComeEasyGoVsOpponentsVecEnv
from envs.extra import engine as EX
from envs.extra.parallel import parallel_env as extra_parallel_env
from envs.extra.vs_opponents import ExtraVsOpponentsEnv, ExtraVsOpponentsVecEnv
from envs.yay import engine as YE
from envs.yay.aec import raw_env as yay_raw_env
from envs.yay.vs_opponents import YayVsOpponentsEnv, YayVsOpponentsVecEnv
from tests.yay_scripts import ThrowAgain


class LowestLegal:
    """A deterministic opponent that also records what it was shown."""

    def __init__(self) -> None:
        self.calls = 0

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        assert observations.shape[0] == action_masks.shape[0] > 0 and action_masks.any(axis=1).all()
        self.calls += 1
        return action_masks.argmax(axis=1).astype(np.int64)


TURN_CASES = [
    (EasyComeEasyGoVsOpponentsVecEnv, eceg_raw_env, EC, 0, {"num_players": 2, "max_turns": 200}, 0),
    (EasyComeEasyGoVsOpponentsVecEnv, eceg_raw_env, EC, 3, {"num_players": 3, "max_turns": 200}, 1),
    (EasyComeEasyGoVsOpponentsVecEnv, eceg_raw_env, EC, 8, {"num_players": 4, "max_turns": 200}, 3),
    (YayVsOpponentsVecEnv, yay_raw_env, YE, 1, {"num_players": 2}, 1),
    (YayVsOpponentsVecEnv, yay_raw_env, YE, 5, {"num_players": 4, "rows": 5, "cols": 6}, 2),
]


@pytest.mark.parametrize(("venv_class", "raw_env", "engine", "seed", "cfg", "learner"), TURN_CASES)
def test_turn_games_play_the_aec_game_with_the_opponents_moves(
    venv_class: type, raw_env: type, engine: Any, seed: int, cfg: dict, learner: int
) -> None:
    """N = 1 against a deterministic opponent == the AEC env with the same seed, learner moves and opponent rule."""
    venv = venv_class(1, LowestLegal(), cfg, learner_seat=learner)
    venv.seed(seed)
    obs = venv.reset()
    aec = raw_env(cfg)
    aec.reset(seed=seed)
    picker = np.random.default_rng(seed)
    games = decisions = 0
    while games < 3:
        while aec.agent_selection != f"player_{learner}":  # the opponents' moves, as the vec env made them
            aec.step(int(np.argmax(aec.observe(aec.agent_selection)["action_mask"])))
        seen = aec.observe(aec.agent_selection)
        np.testing.assert_array_equal(obs[0], seen["observation"])  # the learner's decision, its own view
        np.testing.assert_array_equal(venv.action_masks()[0], seen["action_mask"].astype(bool))
        np.testing.assert_array_equal(venv.engine_states[0], aec.engine_state)
        action = sample_masked(venv.action_masks().astype(np.int8), picker)
        obs, rewards, dones, infos = venv.step(action)
        aec.step(int(action[0]))
        decisions += 1
        while aec.engine_state[engine.PHASE] != engine.PHASE_OVER and aec.agent_selection != f"player_{learner}":
            aec.step(int(np.argmax(aec.observe(aec.agent_selection)["action_mask"])))
        if dones[0]:
            games += 1
            assert aec.engine_state[engine.PHASE] == engine.PHASE_OVER
            learner_reward = aec.rewards[f"player_{learner}"]
            assert infos[0]["won"] == (learner_reward > 0)
            if "winner" in infos[0]:
                assert infos[0]["winner"] == int(aec.engine_state[engine.WINNER])
            assert rewards[0] == learner_reward == infos[0]["episode"]["r"]
            assert infos[0]["episode"]["l"] == decisions  # an episode's length counts the learner's decisions only
            np.testing.assert_array_equal(
                infos[0]["terminal_observation"], aec.observe(f"player_{learner}")["observation"]
            )
            aec.reset()
            decisions = 0
        else:
            assert rewards[0] == 0.0


EXTRA_CASES = [(1, 2, 0, {}), (4, 3, 2, {"reward": "score", "shaping": True}), (6, 4, 1, {"reward": "score"})]


@pytest.mark.parametrize(("seed", "players", "learner", "kwargs"), EXTRA_CASES)
def test_extra_plays_the_parallel_game_with_the_opponents_choices(
    seed: int, players: int, learner: int, kwargs: dict
) -> None:
    cfg = {"num_players": players, **kwargs}
    venv = ExtraVsOpponentsVecEnv(1, LowestLegal(), cfg, learner_seat=learner)
    venv.seed(seed)
    obs = venv.reset()
    env = extra_parallel_env(**cfg)
    pobs, _ = env.reset(seed=seed)
    me = f"player_{learner}"
    picker = np.random.default_rng(seed)
    games, paid = 0, 0.0
    while games < 2:
        np.testing.assert_array_equal(obs[0], pobs[me]["observation"])
        action = int(sample_masked(venv.action_masks().astype(np.int8), picker)[0])
        obs, rewards, dones, infos = venv.step(np.array([action]))
        actions = {a: (action if a == me else int(np.argmax(pobs[a]["action_mask"]))) for a in env.agents}
        pobs, prewards, *_ = env.step(actions)
        paid += prewards.get(me, 0.0)
        while env.agents and me not in env.agents:  # the learner finished: the others play the game out
            pobs, prewards, *_ = env.step({a: int(np.argmax(pobs[a]["action_mask"])) for a in env.agents})
            paid += prewards.get(me, 0.0)  # "win": paid at the end, after the learner left ``agents``
        if env.agents:
            np.testing.assert_array_equal(venv.engine_states[0], env.unwrapped.engine_state)
        if dones[0]:
            games += 1
            assert not env.agents
            scores = [EX.score(env.unwrapped.engine_state, s) for s in range(players)]
            assert infos[0]["scores"] == scores and infos[0]["won"] == (scores[learner] == max(scores))
            if kwargs.get("reward") == "score":
                assert infos[0]["episode"]["r"] == pytest.approx(scores[learner] / 100, abs=1e-4)
            else:
                assert rewards[0] == (1.0 if infos[0]["won"] else -1.0)
            assert infos[0]["episode"]["r"] == pytest.approx(paid, abs=1e-4)
            pobs, _ = env.reset()
            paid = 0.0


@pytest.mark.parametrize("make", [
    lambda: EasyComeEasyGoVsOpponentsEnv(make_agent("random", seed=1)),
    lambda: ExtraVsOpponentsEnv([make_agent("random", seed=1), make_agent("extra_greedy")], num_players=3),
    lambda: YayVsOpponentsEnv(make_agent("random", seed=1), num_players=3),
])  # fmt: skip
def test_gymnasium_and_sb3_env_checkers_pass(make) -> None:
    check_env(make(), skip_render_check=True)
    sb3_check_env(make())


def test_gymnasium_make_by_id_and_a_whole_game() -> None:
    for env_id, opponent in (("dicearena/EasyComeEasyGoVsOpponents-v0", "eceg_heuristic"),
                             ("dicearena/ExtraVsOpponents-v0", "extra_planner"),
                             ("dicearena/YayVsOpponents-v0", "random")):  # fmt: skip
        env = gymnasium.make(env_id, opponents=make_agent(opponent))
        obs, info = env.reset(seed=3)
        over, steps = False, 0
        while not over:
            action = int(np.flatnonzero(info["action_mask"])[0])
            obs, reward, over, truncated, info = env.step(action)
            steps += 1
        assert reward in (-1.0, 1.0) and "won" in info and not info["action_mask"].any()
        with pytest.raises(RuntimeError, match="game is over"):
            env.step(0)
        obs2, info2 = env.reset()
        assert info2["action_mask"].any() and obs2 in env.observation_space
        with pytest.raises(ValueError, match="opponents are required"):
            gymnasium.make(env_id)


def test_bad_input_is_named_and_changes_nothing() -> None:
    opponent = LowestLegal()
    venv = EasyComeEasyGoVsOpponentsVecEnv(4, opponent, seed=2)
    venv.reset()
    before, calls = venv.engine_states.copy(), opponent.calls
    illegal = np.flatnonzero(~venv.action_masks()[1])[0]
    actions = np.array([np.flatnonzero(m)[0] for m in venv.action_masks()])
    actions[1] = illegal
    with pytest.raises(ValueError, match=f"game 1: action {illegal} is illegal; legal actions"):
        venv.step(actions)
    with pytest.raises(TypeError, match="integers"):
        venv.step(actions.astype(float))
    with pytest.raises(ValueError, match="shape"):
        venv.step(actions[:3])
    np.testing.assert_array_equal(venv.engine_states, before)
    assert opponent.calls == calls  # rejected before any opponent moved
    extra = ExtraVsOpponentsEnv(LowestLegal())
    extra.reset(seed=0)
    with pytest.raises(TypeError, match="int"):
        extra.step("3")
    with pytest.raises(ValueError, match=r"opponents: 2 given for 3 other seats \[0, 2, 3\]; give 1 or 3"):
        ExtraVsOpponentsVecEnv(2, [LowestLegal(), LowestLegal()], num_players=4, learner_seat=1)
    with pytest.raises(TypeError, match="act_batch"):
        ExtraVsOpponentsVecEnv(2, object())
    with pytest.raises(ValueError, match="learner_seat must be a seat 0..1"):
        ExtraVsOpponentsVecEnv(2, LowestLegal(), learner_seat=2)
    with pytest.raises(ConfigError, match="num_players must be 2..6"):
        ExtraVsOpponentsVecEnv(2, LowestLegal(), num_players=1)
    with pytest.raises(ConfigError, match="max_turns must be at least num_players"):
        EasyComeEasyGoVsOpponentsVecEnv(2, LowestLegal(), num_players=3, max_turns=2)


def test_seeded_reset_replays_the_same_games_random_opponents_included() -> None:
    venv = ExtraVsOpponentsVecEnv(16, make_agent("random", seed=0), num_players=3, seed=0)
    runs = []
    for _ in range(2):
        venv.seed(11)
        obs = [venv.reset()]
        for _ in range(30):
            obs.append(venv.step(venv.action_masks().argmax(axis=1))[0])
        runs.append(np.stack(obs))
    np.testing.assert_array_equal(runs[0], runs[1])


@pytest.mark.parametrize("make", [
    lambda: EasyComeEasyGoVsOpponentsEnv(make_agent("random", seed=1)),
    lambda: ExtraVsOpponentsEnv(make_agent("random", seed=1), num_players=3),
    lambda: YayVsOpponentsEnv(make_agent("random", seed=1)),
])  # fmt: skip
def test_unseeded_reset_continues_the_envs_own_chance_stream(make) -> None:
    """Gymnasium's convention: reset() without a seed goes on from the last seed, whatever numpy's global state
    (the checkers sample an action before a seeded reset and rely on it)."""
    runs = []
    for global_seed in (1, 2):
        env = make()
        env.reset(seed=7)
        np.random.seed(global_seed)
        runs.append([env.reset()[0] for _ in range(3)])
    for a, b in zip(*runs, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not all(np.array_equal(runs[0][0], o) for o in runs[0][1:])  # new games, not the same one again


def test_scoring_ranks_the_players_as_the_game_says() -> None:
    """Strong at the learner's seat wins often against random play, random rarely against the heuristic."""
    task = "easy_come_easy_go_vs_opponents"
    strong = score_vs_opponents(task, make_agent("eceg_heuristic"), {"opponents": "random"}, 300, 0)
    weak = score_vs_opponents(task, make_agent("random", seed=1), {"opponents": "eceg_heuristic"}, 300, 0)
    assert strong["games"] == weak["games"] == 300
    assert strong["win_rate"] > 0.9 > 0.1 > weak["win_rate"]
    assert 0.35 < weak["reference_win_rate"] < 0.65  # the heuristic against itself: about even
    extra = score_vs_opponents("extra_vs_opponents", make_agent("extra_planner"),
                               {"opponents": ["random"], "game": {"num_players": 2}}, 200, 0)  # fmt: skip
    assert extra["win_rate"] > 0.9 and 0.35 < extra["reference_win_rate"] < 0.65  # random against random: even


def test_reset_mid_game_starts_a_new_game() -> None:
    env = ExtraVsOpponentsEnv(make_agent("extra_greedy"))
    obs, info = env.reset(seed=5)
    for _ in range(2):
        obs, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert env.vec_env.engine_states[0, EX.ROUND] == 3
    env.reset()
    assert env.vec_env.engine_states[0, EX.ROUND] == 1


def test_an_opponents_illegal_move_is_named() -> None:
    class Broken:
        def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
            return np.full(len(action_masks), -5, dtype=np.int64)

    with pytest.raises(ValueError, match="an opponent's move was rejected: .*action -5 is illegal"):
        EasyComeEasyGoVsOpponentsVecEnv(8, Broken(), first_player=1, seed=0).reset()


def test_yay_shaping_reaches_the_learner_and_keeps_returns_at_plus_minus_one() -> None:
    venv = YayVsOpponentsVecEnv(16, make_agent("yay_greedy"), shaping=True, seed=4)
    venv.reset()
    picker = np.random.default_rng(4)
    returns, intermediate = [], 0
    for _ in range(300):
        _, rewards, dones, infos = venv.step(sample_masked(venv.action_masks().astype(np.int8), picker))
        intermediate += int((rewards[~dones] != 0).sum())
        returns += [infos[i]["episode"]["r"] for i in np.flatnonzero(dones)]
    assert len(returns) > 16 and intermediate > 100
    assert np.allclose(np.abs(returns), 1.0, atol=1e-5)  # the lead's changes telescope; the final +-1 remains


def test_yay_games_ending_inside_a_throw_are_finished_episodes() -> None:
    """With a short turn limit and every seat throwing again whenever it may, many games end inside a throw (a turn
    ended by rule 9 or rule 5 reaches ``max_turns``), after the learner's move or an opponent's: each is one
    finished episode (return 0, truncated), and every game still waits for a legal learner decision."""
    venv = YayVsOpponentsVecEnv(256, ThrowAgain(seed=1), max_turns=5, shaping=True, seed=3)
    obs = venv.reset()
    learner = ThrowAgain(seed=2)
    returns = []
    for _ in range(60):
        obs, rewards, dones, infos = venv.step(learner.act_batch(obs, venv.action_masks()))
        assert venv.action_masks().any(axis=1).all()
        for i in np.flatnonzero(dones):
            assert infos[i]["turns"] == 5 and not infos[i]["won"]
            returns.append(infos[i]["episode"]["r"])
    assert len(returns) > 256
    np.testing.assert_allclose(returns, 0.0, atol=1e-5)  # shaping telescopes to the truncated game's 0
