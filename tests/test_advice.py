"""Advice features (dicearena.agents.advice): a planning agent's move and action values appended to the observation, the
agents and env that read them, and an advised self-play run through train.py."""

from __future__ import annotations

import json
from pathlib import Path

import numba
import numpy as np
import pytest

from dicearena.agents import table_player
from dicearena.agents.advice import AdvisedAgent, advice_features, check_advisor
from dicearena.agents.base import Agent
from dicearena.agents.evaluation.play import play_games
from dicearena.agents.training import train
from dicearena.agents.training.self_play import make_self_play_env
from dicearena.envs.common.game_batch import BatchedGame
from tests.helpers import self_play_recipe, write

ADVISORS = [("extra", "extra_expectimax", {"num_players": 2, "canonical_actions": True}),
            ("easy_come_easy_go", "eceg_heuristic", {"num_players": 2})]  # fmt: skip


class Copier(Agent):
    """Plays the advisor's move, read from the advice slots only (the last 2A floats of the observation)."""

    name = "copier"

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        actions = action_masks.shape[1]
        return np.argmax(observations[:, -2 * actions : -actions], axis=1).astype(np.int64)


class Lowest(Agent):
    name = "lowest"

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return np.argmax(action_masks != 0, axis=1).astype(np.int64)


def _decisions(game: str, config: dict, seed: int, steps: int = 6) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Engine states, masks and deciding seats of a batch a few random moves into its games."""
    batch = BatchedGame(game, 32, config, seed=seed)
    obs, masks, info = batch.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        legal = masks != 0
        actions = np.where(legal.any(-1), np.argmax(legal * rng.random(legal.shape), axis=-1), 0)
        obs, masks, *_, info = batch.step(actions)
    rows, seats = np.nonzero(info["acting"])
    picked = masks[rows, seats] if batch.simultaneous else masks[rows]
    return batch.states[rows].copy(), picked.astype(np.int8), seats


@pytest.mark.parametrize(("game", "name", "config"), ADVISORS)
def test_advice_slots_are_the_advisors_move_and_its_value_gaps(game: str, name: str, config: dict) -> None:
    advisor = table_player(game, name, config)
    states, masks, seats = _decisions(game, config, seed=3)
    assert len(states) > 10
    features = advice_features(advisor, states, masks, seats)
    actions, values = advisor.advise(states, masks, seats)
    num_actions = masks.shape[1]
    onehot, gaps = features[:, :num_actions], features[:, num_actions:]
    np.testing.assert_array_equal(np.argmax(onehot, axis=1), advisor.act_states(states, masks, seats))
    assert (onehot.sum(axis=1) == 1).all()
    assert (gaps[masks == 0] == 0).all() and np.isneginf(values[masks == 0]).all()
    np.testing.assert_allclose(gaps[np.arange(len(actions)), actions], 1.0)  # the advisor's move is a best one
    legal = masks != 0
    expected = 1 + np.maximum(-1, (values - np.where(legal, values, -np.inf).max(1, keepdims=True)) /
                              advisor.advice_scale)  # fmt: skip
    np.testing.assert_allclose(gaps[legal], expected[legal], rtol=1e-6)
    empty = advice_features(advisor, states[:2], np.zeros_like(masks[:2]), seats[:2])
    assert not empty.any()  # nobody decides: no advice


def test_extra_expectimax_values_are_the_same_on_one_thread_and_every_thread() -> None:
    config = {"num_players": 2}
    advisor = table_player("extra", "extra_expectimax", config)
    states, masks, seats = _decisions("extra", config, seed=5)
    threads = numba.get_num_threads()
    try:
        many = advisor.advise(states, masks, seats)
        numba.set_num_threads(1)
        one = advisor.advise(states, masks, seats)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(many[0], one[0])
    np.testing.assert_array_equal(many[1], one[1])


@pytest.mark.parametrize(("game", "name", "config"), ADVISORS)
def test_a_copier_of_the_advice_plays_the_advisors_games(game: str, name: str, config: dict) -> None:
    advisor = table_player(game, name, config)
    seat_agents = np.zeros((40, 2), dtype=np.int64)
    seat_agents[:, 1] = 1
    copied = play_games(game, seat_agents, [AdvisedAgent(Copier(), advisor), Lowest()], config, seed=9)
    played = play_games(game, seat_agents, [advisor, Lowest()], config, seed=9)
    np.testing.assert_array_equal(copied["final_states"], played["final_states"])


def test_an_advised_agent_says_how_to_call_it() -> None:
    agent = AdvisedAgent(Copier(), table_player("extra", "extra_expectimax", {"num_players": 2}))
    with pytest.raises(TypeError, match="act_observed"):
        agent.act_batch(np.zeros((1, 173), dtype=np.float32), np.ones((1, 45), dtype=np.int8))
    with pytest.raises(ValueError, match="state=env.state"):
        agent.act(np.zeros(173, dtype=np.float32), np.ones(45, dtype=np.int8))
    with pytest.raises(TypeError, match="cannot advise"):
        check_advisor(table_player("extra", "random", {"num_players": 2}))


def test_the_advised_env_gives_the_learner_the_advice_of_its_own_seat() -> None:
    config = {"game": {"num_players": 2, "zero_sum": True}, "advisor": "eceg_heuristic",
              "pool": {"mix": {"eceg_myopic": 1.0}}, "evaluation": {"against": ["random"]}}  # fmt: skip
    env = make_self_play_env("easy_come_easy_go", config, 16, seed=2)
    env.pool.latest.fill(Lowest(), True)  # never drawn (weight 0), but the pool wants a live member
    plain = env.venv.observation_space.shape[0]
    assert env.observation_space.shape == (plain + 2 * 24,)
    advisor = env.advisor
    obs = env.reset()
    ended = 0
    for _ in range(40):
        expected = advice_features(advisor, env.venv.engine_states, env.action_masks(), env.venv.learner_seats)
        np.testing.assert_array_equal(obs[:, plain:], expected)
        obs, _, dones, infos = env.step(np.argmax(obs[:, plain : plain + 24], axis=1))
        for i in np.flatnonzero(dones):
            terminal = infos[i]["terminal_observation"]
            assert terminal.shape == (plain + 48,) and not terminal[plain:].any()
            ended += 1
    assert ended > 0


def test_a_self_play_advisor_must_be_able_to_advise(tmp_path: Path, capsys) -> None:
    recipe = _recipe(tmp_path / "run", 1024)
    recipe["task"]["config"]["advisor"] = "random"
    assert train.main([str(write(tmp_path / "bad.yaml", recipe))]) == 2
    assert "task.config.advisor" in capsys.readouterr().err
    recipe["task"]["config"]["advisor"] = "nobody"
    assert train.main([str(write(tmp_path / "bad.yaml", recipe))]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err


def _recipe(out: Path, total: int) -> dict:
    return self_play_recipe("easy_come_easy_go", out, total, advisor="eceg_heuristic",
                            evaluation={"against": ["random", "eceg_myopic"], "every": 4096, "games": 64})


def test_an_advised_self_play_run_trains_scores_and_ships(tmp_path: Path, monkeypatch) -> None:
    from dicearena.agents import shipped
    from dicearena.agents.evaluation import ship

    out = tmp_path / "run"
    assert train.main([str(write(tmp_path / "sp.yaml", _recipe(out, 4096))), "--no-progress"]) == 0
    score = json.loads((out / "score.json").read_text())
    assert score["head_to_head"][0]["against"] == "random" and score["head_to_head"][0]["ci95"][0] > 0.5, score
    snapshots = __import__("dicearena.agents.snapshots", fromlist=["pool_agents"]).pool_agents(out)
    assert snapshots and all(isinstance(a, AdvisedAgent) for a in snapshots.values())
    monkeypatch.setattr(shipped, "MODELS", tmp_path / "models")
    monkeypatch.setattr(ship, "MODELS", tmp_path / "models")
    shipped.shipped.cache_clear()
    try:
        ship.ship(out, "advised_bot", "test")
        bot = shipped.ShippedAgent("advised_bot")
        assert bot.reads_both and bot.advisor == "eceg_heuristic"
        rows = ship.match("advised_bot", games=40)
        assert [r["against"] for r in rows] == ["random", "eceg_myopic"]
    finally:
        shipped.shipped.cache_clear()


def test_imitation_starts_the_learner_on_the_advisors_moves(tmp_path: Path, capsys) -> None:
    recipe = _recipe(tmp_path / "run", 1024)
    recipe["task"]["config"]["imitation"] = {"steps": 4096, "epochs": 30, "batch_size": 256}
    recipe["task"]["config"]["evaluation"] = {"against": ["eceg_myopic"], "every": 4096, "games": 200}
    assert train.main([str(write(tmp_path / "sp.yaml", recipe)), "--no-progress"]) == 0
    out = capsys.readouterr().out
    accuracy = float(out.split("the policy's likeliest move is the advisor's in ")[1].split("%")[0]) / 100
    assert accuracy > 0.9, out
    first = (tmp_path / "run" / "curve.csv").read_text().splitlines()[1].split(",")
    assert first[0] == "0" and float(first[3]) > 0.35  # before any PPO step it plays like the heuristic already


def test_imitation_without_an_advisor_is_refused(tmp_path: Path, capsys) -> None:
    recipe = _recipe(tmp_path / "run", 1024)
    recipe["task"]["config"]["advisor"] = None
    recipe["task"]["config"]["imitation"] = {"steps": 4096}
    assert train.main([str(write(tmp_path / "bad.yaml", recipe))]) == 2
    assert "set 'advisor' too" in capsys.readouterr().err
