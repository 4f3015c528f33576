"""The ``zero_sum`` reward option of every game (issue 10): rewards that sum to 0, the default unchanged."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dicearena.envs  # noqa: F401  (registers the games)
from dicearena.agents.random_agent import sample_masked
from dicearena.envs.common.config import ConfigError
from dicearena.envs.common.contract import GAMES
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.common.rewards import zero_sum_rewards

B = 64
STEPS = 400

# 3 players each; short turn limits so that truncated games (reward 0 for all) occur too
CONFIGS: dict[str, list[dict[str, Any]]] = {
    "easy_come_easy_go": [{"num_players": 3, "max_turns": 30}],
    "extra": [{"num_players": 3}],
    "yay": [{"num_players": 3, "rows": 5, "cols": 5}, {"num_players": 3, "rows": 5, "cols": 5, "shaping": True}],
    "easy_money": [{"num_players": 3, "max_turns": 60}, {"num_players": 3, "max_turns": 60, "shaping": True}],
}
BAD: dict[str, list[dict[str, Any]]] = {
    "easy_come_easy_go": [{"win_reward": 2.0}, {"loss_reward": -0.5}],
    "extra": [{"num_players": 3, "reward": "score"}, {"num_players": 1}],
    "yay": [],
    "easy_money": [{"reward": "money"}],
}
# the suite's games, not the example Pig
SUITE = [game for game, spec in GAMES.items() if spec.engine.__name__.startswith("dicearena.envs.")]
CASES = [(game, config) for game in SUITE for config in CONFIGS[game]]


def test_every_game_has_a_case() -> None:
    assert set(CONFIGS) == set(SUITE) == set(BAD) and len(SUITE) == 4


def test_helper() -> None:
    out = np.full(5, 7.0)
    zero_sum_rewards(0, 4, out)  # k = 0
    np.testing.assert_array_equal(out, 0.0)
    zero_sum_rewards(0b0100, 4, out)  # k = 1
    np.testing.assert_allclose(out, [-1 / 3, -1 / 3, 1.0, -1 / 3, 0.0])
    zero_sum_rewards(0b1001, 4, out)  # k = 2
    np.testing.assert_allclose(out, [0.5, -0.5, -0.5, 0.5, 0.0])
    zero_sum_rewards(0b1111, 4, out)  # k = P
    np.testing.assert_array_equal(out, 0.0)
    for winners in range(1, 15):
        zero_sum_rewards(winners, 4, out)
        assert abs(out.sum()) < 1e-12


def _play(game: str, config: dict[str, Any]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Seeded random play: the final rewards of every game that ended, and each one's summed step rewards."""
    batch = BatchedGame(game, B, config, seed=0)
    rng = np.random.default_rng(0)
    _, masks, _ = batch.reset()
    returns = np.zeros((B, batch.num_players))
    finals, totals = [], []
    for _ in range(STEPS):
        flat = masks.reshape(-1, masks.shape[-1])
        actions = sample_masked(flat, rng).reshape(masks.shape[:-1])
        _, masks, rewards, _, _, info = batch.step(actions)
        returns += rewards
        ended = info["ended"]
        finals.append(info["final_rewards"].astype(np.float64))
        totals.append(returns[ended].copy())
        returns[ended] = 0.0
    return finals, totals


@pytest.mark.parametrize(("game", "config"), CASES, ids=[f"{g}-{i}" for i, (g, _) in enumerate(CASES)])
def test_zero_sum_rewards(game: str, config: dict[str, Any]) -> None:
    default, _ = _play(game, config)
    off, _ = _play(game, {**config, "zero_sum": False})
    on, on_returns = _play(game, {**config, "zero_sum": True})
    ended = sum(len(f) for f in default)
    assert ended >= 20, f"only {ended} games ended"
    seen = set()
    for old, same, new, ret in zip(default, off, on, on_returns, strict=True):
        np.testing.assert_array_equal(old, same)  # zero_sum=False is the default
        assert len(new) == len(old)  # the reward does not change the games
        for before, after, total in zip(old, new, ret, strict=True):
            assert abs(after.sum()) < 1e-9
            assert set(before) <= {-1.0, 0.0, 1.0}  # the default's win reward: +1 each winner, -1 the others
            won = before > 0
            k, p = int(won.sum()), len(before)
            expected = np.zeros(p) if k in (0, p) else np.where(won, 1 / k, -1 / (p - k))
            np.testing.assert_allclose(after, expected, atol=1e-6)
            np.testing.assert_allclose(total, after, atol=1e-5)  # step rewards (shaped or not) sum to it
            seen.add(k)
    assert 1 in seen


@pytest.mark.parametrize(("game", "config"), [(g, c) for g in SUITE for c in BAD[g]])
def test_zero_sum_refuses_other_rewards(game: str, config: dict[str, Any]) -> None:
    GAMES[game].config.model_validate({**config})  # fine without zero_sum
    with pytest.raises((ConfigError, ValueError), match="zero_sum"):
        BatchedGame(game, 1, {**config, "zero_sum": True})
