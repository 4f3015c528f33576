"""Yay! on the generic batched engine (``BatchedGame("yay", ...)``): the same games as the AEC env, auto-reset,
rewards from a recount, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from dicearena.envs import yay_v0
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.yay import engine as E
from tests.yay_scripts import ThrowAgain

CHANCE_ENDS = (E.EVENT_NOT_HIGHER, E.EVENT_ALL_FILLED)  # turns that end inside a throw, not at an action


@pytest.mark.parametrize(
    ("seed", "config", "again", "games"),
    [
        (0, {}, 0.0, 3),
        (4, {"num_players": 3, "rows": 6, "cols": 7}, 0.0, 3),
        (2, {"shaping": True}, 0.0, 3),
        (3, {"max_turns": 5}, 0.8, 40),  # many games end inside a throw (rule 9 or 5 at the turn limit)
        (5, {"max_turns": 6, "shaping": True}, 0.8, 40),
    ],
)
def test_one_game_batch_replays_the_aec_env(seed: int, config: dict, again: float, games: int) -> None:
    """Same seed, same actions: the same observations, masks and rewards at every decision, over several games;
    ``again`` = how often the policy throws again when it may."""
    env = yay_v0.raw_env(**config)
    env.reset(seed=seed)
    batch = BatchedGame("yay", 1, seed=seed, **config)
    obs, masks, info = batch.reset()
    policy = ThrowAgain(again, seed)
    ended = in_chance = 0
    while ended < games:
        agent = env.agent_selection
        expected = env.observe(agent)
        assert info["to_act"][0] == env.possible_agents.index(agent)
        np.testing.assert_array_equal(obs[0], expected["observation"])
        np.testing.assert_array_equal(masks[0], expected["action_mask"])
        action = int(policy.act_batch(obs, masks)[0])
        env.step(action)
        obs, masks, rewards, terminated, truncated, info = batch.step(np.array([action]))
        np.testing.assert_allclose(rewards[0], [env.rewards[a] for a in env.possible_agents], atol=1e-6)
        if env.terminations[agent] or env.truncations[agent]:
            assert terminated[0] == env.terminations[agent] and truncated[0] == env.truncations[agent]
            np.testing.assert_array_equal(info["final_state"][0], env.engine_state)
            in_chance += int(env.engine_state[E.LAST_EVENT] in CHANCE_ENDS)
            env.reset()
            ended += 1
        else:
            assert not terminated[0] and not truncated[0]
            assert config.get("shaping") or not rewards.any()
    assert in_chance > 0 or again == 0.0


def test_random_play_ends_games_with_rewards_matching_the_standings() -> None:
    batch = BatchedGame("yay", 256, num_players=3, seed=1)
    obs, masks, _ = batch.reset()
    rng = np.random.default_rng(1)
    ended_games = 0
    for _ in range(300):
        assert masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, masks, rewards, terminated, truncated, info = batch.step(actions)
        ended = info["ended"]
        assert set(ended.tolist()) == set(np.flatnonzero(terminated | truncated).tolist())
        assert not truncated.any()
        for k, b in enumerate(ended.tolist()):
            standings = [tuple(x) for x in E.final_standings(info["final_state"], 3)[k].tolist()]
            best = max(standings)
            assert rewards[b].tolist() == [1.0 if s == best else -1.0 for s in standings]
            assert E.line_filled(info["final_state"][k])
            assert info["final_observation"].shape[1:] == (3, batch.observation_size)
        assert not rewards[~(terminated | truncated)].any()
        ended_games += ended.size
    assert ended_games > 256  # every game ended at least once on average, and restarted


def test_inactive_games_wait_and_bad_input_changes_nothing() -> None:
    core = BatchedGame("yay", 8, seed=2)
    _, masks, _ = core.reset()
    legal = np.array([np.flatnonzero(m)[0] for m in masks])
    before = core.states.copy()
    bad = legal.copy()
    bad[5] = int(np.flatnonzero(masks[5] == 0)[0])
    with pytest.raises(ValueError, match=r"game 5, player_\d: action \d+ is illegal \(.*\); legal actions: \["):
        core.step(bad)
    with pytest.raises(ValueError, match=r"shape \(8,\)"):
        core.step(legal[:4])
    with pytest.raises(TypeError, match="integers"):
        core.step(legal.astype(float))
    np.testing.assert_array_equal(core.states, before)
    active = np.zeros(8, dtype=bool)
    active[3] = True
    core.step(bad, active)  # game 5's illegal action is ignored: it waits
    changed = np.flatnonzero((core.states != before).any(axis=1))
    assert changed.tolist() == [3]
    with pytest.raises(RuntimeError, match="reset"):
        BatchedGame("yay", 2).step(np.zeros(2, dtype=np.int64))


def test_truncation_after_max_turns() -> None:
    batch = BatchedGame("yay", 16, max_turns=3, seed=3)
    obs, masks, _ = batch.reset()
    truncated_games = 0
    for _ in range(40):
        obs, masks, rewards, terminated, truncated, info = batch.step(masks.argmax(axis=1))
        truncated_games += int(truncated.sum())
        assert not rewards[truncated].any()
        assert (info["final_state"][:, E.TURN] == 3).all()
    assert truncated_games > 0
