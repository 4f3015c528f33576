"""bench_profile replays BatchedGame.step stage by stage: the same games from the same seed, every stage timed."""

from __future__ import annotations

import numpy as np
import pytest

from dicearena.bench._common import random_actions
from dicearena.bench.bench_profile import STAGES, StagedStep, profile
from dicearena.envs.common.game_batch import BatchedGame


@pytest.mark.parametrize("game", ["easy_come_easy_go", "extra", "yay", "easy_money"])
def test_staged_step_plays_the_games_step_plays(game: str) -> None:
    staged = StagedStep(game, 16, seed=3)
    engine = BatchedGame(game, 16, seed=3, copy=False, threads=1)
    _, masks, _ = engine.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(300):
        actions, _ = random_actions(masks, rng)
        staged.check(actions)
        staged.act(actions)
        staged.settle()
        _, masks, _, terminated, truncated, _ = engine.step(actions)
        ended += int(terminated.sum() + truncated.sum())
        assert np.array_equal(staged.engine.states, engine.states)
        assert np.array_equal(staged.engine._masks, masks)
    assert ended > 0  # games ended and restarted on the way, in both


def test_staged_step_refuses_an_illegal_action() -> None:
    staged = StagedStep("yay", 4, seed=0)
    before = staged.engine.states.copy()
    with pytest.raises(ValueError, match="illegal action in game 0"):
        staged.check(np.full(4, -5, dtype=np.int64))
    assert np.array_equal(staged.engine.states, before)


def test_profile_times_every_stage() -> None:
    row = profile("easy_come_easy_go", 64, 0.05)
    assert set(row) == {*STAGES, "step"}
    assert all(row[stage] > 0 for stage in ("sampling", "act", "encode", "step"))
