"""Extra!'s planning values learned by self-play (dicearena.agents.extra.learned_values; the agent that plays them:
learned_planner; shipped as ``extra_td``): the features and the fit, the planner on given tables, seeded training
that beats the hand-set tables, the shipped tables' play, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

from dicearena.agents import make_agent, table_player
from dicearena.agents.evaluation.play import head_to_head
from dicearena.agents.extra.heuristics import PlannerAgent, number_bonus, planning_tables
from dicearena.agents.extra.learned_planner import LearnedPlannerAgent, default_sheet, load_tables
from dicearena.agents.extra.learned_values import (
    NUM_FEATURES,
    features,
    fit_tables,
    play_self_play,
    save_tables,
    train_planning_values,
)
from dicearena.agents.shipped import ShippedAgent
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.extra import engine as E

TWO = {"num_players": 2}


def hand_tables() -> dict[str, np.ndarray]:
    rows, cols = planning_tables(default_sheet(), np.array(PlannerAgent.DEFAULTS))
    return {"rows": rows, "columns": cols, "numbers": number_bonus(np.array(PlannerAgent.DEFAULTS))}


def decisions(games: int, seed: int, **config: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seat-0 decisions of ``games`` 2-player games after a few random rounds: (states, masks, seats)."""
    engine = BatchedGame("extra", games, seed=seed, num_players=2, **config)
    _, masks, _ = engine.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(4):
        legal = masks.astype(np.float64)
        pick = rng.random((games, 2, 1)) * legal.sum(axis=2, keepdims=True)
        _, masks, _, _, _, _ = engine.step((legal.cumsum(axis=2) > pick).argmax(axis=2))
    return engine.states.copy(), masks[:, 0].copy(), np.zeros(games, dtype=np.int64)


def test_the_features_are_the_table_entries_the_planning_value_sums() -> None:
    block = np.zeros(E.PLAYER_SIZE, dtype=np.int32)
    block[E.P_ROWS + 3] = 5  # row of sum 5: five checks
    block[E.P_CHECKS + 1], block[E.P_NUMBER + 1] = 2, 6
    ids = features(block)[0]
    assert ids.shape == (17,) and ids.max() < NUM_FEATURES
    assert ids[3] == 3 * 31 + 5 and ids[0] == 0
    assert ids[E.NUM_ROWS + 1] == E.NUM_ROWS * 31 + 31 + 2
    assert ids[E.NUM_ROWS + E.NUM_COLUMNS + 1] == E.NUM_ROWS * 31 + E.NUM_COLUMNS * 31 + 6


def test_least_squares_recovers_an_additive_value() -> None:
    rng = np.random.default_rng(0)
    truth = rng.normal(size=NUM_FEATURES)
    ids = features(rng.integers(0, 7, size=(5000, E.PLAYER_SIZE)))
    fitted = fit_tables(ids, truth[ids].sum(axis=1), ridge=1e-6)
    weights = np.concatenate([fitted["rows"].ravel(), fitted["columns"].ravel(), fitted["numbers"]])
    np.testing.assert_allclose(weights[ids].sum(axis=1), truth[ids].sum(axis=1), atol=1e-6)


def test_on_the_hand_set_tables_it_plays_exactly_the_planner() -> None:
    states, masks, seats = decisions(64, seed=1)
    planner, learned = PlannerAgent(), LearnedPlannerAgent(hand_tables())
    np.testing.assert_array_equal(learned.act_states(states, masks, seats), planner.act_states(states, masks, seats))
    np.testing.assert_allclose(learned.advise(states, masks, seats)[1], planner.advise(states, masks, seats)[1])


def test_self_play_training_is_seeded_and_beats_the_hand_set_tables() -> None:
    first, history = train_planning_values(generations=2, games=2048, seed=5, eval_games=1024)
    again, _ = train_planning_values(generations=2, games=2048, seed=5, eval_games=1024)
    for key in first:
        np.testing.assert_array_equal(first[key], again[key])
    assert [h["generation"] for h in history] == [1, 2]
    hand = play_self_play(PlannerAgent(), 1024, seed=5)[2].mean()  # the evaluation games: the run's own seed
    assert max(h["eval_mean_score"] for h in history) > hand + 50


def test_the_shipped_tables_beat_expectimax() -> None:
    bot = make_agent("extra_td")
    assert isinstance(bot, ShippedAgent) and bot.reads_state and bot.players == [2]
    rival = table_player("extra", "extra_expectimax", TWO)
    row = head_to_head("extra", bot, rival, TWO, games=1000, seed=12345)
    assert row["ci95"][0] > 0.5, row


def test_another_sheet_or_bad_tables_are_refused(tmp_path) -> None:
    states, masks, seats = decisions(2, seed=2, sheet={"penalty": 100})
    with pytest.raises(ValueError, match="learned on the default sheet"):
        LearnedPlannerAgent(hand_tables()).act_states(states, masks, seats)
    with pytest.raises(ValueError, match="dict of rows, columns, numbers"):
        LearnedPlannerAgent({"rows": np.zeros((11, 31))})
    with pytest.raises(ValueError, match=r"'numbers' must be \(7,\)"):
        LearnedPlannerAgent({**hand_tables(), "numbers": np.zeros(3)})
    with pytest.raises(ValueError, match="no value table"):
        LearnedPlannerAgent(tmp_path / "missing.npz")
    with pytest.raises(ValueError, match="epsilon in"):
        train_planning_values(epsilon=2.0)


def test_tables_round_trip_with_their_sheet(tmp_path) -> None:
    path = tmp_path / "t.npz"
    save_tables(path, hand_tables(), {"sheet": list(default_sheet())})
    tables, meta = load_tables(path)
    np.testing.assert_allclose(tables["rows"], hand_tables()["rows"], rtol=1e-6)
    assert tuple(meta["sheet"]) == default_sheet()
    save_tables(path, hand_tables(), {})
    with pytest.raises(ValueError, match="sheet layout"):
        load_tables(path)


def test_the_command_writes_tables_and_a_card_that_loads(tmp_path, capsys) -> None:
    import yaml

    from dicearena.agents.extra.learned_values import main
    from dicearena.agents.shipped import _load_model

    out = tmp_path / "mine.npz"
    assert main(["--generations", "1", "--games", "256", "--score-games", "10", "--out", str(out)]) == 0
    card = yaml.safe_load(out.with_suffix(".yaml").read_text())
    assert card["model"] == "mine.npz" and card["players"] == [2]
    assert [row["against"] for row in card["measured"]["head_to_head"]] == list(card["against"])
    agent = _load_model("mine", {**card, "model": str(out)}, deterministic=True)
    assert isinstance(agent, LearnedPlannerAgent)
    assert "against extra_expectimax" in capsys.readouterr().out
