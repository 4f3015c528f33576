"""Easy Come on the generic batched engine (``BatchedGame("easy_come_easy_go", ...)``): same games as the AEC env
and as the engine replayed game by game; auto-reset; seeding; bad input; invariants under random play."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dicearena.agents.random_agent import sample_masked
from dicearena.envs.common.batching import MAX_BATCH
from dicearena.envs.common.config import ConfigError
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.easy_come_easy_go import engine as E
from dicearena.envs.easy_come_easy_go_v0 import raw_env
from tests.helpers import PlainStream


def batched(num_envs: int, config: dict | None = None, **kwargs: Any) -> BatchedGame:
    """Easy Come's batched engine (``config`` a dict; ``kwargs`` seed, copy and config overrides)."""
    return BatchedGame("easy_come_easy_go", num_envs, config, **kwargs)


@pytest.mark.parametrize(("seed", "players", "max_turns"), [(0, 2, 1000), (7, 3, 25), (11, 6, 40)])
def test_one_game_batch_plays_the_same_games_as_the_aec_env(seed: int, players: int, max_turns: int) -> None:
    cfg = {"num_players": players, "max_turns": max_turns}
    batch = batched(1, cfg, seed=seed)
    aec = raw_env(cfg)
    obs, masks, info = batch.reset()
    aec.reset(seed=seed)
    picker = np.random.default_rng(100 + seed)
    games = 0
    for _ in range(1500):
        np.testing.assert_array_equal(batch.states[0], aec.engine_state)
        seen = aec.observe(aec.agent_selection)
        np.testing.assert_array_equal(obs[0], seen["observation"])
        np.testing.assert_array_equal(masks[0], seen["action_mask"])
        assert info["to_act"][0] == int(aec.agent_selection.split("_")[1])
        action = sample_masked(masks, picker)
        obs, masks, rewards, terminated, truncated, info = batch.step(action)
        aec.step(int(action[0]))
        if terminated[0] or truncated[0]:
            games += 1
            assert aec.engine_state[E.PHASE] == E.PHASE_OVER
            np.testing.assert_array_equal(info["final_state"][0], aec.engine_state)
            assert bool(terminated[0]) == all(aec.terminations.values())
            assert bool(truncated[0]) == all(aec.truncations.values())
            expected = [aec.rewards[a] for a in aec.possible_agents]
            np.testing.assert_allclose(rewards[0], expected)
            np.testing.assert_allclose(info["final_rewards"][0], expected)
            for seat, agent in enumerate(aec.possible_agents):
                np.testing.assert_array_equal(info["final_observation"][0, seat], aec.observe(agent)["observation"])
            aec.reset()  # unseeded: continues the stream, as the batch's auto-reset does
        else:
            assert not rewards.any()
    assert games >= 2  # several games, so auto-reset agreed with reset() too


def _settle(ref: np.ndarray, stream: PlainStream) -> None:
    """The game's chance events from its own stream until it waits for a decision: each event draws NUM_DICE
    words, die i showing word i mod 6."""
    while E.dice_needed(ref) > 0:
        words = stream.words(E.NUM_DICE)
        E.apply_chance(ref, np.array(words[: E.dice_needed(ref)], dtype=np.int64) % E.NUM_FACES)


def test_every_game_of_a_batch_matches_the_engine_replayed_with_its_dice() -> None:
    b_size, players, max_turns = 64, 3, 30
    batch = batched(b_size, num_players=players, max_turns=max_turns, seed=3)
    obs, masks, _ = batch.reset()
    streams = [PlainStream(key) for key in np.random.SeedSequence(3).generate_state(b_size, np.uint64)]
    ref = [np.zeros(E.STATE_SIZE, dtype=np.int32) for _ in range(b_size)]
    for s, stream in zip(ref, streams, strict=True):
        E.start_game(s, players, max_turns, 0, -1)
        _settle(s, stream)
    picker = np.random.default_rng(5)
    ended_total = 0
    obs_buf = np.zeros(E.observation_size(players), dtype=np.float32)
    mask_buf = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
    reward_buf = np.zeros(players)
    for _ in range(300):
        for b in range(b_size):
            np.testing.assert_array_equal(batch.states[b], ref[b])
            E.encode_observation(ref[b], ref[b][E.CURRENT], obs_buf)
            E.legal_mask(ref[b], ref[b][E.CURRENT], mask_buf)
            np.testing.assert_array_equal(obs[b], obs_buf)
            np.testing.assert_array_equal(masks[b], mask_buf)
        actions = sample_masked(masks, picker)
        obs, masks, rewards, terminated, truncated, info = batch.step(actions)
        ended = []
        for b in range(b_size):
            E.apply_action(ref[b], ref[b][E.CURRENT], int(actions[b]))
            if ref[b][E.PHASE] == E.PHASE_OVER:
                ended.append(b)
                E.final_rewards(ref[b], 1.0, -1.0, reward_buf)
                np.testing.assert_allclose(rewards[b], reward_buf)
                assert terminated[b] == (ref[b][E.WINNER] >= 0) and truncated[b] == (ref[b][E.WINNER] < 0)
                np.testing.assert_array_equal(info["final_state"][len(ended) - 1], ref[b])
                E.start_game(ref[b], players, max_turns, 0, -1)
            else:
                assert not rewards[b].any() and not terminated[b] and not truncated[b]
        np.testing.assert_array_equal(info["ended"], ended)
        for s, stream in zip(ref, streams, strict=True):
            _settle(s, stream)
        ended_total += len(ended)
    assert ended_total > 20


def test_auto_reset_reports_the_finished_game_and_starts_a_new_one() -> None:
    batch = batched(32, max_turns=3, seed=1)  # every game truncates after 3 turns
    obs, masks, _ = batch.reset()
    picker = np.random.default_rng(0)
    seen_end = False
    for _ in range(40):
        obs, masks, rewards, terminated, truncated, info = batch.step(sample_masked(masks, picker))
        done = terminated | truncated
        np.testing.assert_array_equal(np.flatnonzero(done), info["ended"])
        if done.any():
            seen_end = True
            final = info["final_state"]
            assert (final[:, E.PHASE] == E.PHASE_OVER).all()
            assert info["final_observation"].shape == (done.sum(), 2, batch.observation_size)
            restarted = batch.states[done]
            assert (restarted[:, E.TURN] == 1).all() and (restarted[:, E.OWNER : E.OWNER + 9] == E.CENTRE).all()
            assert (restarted[:, E.PHASE] == E.PHASE_DECIDE).all() and (restarted[:, E.ROLLS] == 1).all()
            np.testing.assert_array_equal(final[truncated[done], E.TURN], 3)
    assert seen_end


def test_seeding_is_reproducible_and_seeds_differ() -> None:
    def run(seed: int, reseed: int | None = None) -> list[np.ndarray]:
        batch = batched(16, seed=seed)
        obs, masks, _ = batch.reset(seed=reseed)
        picker = np.random.default_rng(9)
        out = [obs]
        for _ in range(50):
            obs, masks, *_ = batch.step(sample_masked(masks, picker))
            out.append(obs)
        return out

    a, b, c = run(4), run(4), run(5)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))
    d = run(123, reseed=4)  # reset(seed) overrides the constructor's seed
    assert all(np.array_equal(x, y) for x, y in zip(a, d, strict=True))


def test_first_player_config_skips_the_roll_off() -> None:
    batch = batched(8, num_players=4, first_player=2, seed=0)
    _, _, info = batch.reset()
    np.testing.assert_array_equal(info["to_act"], 2)


@pytest.mark.parametrize("num_envs", [0, -1, MAX_BATCH + 1])
def test_batch_size_out_of_range_is_a_clear_error(num_envs: int) -> None:
    with pytest.raises(ValueError, match=r"num_envs must be in 1\.\.65536"):
        batched(num_envs)


def test_bad_batch_size_type_and_bad_config_are_clear_errors() -> None:
    with pytest.raises(TypeError, match="num_envs"):
        batched(4.0)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="num_players"):
        batched(4, num_players=9)
    with pytest.raises(ConfigError, match="unknown key 'colour'"):
        batched(4, colour="red")


def test_bad_actions_raise_and_leave_every_game_unchanged() -> None:
    batch = batched(8, seed=2)
    with pytest.raises(RuntimeError, match="reset"):
        batch.step(np.full(8, 9))
    obs, masks, _ = batch.reset()
    before = batch.states.copy()
    with pytest.raises(ValueError, match=r"shape \(8,\)"):
        batch.step(np.full(7, 9))
    with pytest.raises(TypeError, match="integers"):
        batch.step(np.full(8, 9.0))
    actions = sample_masked(masks, np.random.default_rng(0))
    actions[5] = 24
    with pytest.raises(ValueError, match=r"game 5, player_\d: action 24 is illegal \(actions are 0\.\.23\); legal"):
        batch.step(actions)
    illegal_prize = int(np.flatnonzero(masks[3][:9] == 0)[0])
    actions = sample_masked(masks, np.random.default_rng(0))
    actions[3] = illegal_prize
    with pytest.raises(ValueError, match=f"game 3, player_\\d: action {illegal_prize} is illegal") as err:
        batch.step(actions)
    assert str(np.flatnonzero(masks[3]).tolist()) in str(err.value)
    np.testing.assert_array_equal(batch.states, before)  # earlier games were not stepped either
    with pytest.raises(ValueError, match="read-only"):
        batch.states[0, 0] = 1
    batch.step(sample_masked(masks, np.random.default_rng(0)))  # still usable


def test_invariants_under_random_play() -> None:
    players = 4
    batch = batched(256, num_players=players, max_turns=60, seed=8)
    obs, masks, info = batch.reset()
    picker = np.random.default_rng(1)
    wins = 0
    for _ in range(400):
        states = batch.states
        assert (states[:, E.PHASE] == E.PHASE_DECIDE).all()
        assert (masks.sum(axis=1) > 0).all()  # someone must act in every game: never an empty mask
        owners = states[:, E.OWNER : E.OWNER + E.NUM_PRIZES]
        assert ((owners >= E.CENTRE) & (owners < players)).all()  # each prize in one place only
        held = np.stack([(owners == s).sum(axis=1) for s in range(players)], axis=1)
        to_move = held[np.arange(len(held)), states[:, E.CURRENT]]
        assert (to_move < E.PRIZES_TO_WIN).all()  # holding three at the start of one's turn ends the game
        assert np.isfinite(obs).all() and obs.min() >= 0.0 and obs.max() <= 1.0
        np.testing.assert_array_equal(info["to_act"], states[:, E.CURRENT])
        obs, masks, rewards, terminated, truncated, info = batch.step(sample_masked(masks, picker))
        assert not (terminated & truncated).any()
        for k, b in enumerate(info["ended"]):
            final = info["final_state"][k]
            winner = final[E.WINNER]
            if terminated[b]:
                wins += 1
                assert E.prizes_held(final, winner) >= E.PRIZES_TO_WIN
                assert rewards[b, winner] == 1.0 and rewards[b].sum() == 1.0 - (players - 1)
            else:
                assert winner == -1 and final[E.TURN] == 60 and not rewards[b].any()
    assert wins > 10


def test_copy_false_returns_internal_buffers_copy_true_does_not() -> None:
    shared = batched(4, seed=0, copy=False)
    obs1, masks1, _ = shared.reset()
    obs2, *_ = shared.step(sample_masked(masks1, np.random.default_rng(0)))
    assert obs1 is obs2
    owned = batched(4, seed=0)
    obs1, masks1, _ = owned.reset()
    obs2, *_ = owned.step(sample_masked(masks1, np.random.default_rng(0)))
    assert obs1 is not obs2


def test_inactive_games_wait_untouched() -> None:
    """``step(actions, active)``: left-out games keep their state, even with an illegal action."""
    batch = batched(64, num_players=3, seed=12)
    _, masks, _ = batch.reset()
    rng = np.random.default_rng(12)
    for _ in range(100):
        active = rng.random(64) < 0.5
        actions = sample_masked(masks, rng)
        actions[~active] = -1  # would be illegal: ignored
        before = batch.states.copy()
        _, masks, rewards, terminated, truncated, info = batch.step(actions, active)
        np.testing.assert_array_equal(batch.states[~active], before[~active])
        assert not rewards[~active].any() and not (terminated | truncated)[~active].any()
        assert active[info["ended"]].all()
        assert (batch.states[active] != before[active]).any(axis=1).all()
