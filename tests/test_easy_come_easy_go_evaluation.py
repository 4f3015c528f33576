"""Easy Come, Easy Go full-game evaluation runs on the one evaluation loop
(``dicearena.agents.evaluation.play.play_games``).

It counts a fixed set of games: the first G to start, each played to its end (counting the first G games to *end*
would favour short games; ``tests/test_conformance.py`` checks the loop itself for every game). Here: the winners
and final rewards ``play_full_game`` reports are those of exactly those games, read from the engine's final states,
and the round robin is deterministic.
"""

from __future__ import annotations

import numpy as np

import dicearena.agents.evaluation.play as play_module
from dicearena.agents import RandomAgent
from dicearena.agents.easy_come_easy_go import FullGameHeuristicAgent, MyopicAgent
from dicearena.agents.easy_come_easy_go.evaluation import play_full_game, round_robin
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.easy_come_easy_go import engine as eng


class RecordingEngine(BatchedGame):
    """The real batched engine, also keeping each game's winner by the order games start (ended games restart in
    slot order within a step)."""

    last: RecordingEngine | None = None

    def reset(self, seed: int | None = None):
        RecordingEngine.last = self
        self.playing = list(range(self.num_envs))  # the start index of each slot's game
        self.started = self.num_envs
        self.winners: dict[int, int] = {}
        return super().reset(seed)

    def step(self, actions, active=None):
        out = super().step(actions, active)
        info = out[-1]
        for k, slot in enumerate(info["ended"].tolist()):
            self.winners[self.playing[slot]] = int(info["final_state"][k][eng.WINNER])
            self.playing[slot], self.started = self.started, self.started + 1
        return out


def _first_started(winners: dict[int, int], num_games: int, num_players: int = 2) -> tuple[list, int]:
    """Wins per seat and truncations over the first ``num_games`` games to start."""
    first = np.array([winners[k] for k in range(num_games)])
    return np.bincount(first[first >= 0], minlength=num_players).tolist(), int((first < 0).sum())


def test_real_engine_counts_the_first_games_to_start(monkeypatch) -> None:
    """Per-game winners and final rewards are those of the first G games to start; the planners read states."""
    monkeypatch.setattr(play_module, "BatchedGame", RecordingEngine)  # the one evaluation loop's engine
    config = {"max_turns": 15, "win_reward": 2.0, "loss_reward": -0.5}
    result = play_full_game([MyopicAgent(), FullGameHeuristicAgent()], 300, config, seed=3, batch_size=64)
    recorded = RecordingEngine.last.winners
    assert set(range(300)) <= recorded.keys(), "a game among the first 300 to start was dropped before it ended"
    wins, truncated = _first_started(recorded, 300)
    assert (result["wins"].tolist(), result["truncated"]) == (wins, truncated) and truncated > 0
    np.testing.assert_array_equal(result["winners"], [recorded[k] for k in range(300)])
    won = result["winners"] >= 0
    assert np.all(result["outcomes"][~won] == 0.0)
    np.testing.assert_array_equal(result["outcomes"][won].max(axis=1), 2.0)
    np.testing.assert_array_equal(result["outcomes"][won].argmax(axis=1), result["winners"][won])
    assert np.all(result["outcomes"][won].min(axis=1) == -0.5)


def test_more_players_and_batch_sizes() -> None:
    """Any table size; the batch size changes only how many games run side by side, never which are counted."""
    agents = [RandomAgent(0), MyopicAgent(), FullGameHeuristicAgent()]
    for batch_size in (7, 64):
        result = play_full_game(agents, 90, seed=1, batch_size=batch_size)
        assert result["games"] == 90 and result["wins"].shape == (3,)
        assert result["wins"].sum() + result["truncated"] == 90 and result["outcomes"].shape == (90, 3)
        assert result["wins"][2] > result["wins"][0]  # the heuristic beats random play at a 3-player table


def test_round_robin_rows_and_determinism() -> None:
    """Both seatings, one row each, every game counted once; the same seed gives the same table."""
    agents = {"random": RandomAgent(0), "heuristic": FullGameHeuristicAgent()}
    rows = round_robin(agents, 60, seed=5)
    again = round_robin(agents, 60, seed=5)
    assert [(r["seat_0"], r["seat_1"]) for r in rows] == [("random", "heuristic"), ("heuristic", "random")]
    for r in rows:
        assert r["games"] == 60 and r["seat_0_wins"] + r["seat_1_wins"] + r["truncated"] == 60
    drop = "games_per_second"
    assert [{k: v for k, v in r.items() if k != drop} for r in rows] == [
        {k: v for k, v in r.items() if k != drop} for r in again
    ]
    assert rows[0]["seat_1_wins"] > 50 and rows[1]["seat_0_wins"] > 50  # the heuristic wins almost every game
