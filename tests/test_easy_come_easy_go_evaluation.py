"""Easy Come, Easy Go full-game evaluation counts a fixed set of games: the first G to start, each played to its end.

Counting the first G games to *end* instead favours short games: the long ones still running when the count is
reached are dropped. The scripted engine below makes long games go to seat 0, so that bias shows as an exact count.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import envs.easy_come_easy_go.batched as batched_module
from agents import RandomAgent
from agents.easy_come_easy_go import FullGameHeuristicAgent, MyopicAgent
from agents.easy_come_easy_go.evaluation import play_full_game, round_robin
from envs.easy_come_easy_go.batched import BatchedEasyComeEasyGo

SCRIPT_LENGTHS = (1, 6, 2, 1, 4, 1, 5, 1)  # steps of the k-th game to start (cycling)


def _scripted_winner(length: int) -> int:
    """Long games go to seat 0, short ones to seat 1; the longest is truncated (-1)."""
    return -1 if length == 6 else (0 if length >= 4 else 1)


class ScriptedLengthEngine:
    """A stand-in for the batched engine (same calls, same info keys) whose k-th started game has a known length
    and winner; ``winners`` keeps each game's winner by start order."""

    last: ScriptedLengthEngine | None = None

    def __init__(self, num_envs: int, config: dict | None = None, seed: int | None = None, num_players: int = 2):
        self.num_envs, self.num_players = num_envs, num_players
        self.winners: list[int] = []
        ScriptedLengthEngine.last = self

    def _start(self, slot: int) -> None:
        length = SCRIPT_LENGTHS[len(self.winners) % len(SCRIPT_LENGTHS)]
        self.slot_game[slot], self.left[slot] = len(self.winners), length
        self.winners.append(_scripted_winner(length))

    def _view(self) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros((self.num_envs, 3), np.float32), np.ones((self.num_envs, 2), np.int8)

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        self.winners, self.slot_game, self.left = [], np.zeros(self.num_envs, int), np.zeros(self.num_envs, int)
        for slot in range(self.num_envs):
            self._start(slot)
        return *self._view(), {"current_player": self.left % self.num_players}

    def step(self, actions: np.ndarray) -> tuple:
        assert np.all((actions == 0) | (actions == 1))
        self.left -= 1
        ended = np.flatnonzero(self.left == 0)
        final_winner = np.array([self.winners[self.slot_game[slot]] for slot in ended], dtype=np.int64)
        rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        for slot, winner in zip(ended, final_winner, strict=True):
            if winner >= 0:
                rewards[slot] = -1.0
                rewards[slot, winner] = 1.0
            self._start(slot)
        done = np.zeros(self.num_envs, bool)
        done[ended] = True
        terminated, truncated = done.copy(), done.copy()
        terminated[ended[final_winner < 0]] = False
        truncated[ended[final_winner >= 0]] = False
        info = {"current_player": self.left % self.num_players, "ended": ended, "final_winner": final_winner}
        return *self._view(), rewards, terminated, truncated, info


class RecordingEngine(BatchedEasyComeEasyGo):
    """The real batched engine, also keeping each game's winner by the order games start (ended games restart in
    slot order within a step)."""

    last: RecordingEngine | None = None

    def reset(self, seed: int | None = None):
        RecordingEngine.last = self
        self.playing = list(range(self.num_envs))  # the start index of each slot's game
        self.started = self.num_envs
        self.winners: dict[int, int] = {}
        return super().reset(seed)

    def step(self, actions):
        out = super().step(actions)
        for k, slot in enumerate(out[-1]["ended"].tolist()):
            self.winners[self.playing[slot]] = int(out[-1]["final_winner"][k])
            self.playing[slot], self.started = self.started, self.started + 1
        return out


def _first_started(winners: dict[int, int] | list[int], num_games: int, num_players: int = 2) -> tuple[list, int]:
    """Wins per seat and truncations over the first ``num_games`` games to start."""
    first = np.array([winners[k] for k in range(num_games)])
    return np.bincount(first[first >= 0], minlength=num_players).tolist(), int((first < 0).sum())


@pytest.mark.parametrize("batch_size", [1, 3, 8, 13, 40, 64])
def test_counted_games_are_the_first_to_start_not_the_first_to_end(monkeypatch, batch_size: int) -> None:
    """Long games (seat 0's) count as often as they start, whatever the batch size."""
    monkeypatch.setattr(batched_module, "BatchedEasyComeEasyGo", ScriptedLengthEngine)
    result = play_full_game([RandomAgent(0), RandomAgent(1)], 40, seed=0, batch_size=batch_size)
    wins, truncated = _first_started(ScriptedLengthEngine.last.winners, 40)
    assert (result["wins"].tolist(), result["truncated"], result["games"]) == (wins, truncated, 40)
    assert wins == [10, 25] and truncated == 5  # 5 passes over the 8-game script


def test_real_engine_counts_the_first_games_to_start(monkeypatch) -> None:
    """On the real engine: per-game winners and final rewards are those of the first G games to start."""
    monkeypatch.setattr(batched_module, "BatchedEasyComeEasyGo", RecordingEngine)
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
