"""Extra! on the generic batched engine (``BatchedGame("extra", ...)``): the same games as the Parallel env with the
same seed; auto-reset; seeding; bad input; invariants; the all-seat observation kernel against the engine's."""

from __future__ import annotations

import numpy as np
import pytest

from dicearena.agents.random_agent import sample_masked
from dicearena.envs.common.batching import MAX_BATCH
from dicearena.envs.common.config import ConfigError
from dicearena.envs.common.contract import SIMULTANEOUS, TERMINATED
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.extra import engine as E
from dicearena.envs.extra_v0 import parallel_env


def _random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per seat that acts, -1 for the others."""
    return sample_masked(masks.reshape(-1, E.NUM_ACTIONS), rng).reshape(masks.shape[:2])


def _scores(state: np.ndarray, players: int) -> list[int]:
    return [int(E.score(state, s)) for s in range(players)]


@pytest.mark.parametrize(
    ("seed", "kwargs"),
    [(0, {"num_players": 1}), (3, {"num_players": 2}), (7, {"num_players": 4, "reward": "score"}),
     (11, {"num_players": 3, "children": True, "sheet": {"extra_columns": [3, 4, 2]}}),
     (5, {"num_players": 3, "reward": "score", "shaping": True}), (2, {"num_players": 1, "shaping": True})],
)  # fmt: skip
def test_one_game_batch_plays_the_same_games_as_the_parallel_env(seed: int, kwargs: dict) -> None:
    """The Parallel env's default chance (``SeededChance``, one block of words per throw) draws the stream a
    1-game batch draws: the same games, rewards, finishers and terminal states."""
    env = parallel_env(**kwargs)
    batch = BatchedGame("extra", 1, kwargs)
    players = env.possible_agents
    obs, _ = env.reset(seed=seed)
    bobs, bmasks, info = batch.reset(seed=seed)
    rng = np.random.default_rng(seed)
    games = 0
    for _ in range(250):
        assert info["to_act"][0] == SIMULTANEOUS
        assert [players[s] for s in np.flatnonzero(info["acting"][0])] == env.agents  # every live seat decides
        for s, agent in enumerate(players):
            if agent in env.agents:
                np.testing.assert_array_equal(bobs[0, s], obs[agent]["observation"])
                np.testing.assert_array_equal(bmasks[0, s], obs[agent]["action_mask"])
            else:
                assert not bmasks[0, s].any()  # a finished seat does not act
        actions = _random_actions(bmasks, rng)
        joint = {a: int(actions[0, players.index(a)]) for a in env.agents}
        obs, rewards, terminations, truncations, _ = env.step(joint)
        bobs, bmasks, brewards, bterminated, btruncated, info = batch.step(actions)
        assert not btruncated.any() and not any(truncations.values())
        for s, agent in enumerate(players):
            assert brewards[0, s] == np.float32(rewards.get(agent, 0.0))
        finished = {a for a, done in terminations.items() if done}
        if not env.agents:
            games += 1
            assert bterminated[0] and info["ended"].tolist() == [0]
            np.testing.assert_array_equal(info["final_state"][0], env.state())
            final = np.zeros(len(players))
            E.rewards(env.state(), final)
            np.testing.assert_array_equal(info["final_rewards"][0], final.astype(np.float32))
            for s, agent in enumerate(players):
                np.testing.assert_array_equal(info["final_observation"][0, s], env.observe(agent)["observation"])
            obs, _ = env.reset()
        else:
            assert not bterminated[0] and info["ended"].size == 0
            state = batch.states[0]
            assert finished == {players[s] for s in range(len(players))
                                if E.seat_status(state, s) == TERMINATED and actions[0, s] >= 0}  # fmt: skip
    assert games >= 5


def test_auto_reset_seeding_and_every_game_independent() -> None:
    def rollout(seed: int) -> list[np.ndarray]:
        batch = BatchedGame("extra", 64, num_players=3, seed=seed)
        obs, masks, _ = batch.reset()
        rng, out = np.random.default_rng(0), [obs]
        for _ in range(30):
            obs, masks, rewards, *_ = batch.step(_random_actions(masks, rng))
            out += [obs, rewards]
        return out

    a, b, c = rollout(5), rollout(5), rollout(6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))

    batch = BatchedGame("extra", 256, num_players=2, seed=1)
    obs, masks, _ = batch.reset()
    assert len({tuple(batch.states[i, E.DICE : E.DICE + 5]) for i in range(256)}) > 150  # games differ
    rng = np.random.default_rng(1)
    ended_total = 0
    for _ in range(40):
        obs, masks, rewards, terminated, _, info = batch.step(_random_actions(masks, rng))
        ended = info["ended"]
        ended_total += ended.size
        np.testing.assert_array_equal(np.flatnonzero(terminated), ended)
        for k, b in enumerate(ended):
            assert batch.states[b, E.ROUND] == 1 and batch.states[b, E.PHASE] == E.PHASE_DECIDE  # restarted
            assert masks[b].any(axis=1).all() and info["acting"][b].all()  # every seat of a fresh game acts
            assert info["final_state"][k, E.PHASE] == E.PHASE_OVER
            assert sorted(rewards[b].tolist()) in ([-1.0, 1.0], [1.0, 1.0])  # "win": +-1 when it ends
            np.testing.assert_array_equal(info["final_rewards"][k], rewards[b])
        live = np.setdiff1d(np.arange(256), ended)
        assert (rewards[live] == 0.0).all()
        assert masks.any(axis=2).any(axis=1).all()  # never a game where nobody acts
        np.testing.assert_array_equal(info["acting"], masks.any(axis=2))
    assert ended_total > 200


def test_batch_size_and_config_errors() -> None:
    for bad in (0, MAX_BATCH + 1):
        with pytest.raises(ValueError, match="num_envs must be in 1..65536"):
            BatchedGame("extra", bad)
    with pytest.raises(TypeError, match="num_envs"):
        BatchedGame("extra", 2.0)
    with pytest.raises(ConfigError, match="num_players"):
        BatchedGame("extra", 2, num_players=7)
    with pytest.raises(RuntimeError, match="reset"):
        BatchedGame("extra", 2).step(np.zeros((2, 2), dtype=np.int64))


def test_bad_actions_raise_and_leave_every_game_unchanged() -> None:
    batch = BatchedGame("extra", 4, num_players=2, seed=0)
    _, masks, _ = batch.reset()
    rng = np.random.default_rng(0)
    for _ in range(3):  # get past the first throws, where every action is legal
        _, masks, *_ = batch.step(_random_actions(masks, rng))
    before = batch.states.copy()
    actions = _random_actions(masks, rng)
    with pytest.raises(ValueError, match=r"shape \(4, 2\)"):
        batch.step(actions[:, 0])
    with pytest.raises(TypeError, match="integers"):
        batch.step(actions.astype(np.float64))
    games, seats = np.nonzero(masks.sum(axis=2) < E.NUM_ACTIONS)
    b, s = int(games[-1]), int(seats[-1])
    bad = int(np.flatnonzero(masks[b, s] == 0)[0])
    actions[b, s] = bad
    legal = np.flatnonzero(masks[b, s]).tolist()
    message = rf"Extra! game {b}, player_{s}: action {bad} is illegal \(.+\); legal actions: {legal}"
    with pytest.raises(ValueError, match=message.replace("[", r"\[")):
        batch.step(actions)
    actions[b, s] = 99
    with pytest.raises(ValueError, match=r"action 99 is illegal \(actions are 0..44\)"):
        batch.step(actions)
    np.testing.assert_array_equal(batch.states, before)


def test_finished_seats_are_ignored_and_scores_are_the_engines() -> None:
    batch = BatchedGame("extra", 128, num_players=3, reward="score", seed=2)
    _, masks, info = batch.reset()
    rng = np.random.default_rng(2)
    seen_finished = 0
    for _ in range(60):
        actions = _random_actions(masks, rng)
        idle = ~info["acting"]
        seen_finished += idle.sum()
        actions[idle] = 44  # whatever a non-acting seat sends is ignored
        acted = ~idle
        _, masks, rewards, terminated, _, info = batch.step(actions)
        done_now = np.array([[E.seat_status(batch.states[b], s) == TERMINATED for s in range(3)] for b in range(128)])
        done_now[info["ended"]] = True  # an ended game's seats all finished (the game restarted since)
        assert ((rewards != 0) <= (acted & done_now)).all()  # "score": a seat is paid only in the round it finishes
        for k, b in enumerate(info["ended"]):
            scores = _scores(info["final_state"][k], 3)
            np.testing.assert_array_equal(info["final_rewards"][k], np.float32(np.array(scores) / 100))
            last = [s for s in range(3) if info["final_state"][k][E.PLAYERS + s * E.PLAYER_SIZE + E.P_FINISH_ROUND]
                    == info["final_state"][k][E.ROUND]]  # fmt: skip
            for s in range(3):
                assert rewards[b, s] == (np.float32(scores[s] / 100) if s in last else 0.0)
    assert seen_finished > 100


def test_shaped_rewards_sum_to_each_seats_final_score() -> None:
    batch = BatchedGame("extra", 256, num_players=3, reward="score", shaping=True, seed=4)
    obs, masks, _ = batch.reset()
    rng = np.random.default_rng(4)
    returns = np.zeros((256, 3))
    ended = 0
    for _ in range(150):
        acting = masks.any(axis=2)
        before = np.array([_scores(batch.states[b], 3) for b in range(256)])
        actions = _random_actions(masks, rng)
        shown = np.take_along_axis(obs[:, :, E.OBS_GAINS : E.OBS_GAINS + 45], np.maximum(actions, 0)[..., None], 2)
        obs, masks, rewards, terminated, _, info = batch.step(actions)
        np.testing.assert_allclose(np.where(acting, shown[..., 0], 0.0), rewards, atol=1e-6)  # gain slots = reward
        after = np.array([_scores(batch.states[b], 3) for b in range(256)])
        finals = np.array([_scores(state, 3) for state in info["final_state"]]).reshape(-1, 3)
        after[info["ended"]] = finals
        np.testing.assert_array_equal(rewards, ((after - before) / 100).astype(np.float32))
        assert not rewards[~acting].any()  # a finished seat gets nothing more
        returns += rewards
        for k, b in enumerate(info["ended"]):
            ended += 1
            np.testing.assert_allclose(returns[b], finals[k] / 100, atol=1e-4)
            returns[b] = 0.0
    assert ended > 300


@pytest.mark.parametrize("kwargs", [{"num_players": 2}, {"num_players": 3, "reward": "win"},
                                    {"num_players": 1, "reward": "win"}])  # fmt: skip
def test_shaping_without_the_score_reward_is_rejected(kwargs: dict) -> None:
    with pytest.raises(ConfigError, match=r"'shaping': true needs reward='score'"):
        BatchedGame("extra", 2, **kwargs, shaping=True)
    with pytest.raises(ConfigError, match=r"'shaping': true needs reward='score'"):
        parallel_env(**kwargs, shaping=True)
    with pytest.raises(ConfigError, match="shaping"):
        BatchedGame("extra", 2, num_players=1, shaping="on")


def test_returned_observations_are_fresh_arrays_and_copy_false_returns_the_buffer() -> None:
    batch = BatchedGame("extra", 8, num_players=2, seed=4)
    obs0, masks0, _ = batch.reset()
    kept, kept_masks = obs0.copy(), masks0.copy()
    rng = np.random.default_rng(4)
    obs1, masks1, *_ = batch.step(_random_actions(masks0, rng))
    np.testing.assert_array_equal(obs0, kept)  # a later step leaves earlier results alone
    np.testing.assert_array_equal(masks0, kept_masks)
    assert not np.array_equal(obs0, obs1)
    shared = BatchedGame("extra", 8, num_players=2, seed=4, copy=False)
    a, m, _ = shared.reset()
    b, *_ = shared.step(_random_actions(m, rng))
    assert a is b  # the internal buffer, overwritten in place


@pytest.mark.parametrize("num_players", [1, 2, 3, 6])
def test_all_seat_encoding_and_masks_match_the_single_seat_engine_functions(num_players: int) -> None:
    """The batch's kernel (``observe_all``: every seat at once, blocks rotated, gains from the per-sheet
    table) == ``encode_observation`` seat by seat (gains from ``pairs_gain``), bit for bit; terminal views too."""
    batch = BatchedGame("extra", 64, num_players=num_players, seed=num_players)
    obs, masks, _ = batch.reset()
    rng = np.random.default_rng(num_players)
    dim = E.observation_size(num_players)
    for _ in range(25):
        obs, masks, *_, info = batch.step(_random_actions(masks, rng))
        for k, state in enumerate(info["final_state"]):
            views = np.full((num_players, dim), np.nan, dtype=np.float32)
            E.observe_all(state, views, E.observe_scratch(state))
            assert views.tobytes() == info["final_observation"][k].tobytes()
        for b in range(0, 64, 7):
            state = batch.states[b]
            for s in range(num_players):
                one = np.full(dim, np.nan, dtype=np.float32)
                E.encode_observation(state, s, one)
                assert obs[b, s].tobytes() == one.tobytes()
                mask = np.full(E.NUM_ACTIONS, 7, dtype=np.int8)
                E.legal_mask(state, s, mask)
                np.testing.assert_array_equal(masks[b, s], mask)
                legal = {a for a in range(E.NUM_ACTIONS) if E.is_legal(state, s, a)}
                assert legal == set(np.flatnonzero(mask).tolist())
            for seat in (-1, num_players, E.MAX_PLAYERS, 99):  # out of range: never acts, nothing legal
                mask = np.full(E.NUM_ACTIONS, 7, dtype=np.int8)
                E.legal_mask(state, seat, mask)
                assert not mask.any() and not E.must_act(state, seat) and not E.is_legal(state, seat, 0)
            assert not E.is_legal(state, 0, -1) and not E.is_legal(state, 0, E.NUM_ACTIONS)


@pytest.mark.parametrize(
    "sheet",
    [{}, {"minus_boxes": [0, 12, 0, 12, 1, 11, 2, 10, 3, 0, 12], "points": [1000, 0, 5, 7, 9, 11, 1, 2, 3, 999, 4],
          "penalty": 10_000}],
)  # fmt: skip
def test_gain_slots_are_each_actions_score_change_on_any_sheet(sheet: dict) -> None:
    """The gain table (built once per sheet) gives ``pairs_gain`` for every legal action of every seat (0 at the
    illegal ids), full rows and rows with no minus box included."""
    batch = BatchedGame("extra", 32, num_players=3, seed=9, sheet=sheet)
    obs, masks, _ = batch.reset()
    rng = np.random.default_rng(9)
    checked_full_rows = 0
    for _ in range(120):
        for b in range(0, 32, 5):
            state = batch.states[b]
            for s in range(3):
                expected = np.zeros(E.NUM_ACTIONS, dtype=np.float32)
                if E.must_act(state, s):
                    for a in np.flatnonzero(masks[b, s]):
                        e, p, _ = E.decode_action(a)
                        a1, b1, a2, b2 = (int(state[E.DICE + i]) for i in E.PAIRINGS[e, p])
                        first, second = a1 + b1, a2 + b2
                        expected[a] = E.pairs_gain(state, s, first, second) * 0.01
                np.testing.assert_allclose(obs[b, s, E.OBS_GAINS : E.OBS_GAINS + E.NUM_ACTIONS], expected, rtol=1e-6)
                rows = state[E.PLAYERS + s * E.PLAYER_SIZE + E.P_ROWS :][: E.NUM_ROWS]
                checked_full_rows += int((rows == state[E.MINUS : E.MINUS + E.NUM_ROWS] + 1 + E.NUM_FACTORS).sum())
        obs, masks, *_ = batch.step(_random_actions(masks, rng))
    assert checked_full_rows > 0


def test_inactive_games_wait_untouched() -> None:
    """``step(actions, active)``: the games left out keep their state and report nothing (the seat-vs-opponents
    env relies on it)."""
    batch = BatchedGame("extra", 64, num_players=3, reward="score", shaping=True, seed=12)
    obs, masks, _ = batch.reset()
    rng = np.random.default_rng(12)
    for _ in range(80):
        active = rng.random(64) < 0.5
        before = batch.states.copy()
        obs, masks, rewards, terminated, _, info = batch.step(_random_actions(masks, rng), active)
        np.testing.assert_array_equal(batch.states[~active], before[~active])
        assert not rewards[~active].any() and not terminated[~active].any() and active[info["ended"]].all()
        assert (batch.states[active, E.ROUND] != before[active, E.ROUND]).all()  # the others played a round
