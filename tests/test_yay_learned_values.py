"""Yay!'s board values learned by self-play (dicearena.agents.yay.learned_values; the agent that plays them:
learned_lookahead; shipped as ``yay_td``): the value terms and
the fit, the lookahead's search on a given table, seeded training, the shipped table's play, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

from dicearena.agents.yay import BEAT, YayLookaheadAgent
from dicearena.agents.yay.learned_lookahead import LearnedLookaheadAgent, load_table
from dicearena.agents.yay.learned_values import (
    board_terms,
    fit_table,
    hand_weights,
    play_self_play,
    save_table,
    train_board_values,
)
from dicearena.agents.yay.lookahead import NUM_TERMS, VALUE_ROWS
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


def test_the_terms_are_the_uncrossed_lead_and_the_exposure() -> None:
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.init_state(state, E.header(YayConfig(num_players=2)))
    cols = int(state[E.COLS])
    state[E.BOARD + 0] = E.number_code(0, 12)  # seat 0: a 12 in the corner, a 5 beside it
    state[E.BOARD + 1] = E.number_code(0, 5)
    state[E.BOARD + 3 * cols + 3] = E.number_code(1, 9)  # seat 1: a 9 alone in the middle
    terms, ends = board_terms(np.stack([state, state]), np.array([0, 1]))
    assert terms[0, 0] == 1 and terms[0, 1] == 17 - 9 and terms[1, 0] == -1 and terms[1, 1] == 9 - 17
    # seat 1's 9 has four empty sides, each beaten by P(3d6 > 9); seat 0's squares beside its numbers: 3 of them
    assert terms[0, 3] == pytest.approx(4 * BEAT[9]) and terms[1, 2] == pytest.approx(4 * BEAT[9])
    assert terms[0, 2] == pytest.approx(BEAT[12] + 2 * BEAT[5])  # below the 12, right of and below the 5
    assert ends.tolist() == [cols - 2, cols - 2]  # the top row misses all but two squares


def test_the_fit_recovers_a_logistic_value() -> None:
    rng = np.random.default_rng(0)
    truth = rng.normal(scale=0.3, size=(VALUE_ROWS, NUM_TERMS))
    terms = rng.normal(size=(40_000, NUM_TERMS))
    ends = rng.integers(1, 4, size=40_000)
    won = (rng.random(40_000) < 1 / (1 + np.exp(-2 * (terms * truth[ends]).sum(axis=1)))).astype(np.float64)
    prior = np.zeros((VALUE_ROWS, NUM_TERMS))
    fitted = fit_table(terms, ends, won, prior, ridge=1e-3)
    np.testing.assert_allclose(fitted[1:4], truth[1:4], atol=0.06)
    np.testing.assert_array_equal(fitted[4:], prior[4:])  # no sample: the prior stays


def test_on_the_hand_set_value_it_plays_the_lookahead() -> None:
    states, masks, seats = decisions(256, seed=1)
    hand = YayLookaheadAgent(seed=3)
    learned = LearnedLookaheadAgent(hand_weights(hand), seed=3)
    same = learned.act_states(states, masks, seats) == hand.act_states(states, masks, seats)
    assert same.mean() > 0.99  # the weights are the hand-set ones over the scale: equal up to rounding


def test_the_lookahead_plays_the_same_moves_on_one_thread_and_on_every_thread() -> None:
    import dicearena.agents.yay.lookahead as lookahead

    states, masks, seats = decisions(64, seed=2)
    parallel = YayLookaheadAgent(seed=4).act_states(states, masks, seats)
    before, lookahead.PARALLEL_ROWS = lookahead.PARALLEL_ROWS, 1 << 30
    try:
        serial = YayLookaheadAgent(seed=4).act_states(states, masks, seats)
    finally:
        lookahead.PARALLEL_ROWS = before
    np.testing.assert_array_equal(parallel, serial)


def test_self_play_gives_each_board_its_seats_result() -> None:
    terms, ends, won = play_self_play(YayLookaheadAgent(seed=0), 64, seed=5)
    assert terms.shape == (len(ends), NUM_TERMS) and len(won) == len(ends)
    assert set(np.unique(won)) <= {0.0, 0.5, 1.0} and 0.3 < won.mean() < 0.7
    assert (ends >= 1).all()  # a board that filled a line ended the game: not a sample
    boards_behind = terms[:, 0] < -2
    assert won[boards_behind].mean() < won[terms[:, 0] > 2].mean()  # behind in numbers loses more often


def test_training_is_seeded() -> None:
    first, history = train_board_values(generations=1, games=128, seed=5, eval_games=64)
    again, _ = train_board_values(generations=1, games=128, seed=5, eval_games=64)
    np.testing.assert_array_equal(first, again)
    assert [h["generation"] for h in history] == [1] and 0 <= history[0]["eval_win_rate"] <= 1


def test_the_shipped_table_beats_greedy() -> None:
    from dicearena.agents import make_agent, table_player
    from dicearena.agents.evaluation.play import head_to_head
    from dicearena.agents.shipped import ShippedAgent

    bot = make_agent("yay_td")
    assert isinstance(bot, ShippedAgent) and bot.reads_state and bot.players == [2]
    two = {"num_players": 2}
    row = head_to_head("yay", bot, table_player("yay", "yay_greedy", two), two, games=1000, seed=12345)
    assert row["ci95"][0] > 0.5, row


def test_a_table_round_trips_and_bad_ones_are_refused(tmp_path) -> None:
    path = tmp_path / "t.npz"
    weights = hand_weights(YayLookaheadAgent())
    save_table(path, weights, {"seed": 0})
    loaded, meta = load_table(path)
    np.testing.assert_array_equal(loaded, weights)
    assert meta == {"seed": 0}
    with pytest.raises(ValueError, match=r"\(13, 4\) finite numbers"):
        LearnedLookaheadAgent(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="no value table"):
        LearnedLookaheadAgent(tmp_path / "missing.npz")
    with pytest.raises(ValueError, match="eval_games >= 2"):
        train_board_values(eval_games=1)


def test_the_command_writes_a_table_and_a_card_that_loads(tmp_path, capsys) -> None:
    import yaml

    from dicearena.agents.shipped import _load_model
    from dicearena.agents.yay.learned_values import main

    out = tmp_path / "mine.npz"
    args = ["--generations", "1", "--games", "64", "--eval-games", "16", "--score-games", "10", "--out", str(out)]
    assert main(args) == 0
    card = yaml.safe_load(out.with_suffix(".yaml").read_text())
    assert card["model"] == "mine.npz" and card["players"] == [2] and card["recipe"]["games"] == 64
    assert [row["against"] for row in card["measured"]["head_to_head"]] == list(card["against"])
    agent = _load_model("mine", {**card, "model": str(out)}, deterministic=True)
    assert isinstance(agent, LearnedLookaheadAgent)
    assert "against yay_lookahead" in capsys.readouterr().out
