"""Yay!'s board value learned by self-play (dicearena.agents.yay.learned_values; the agent that plays it:
learned_lookahead; shipped as ``yay_td``): the board features, the network's value inside the lookahead's search,
the fit, seeded training, the shipped network's play, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

from dicearena.agents.yay import BEAT, YayLookaheadAgent
from dicearena.agents.yay.board_features import NUM_FEATURES, features_of, touch_chance
from dicearena.agents.yay.learned_lookahead import LearnedLookaheadAgent, load_net
from dicearena.agents.yay.learned_values import fit_net, play_self_play, save_net, train_board_values
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.yay import engine as E
from dicearena.envs.yay.config import YayConfig


def decisions(games: int, seed: int, rounds: int = 30) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The decisions waiting in ``games`` 2-player games after ``rounds`` random moves: (states, masks, seats)."""
    engine = BatchedGame("yay", games, seed=seed, num_players=2)
    _, masks, info = engine.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(rounds):
        legal = masks.astype(np.float64)
        pick = rng.random((games, 1)) * legal.sum(axis=1, keepdims=True)
        _, masks, _, _, _, info = engine.step((legal.cumsum(axis=1) > pick).argmax(axis=1))
    return engine.states.copy(), masks.copy(), info["to_act"].copy()


def small_net(seed: int = 0, hidden: int = 3) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"w1": rng.normal(scale=0.5, size=(NUM_FEATURES, hidden)), "b1": rng.normal(size=hidden),
            "w2": rng.normal(size=hidden), "b2": rng.normal(size=1)}  # fmt: skip


def test_the_features_read_lead_exposure_openings_and_the_ends_of_lines() -> None:
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.init_state(state, E.header(YayConfig(num_players=2)))
    cols = int(state[E.COLS])
    state[E.BOARD + 0] = E.number_code(0, 12)  # seat 0: a 12 in the corner, a 5 beside it
    state[E.BOARD + 1] = E.number_code(0, 5)
    state[E.BOARD + 3 * cols + 3] = E.number_code(1, 9)  # seat 1: a 9 alone in the middle
    state[E.PHASE], state[E.CURRENT], state[E.FIRST_DONE] = E.PHASE_THROW, 1, 1  # seat 1 throws; seat 0 has played
    mine, theirs = features_of(np.stack([state, state]), np.array([0, 1])).astype(np.float64)
    assert mine[0] == pytest.approx(1 / 8) and theirs[0] == pytest.approx(-1 / 8)  # the count lead
    assert mine[1] == pytest.approx((17 - 9) / 100) and theirs[1] == pytest.approx(-(17 - 9) / 100)
    # exposure: seat 0's numbers have 3 empty squares beside them (below the 12, right of and below the 5)
    assert mine[2] == pytest.approx((BEAT[12] + 2 * BEAT[5]) / 4) and mine[3] == pytest.approx(4 * BEAT[9] / 4)
    assert theirs[2] == pytest.approx(mine[3]) and theirs[3] == pytest.approx(mine[2])
    touch = np.array([touch_chance(state, s) for s in range(cols * cols)])  # the same, weighted by the touch chance
    assert mine[40] == pytest.approx(BEAT[12] * touch[cols] + BEAT[5] * (touch[2] + touch[cols + 1]))
    assert touch[0] < touch[1] < touch[cols + 1] and touch[0] == touch[cols * cols - 1]  # corners are touched least
    empty = cols * cols - 3
    assert mine[8] == pytest.approx(empty / cols**2) and mine[11] == pytest.approx((cols - 2) / 8)
    # own openings: every empty square, the four beside the 9 only when three dice beat it
    assert mine[15] == pytest.approx((empty - 4 + 4 * BEAT[9]) / 16)
    assert mine[19 + 3] == mine[19] == pytest.approx(1 / 4) and mine[24 + 2] == pytest.approx(1 / 4)  # by value
    assert (mine[29], theirs[29]) == (0, 1) and (mine[30], mine[31]) == (1, 0) == (theirs[31], theirs[30])
    state[E.BOARD : E.BOARD + cols - 1] = E.BLOCKED  # the top row but one square: a line one square from its end
    near = features_of(state, 0).astype(np.float64)[0]
    assert near[11] == pytest.approx(1 / 8) and near[12] == pytest.approx(1 / 4) and near[37] == 1


def test_the_value_is_the_network_on_the_features_and_an_end_is_its_result() -> None:
    states, _, _ = decisions(40, seed=3)
    net = small_net()
    agent = LearnedLookaheadAgent(net, seed=0)
    values = agent.board_value(states)
    for seat in range(2):
        x = features_of(states, np.full(len(states), seat)).astype(np.float64)
        z = np.tanh(x @ net["w1"] + net["b1"]) @ net["w2"] + net["b2"][0]
        np.testing.assert_allclose(values[:, seat], np.tanh(z / 2), rtol=1e-5, atol=1e-6)
    ended = states[:1].copy()
    ended[0, E.PHASE] = E.PHASE_OVER
    final = [E.final_reward(ended[0], seat) for seat in range(2)]
    assert agent.board_value(ended)[0].tolist() == final


def test_the_network_changes_the_moves_and_the_table_stays_the_lookaheads() -> None:
    states, masks, seats = decisions(256, seed=1)
    hand = YayLookaheadAgent(seed=3).act_states(states, masks, seats)
    assert np.array_equal(hand, YayLookaheadAgent(seed=3).act_states(states, masks, seats))
    learned = LearnedLookaheadAgent(seed=3).act_states(states, masks, seats)
    assert all(masks[i, a] == 1 for i, a in enumerate(learned))
    assert 0.02 < (learned != hand).mean() < 0.6  # another value: some moves differ, most agree


def test_the_fit_recovers_a_logistic_value_and_is_seeded() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(60_000, NUM_FEATURES)).astype(np.float32)
    truth = 1 / (1 + np.exp(-(1.5 * x[:, 0] - x[:, 3] + 0.5 * x[:, 0] * x[:, 3])))
    won = (rng.random(len(x)) < truth).astype(np.float32)
    net = fit_net(x, won, hidden=8, epochs=4, seed=1, batch=512)
    z = np.tanh(x @ net["w1"] + net["b1"]) @ net["w2"] + net["b2"][0]
    assert np.abs(1 / (1 + np.exp(-z)) - truth).mean() < 0.06 < 0.2 < np.abs(won.mean() - truth).mean()
    again = fit_net(x, won, hidden=8, epochs=4, seed=1, batch=512)
    assert all(np.array_equal(net[k], again[k]) for k in net)
    with pytest.raises(ValueError, match="fit_net: need hidden, epochs >= 1"):
        fit_net(x[:, :5], won)


def test_self_play_gives_each_board_its_seats_result() -> None:
    features, won = play_self_play(YayLookaheadAgent(seed=0), 64, seed=5)
    assert features.shape == (len(won), NUM_FEATURES) and features.dtype == np.float32
    assert set(np.unique(won)) <= {0.0, 0.5, 1.0} and 0.3 < won.mean() < 0.7
    assert (features[:, 11] >= 1 / 8).all()  # a board that filled a line ended the game: not a sample
    assert won[features[:, 0] < -2 / 8].mean() < won[features[:, 0] > 2 / 8].mean()  # behind in numbers loses more


def test_training_is_seeded() -> None:
    first, history = train_board_values(generations=1, games=64, seed=5, hidden=4, epochs=1, eval_games=16)
    again, _ = train_board_values(generations=1, games=64, seed=5, hidden=4, epochs=1, eval_games=16)
    assert all(np.array_equal(first[k], again[k]) for k in first)
    assert [h["generation"] for h in history] == [1] and 0 <= history[0]["eval_win_rate"] <= 1


def test_the_shipped_network_beats_greedy() -> None:
    from dicearena.agents import make_agent, table_player
    from dicearena.agents.evaluation.play import head_to_head
    from dicearena.agents.shipped import ShippedAgent

    bot = make_agent("yay_td")
    assert isinstance(bot, ShippedAgent) and bot.reads_state and bot.players == [2]
    two = {"num_players": 2}
    row = head_to_head("yay", bot, table_player("yay", "yay_greedy", two), two, games=1000, seed=12345)
    assert row["ci95"][0] > 0.5, row


def test_a_network_round_trips_and_bad_ones_are_refused(tmp_path) -> None:
    path = tmp_path / "t.npz"
    net = small_net()
    save_net(path, net, {"seed": 0})
    loaded, meta = load_net(path)
    assert all(np.array_equal(loaded[k], net[k]) for k in net) and meta == {"seed": 0}
    with pytest.raises(ValueError, match=r"w1 \(45, H\)"):
        LearnedLookaheadAgent({**net, "w1": np.zeros((3, 3))})
    with pytest.raises(ValueError, match="non-finite"):
        LearnedLookaheadAgent({**net, "b2": np.array([np.nan])})
    with pytest.raises(ValueError, match="is the arrays w1, b1, w2, b2"):
        LearnedLookaheadAgent({"w1": net["w1"]})
    with pytest.raises(ValueError, match="no value table"):
        LearnedLookaheadAgent(tmp_path / "missing.npz")
    with pytest.raises(ValueError, match="eval_games >= 2"):
        train_board_values(eval_games=1)


def test_the_command_writes_a_network_and_a_card_that_loads(tmp_path, capsys) -> None:
    import yaml

    from dicearena.agents.shipped import _load_model
    from dicearena.agents.yay.learned_values import main

    out = tmp_path / "mine.npz"
    args = ["--generations", "1", "--games", "64", "--hidden", "4", "--epochs", "1", "--eval-games", "16",
            "--score-games", "10", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    card = yaml.safe_load(out.with_suffix(".yaml").read_text())
    assert card["model"] == "mine.npz" and card["players"] == [2] and card["recipe"]["hidden"] == 4
    assert [row["against"] for row in card["measured"]["head_to_head"]] == list(card["against"])
    agent = _load_model("mine", {**card, "model": str(out)}, deterministic=True)
    assert isinstance(agent, LearnedLookaheadAgent)
    assert "against yay_lookahead" in capsys.readouterr().out
