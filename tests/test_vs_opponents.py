"""One learning seat against fixed opponents, every registered game, through the generic seat env: the opponents'
moves are theirs and the learner sees only its own decisions (replayed against the PettingZoo envs), rewards,
checkers, bad input, seeding and scoring."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import dicearena.envs  # noqa: F401  (registers the suite's games)
from dicearena.agents import make_agent
from dicearena.agents.random_agent import sample_masked
from dicearena.agents.training.vs_opponents import score_vs_opponents
from dicearena.envs.common.config import ConfigError
from dicearena.envs.common.contract import GAMES, NOBODY
from dicearena.envs.common.game_aec import GameAEC
from dicearena.envs.common.game_parallel import GameParallel
from dicearena.envs.common.game_seat import SeatEnv, SeatGames, SeatVecEnv  # type: ignore[attr-defined]
from dicearena.envs.extra import engine as EX

SEQUENTIAL = sorted(g for g, spec in GAMES.items() if spec.dynamics == "sequential" and g != "pig")
SIMULTANEOUS = sorted(g for g, spec in GAMES.items() if spec.dynamics == "simultaneous")
SUITE = sorted(g for g in GAMES if g != "pig")  # pig lives in the test suite: the conformance suite covers it


class LowestLegal:
    """A deterministic opponent that also counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        assert observations.shape[0] == action_masks.shape[0] > 0 and action_masks.any(axis=1).all()
        self.calls += 1
        return action_masks.argmax(axis=1).astype(np.int64)


TURN_CASES = [(game, seed, players, learner) for game in SEQUENTIAL
              for seed, players, learner in ((0, 2, 0), (3, 3, 1), (8, 4, 3))]  # fmt: skip


@pytest.mark.parametrize(("game", "seed", "players", "learner"), TURN_CASES)
def test_sequential_games_play_the_aec_game_with_the_opponents_moves(
    game: str, seed: int, players: int, learner: int
) -> None:
    """N = 1 against a deterministic opponent == the AEC env with the same seed, learner moves and opponent rule."""
    venv = SeatGames(game, 1, LowestLegal(), num_players=players, learner_seat=learner)
    venv.seed(seed)
    obs = venv.reset()
    aec = GameAEC(game, num_players=players)
    aec.reset(seed=seed)
    me = f"player_{learner}"
    picker = np.random.default_rng(seed)

    def opponents_move() -> None:
        while aec.infos[me]["to_act"] != NOBODY and aec.agent_selection != me:
            aec.step(int(np.argmax(aec.observe(aec.agent_selection)["action_mask"])))

    games = decisions = 0
    opponents_move()
    while games < 3:
        seen = aec.observe(me)
        np.testing.assert_array_equal(obs[0], seen["observation"])  # the learner's decision, its own view
        np.testing.assert_array_equal(venv.action_masks()[0], seen["action_mask"].astype(bool))
        np.testing.assert_array_equal(venv.engine_states[0], aec.state())
        action = sample_masked(venv.action_masks().astype(np.int8), picker)
        obs, rewards, dones, infos = venv.step(action)
        aec.step(int(action[0]))
        decisions += 1
        opponents_move()
        if dones[0]:
            games += 1
            assert aec.infos[me]["to_act"] == NOBODY
            learner_reward = aec.rewards[me]
            assert infos[0]["won"] == (learner_reward > 0)
            assert rewards[0] == learner_reward == infos[0]["episode"]["r"]
            assert infos[0]["episode"]["l"] == decisions  # an episode's length counts the learner's decisions only
            np.testing.assert_array_equal(infos[0]["terminal_observation"], aec.observe(me)["observation"])
            np.testing.assert_array_equal(infos[0]["final_state"], aec.state())
            aec.reset()
            opponents_move()
            decisions = 0
        else:
            assert rewards[0] == 0.0


SIMULTANEOUS_CASES = [(1, 2, 0, {}), (4, 3, 2, {"reward": "score", "shaping": True}), (6, 4, 1, {"reward": "score"})]


@pytest.mark.parametrize("game", SIMULTANEOUS)
@pytest.mark.parametrize(("seed", "players", "learner", "kwargs"), SIMULTANEOUS_CASES)
def test_simultaneous_games_play_the_parallel_game_with_the_opponents_choices(
    game: str, seed: int, players: int, learner: int, kwargs: dict
) -> None:
    cfg = {"num_players": players, **kwargs}
    venv = SeatGames(game, 1, LowestLegal(), cfg, learner_seat=learner)
    venv.seed(seed)
    obs = venv.reset()
    env = GameParallel(game, cfg)
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
            np.testing.assert_array_equal(venv.engine_states[0], env.state())
        if dones[0]:
            games += 1
            assert not env.agents
            np.testing.assert_array_equal(infos[0]["final_state"], env.state())
            assert infos[0]["episode"]["r"] == pytest.approx(paid, abs=1e-4)
            pobs, _ = env.reset()
            paid = 0.0


def test_extra_rewards_and_wins_are_its_scores() -> None:
    venv = SeatGames("extra", 64, make_agent("extra_greedy"), num_players=3, seed=2)
    venv.reset()
    ended = 0
    while ended < 64:
        _, rewards, dones, infos = venv.step(venv.action_masks().argmax(axis=1))
        for i in np.flatnonzero(dones):
            ended += 1
            scores = [EX.score(infos[i]["final_state"], s) for s in range(3)]
            assert infos[i]["won"] == (scores[0] == max(scores))
            assert infos[i]["tied"] == (infos[i]["won"] and scores.count(max(scores)) > 1)
            assert rewards[i] == (1.0 if infos[i]["won"] else -1.0)


@pytest.mark.parametrize("game", SUITE)
def test_gymnasium_and_sb3_env_checkers_pass(game: str) -> None:
    def make() -> SeatEnv:
        return SeatEnv(game, make_agent("random", seed=1), num_players=3)

    check_env(make(), skip_render_check=True)
    sb3_check_env(make())


@pytest.mark.parametrize("game", SUITE)
def test_gymnasium_make_by_id_and_a_whole_game(game: str) -> None:
    env_id = f"dicearena/{GAMES[game].camel_name}VsOpponents-v0"
    env = gymnasium.make(env_id, opponents=make_agent("random", seed=0))
    obs, info = env.reset(seed=3)
    over = truncated = False
    while not (over or truncated):
        obs, reward, over, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert reward in (-1.0, 0.0, 1.0) and "won" in info and not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(0)
    obs2, info2 = env.reset()
    assert info2["action_mask"].any() and obs2 in env.observation_space
    with pytest.raises(ValueError, match="opponents are required"):
        gymnasium.make(env_id)


def test_bad_input_is_named_and_changes_nothing() -> None:
    opponent = LowestLegal()
    venv = SeatGames("easy_come_easy_go", 4, opponent, seed=2)
    venv.reset()
    before, calls = venv.engine_states.copy(), opponent.calls
    illegal = np.flatnonzero(~venv.action_masks()[1])[0]
    actions = np.array([np.flatnonzero(m)[0] for m in venv.action_masks()])
    actions[1] = illegal
    with pytest.raises(ValueError, match=f"illegal action {illegal} in game 1; legal actions"):
        venv.step(actions)
    with pytest.raises(ValueError, match="integer actions"):
        venv.step(actions.astype(float))
    with pytest.raises(ValueError, match="4 integer actions"):
        venv.step(actions[:3])
    np.testing.assert_array_equal(venv.engine_states, before)
    assert opponent.calls == calls  # rejected before any opponent moved
    extra = SeatEnv("extra", LowestLegal())
    extra.reset(seed=0)
    with pytest.raises(TypeError, match="int"):
        extra.step("3")
    with pytest.raises(ValueError, match=r"opponents: 2 given for 3 other seats \[0, 2, 3\]; give 1 or 3"):
        SeatGames("extra", 2, [LowestLegal(), LowestLegal()], num_players=4, learner_seat=1)
    with pytest.raises(TypeError, match="act_batch"):
        SeatGames("extra", 2, object())
    with pytest.raises(ValueError, match="learner_seat must be a seat 0..1"):
        SeatGames("extra", 2, LowestLegal(), learner_seat=2)
    with pytest.raises(ConfigError, match="num_players"):
        SeatGames("extra", 2, LowestLegal(), num_players=9)


@pytest.mark.parametrize("game", SUITE)
def test_seeded_reset_replays_the_same_games_random_opponents_included(game: str) -> None:
    venv = SeatVecEnv(game, 16, make_agent("random", seed=0), num_players=3, seed=0)
    runs = []
    for _ in range(2):
        venv.seed(11)
        obs = [venv.reset()]
        for _ in range(30):
            obs.append(venv.step(venv.action_masks().argmax(axis=1))[0])
        runs.append(np.stack(obs))
    np.testing.assert_array_equal(runs[0], runs[1])


@pytest.mark.parametrize("game", SUITE)
def test_unseeded_reset_continues_the_envs_own_chance_stream(game: str) -> None:
    """Gymnasium's convention: reset() without a seed goes on from the last seed, whatever numpy's global state
    (the checkers sample an action before a seeded reset and rely on it)."""
    runs = []
    for global_seed in (1, 2):
        env = SeatEnv(game, make_agent("random", seed=1), num_players=3)
        env.reset(seed=7)
        np.random.seed(global_seed)
        runs.append([env.reset()[0] for _ in range(3)])
    for a, b in zip(*runs, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not all(np.array_equal(runs[0][0], o) for o in runs[0][1:])  # new games, not the same one again


def test_scoring_ranks_the_players_as_the_game_says() -> None:
    """Strong at the learner's seat wins often against random play, random rarely against the heuristic."""
    strong = score_vs_opponents("easy_come_easy_go", make_agent("eceg_heuristic"), {"opponents": "random"}, 300, 0)
    weak = score_vs_opponents("easy_come_easy_go", make_agent("random", seed=1), {"opponents": "eceg_heuristic"},
                              300, 0)  # fmt: skip
    assert strong["games"] == weak["games"] == 300
    assert strong["win_rate"] > 0.9 > 0.1 > weak["win_rate"]
    assert 0.35 < weak["reference_win_rate"] < 0.65  # the heuristic against itself: about even
    extra = score_vs_opponents("extra", make_agent("extra_planner"),
                               {"opponents": ["random"], "game": {"num_players": 2}}, 200, 0)  # fmt: skip
    assert extra["win_rate"] > 0.9 and 0.35 < extra["reference_win_rate"] < 0.65  # random against random: even


def test_reset_mid_game_starts_a_new_game() -> None:
    env = SeatEnv("extra", make_agent("extra_greedy"))
    obs, info = env.reset(seed=5)
    for _ in range(2):
        obs, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert env.state()[EX.ROUND] == 3
    env.reset()
    assert env.state()[EX.ROUND] == 1


def test_an_opponents_illegal_move_is_named() -> None:
    class Broken:
        def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
            return np.full(len(action_masks), -5, dtype=np.int64)

    with pytest.raises(ValueError, match=r"the opponent at seat 1 \(Broken\) played the illegal action -5"):
        SeatGames("easy_come_easy_go", 8, Broken(), first_player=1, seed=0).reset()


def test_yay_shaping_reaches_the_learner_and_keeps_returns_at_plus_minus_one() -> None:
    venv = SeatGames("yay", 16, make_agent("yay_greedy"), shaping=True, seed=4)
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
    from dicearena.envs.yay import engine as YE
    from tests.yay_scripts import ThrowAgain

    venv = SeatGames("yay", 256, ThrowAgain(seed=1), max_turns=5, shaping=True, seed=3)
    obs = venv.reset()
    learner = ThrowAgain(seed=2)
    returns = []
    for _ in range(60):
        obs, rewards, dones, infos = venv.step(learner.act_batch(obs, venv.action_masks()))
        assert venv.action_masks().any(axis=1).all()
        for i in np.flatnonzero(dones):
            assert infos[i]["final_state"][YE.TURN] == 5 and not infos[i]["won"] and infos[i]["truncated"]
            returns.append(infos[i]["episode"]["r"])
    assert len(returns) > 256
    np.testing.assert_allclose(returns, 0.0, atol=1e-5)  # shaping telescopes to the truncated game's 0
