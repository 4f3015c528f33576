"""The PettingZoo face of Easy Come, Easy Go: API conformance, seeding, rendering, bad input, invariants."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit
from pettingzoo.test import api_test, render_test, seed_test

from dicearena.envs import easy_come_easy_go_v0
from dicearena.envs.common.config import ConfigError
from dicearena.envs.common.dice import ScriptedDice, SeededDice
from dicearena.envs.easy_come_easy_go import engine as E
from dicearena.envs.easy_come_easy_go_v0 import raw_env
from tests.helpers import PlainStream, assert_step_rejected

FREEZE_ALL = E.FREEZE_OFFSET + 0b1111


def _play(env: pettingzoo.AECEnv, rng: np.random.Generator) -> list[tuple]:
    """One episode with random legal actions; the full trajectory for comparisons."""
    trajectory = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trajectory.append(
            (agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc, action)
        )
        env.step(action)
    return trajectory


# --- PettingZoo conformance


@pytest.mark.parametrize("num_players", [2, 5])
def test_pettingzoo_api_test(num_players: int) -> None:
    api_test(easy_come_easy_go_v0.env(num_players=num_players), num_cycles=300)


def test_pettingzoo_api_test_raw_env() -> None:
    api_test(easy_come_easy_go_v0.raw_env(num_players=3), num_cycles=300)


def test_pettingzoo_seed_test() -> None:
    seed_test(easy_come_easy_go_v0.env, num_cycles=100)
    seed_test(lambda: easy_come_easy_go_v0.env(num_players=4), num_cycles=100)


def test_pettingzoo_render_test(capsys: pytest.CaptureFixture[str]) -> None:
    render_test(easy_come_easy_go_v0.env)
    assert "Prizes:" in capsys.readouterr().out  # "human" prints the text view


def test_registered_with_pettingzoo_make() -> None:
    env = pettingzoo.make("aec", "dicearena/easy_come_easy_go-v0", num_players=3)
    env.reset(seed=1)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.metadata["name"] == "easy_come_easy_go_v0"
    assert isinstance(env.unwrapped, raw_env)


def test_spaces_and_metadata() -> None:
    env = raw_env(num_players=4)
    env.reset(seed=0)
    space = env.observation_space("player_2")
    assert space["observation"].shape == (E.observation_size(4),)
    assert space["observation"].dtype == np.float32
    assert space["action_mask"].shape == (24,) and space["action_mask"].dtype == np.int8
    assert env.action_space("player_2").n == 24
    assert set(env.metadata["render_modes"]) == {"ansi", "human", "rgb_array"}
    assert env.metadata["is_parallelizable"] is False
    for agent in env.agents:
        obs = env.observe(agent)
        assert space.contains(obs)
        assert obs["action_mask"].any() == (agent == env.agent_selection)


def test_observation_is_relative_to_the_observer() -> None:
    env = raw_env(dice=ScriptedDice([[0, 0, 0, 0], [1, 2, 3, 5]]), num_players=3, first_player=0)
    env.reset()
    env.step(4)  # player_0 takes prize 4; player_1 to act
    n = 3
    owners = E.OBS_OWNERS + 4 * (n + 1)
    counts = E.OBS_OWNERS + E.NUM_PRIZES * (n + 1)
    mine = env.observe("player_0")["observation"]
    theirs = env.observe("player_1")["observation"]
    assert mine[owners : owners + n + 1].tolist() == [0, 1, 0, 0]  # held by "me"
    assert theirs[owners : owners + n + 1].tolist() == [0, 0, 0, 1]  # held by the seat before player_1
    assert mine[counts] == pytest.approx(1 / 3) and theirs[counts + 2] == pytest.approx(1 / 3)
    assert mine[counts + n + 1] == 1.0 and theirs[counts + n] == 1.0  # whose turn, relative
    assert mine[counts + 2 * n] == pytest.approx(2 / 1000)


# --- Seeding and determinism


@pytest.mark.parametrize("seed", [0, 7, 12345])
def test_same_seed_same_20_consecutive_episodes(seed: int) -> None:
    def run() -> list[list[tuple]]:
        env = easy_come_easy_go_v0.env(num_players=3)
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        episodes = [_play(env, rng)]
        for _ in range(19):
            env.reset()  # no seed: continues the seeded stream
            episodes.append(_play(env, rng))
        return episodes

    first, second = run(), run()
    assert first == second
    assert len({tuple(e) for e in first}) == 20  # the continuation is not replaying one game


def test_reset_with_seed_reproduces_on_a_used_env() -> None:
    env = easy_come_easy_go_v0.env()
    env.reset(seed=3)
    a = _play(env, np.random.default_rng(0))
    env.reset()
    _play(env, np.random.default_rng(1))
    env.reset(seed=3)
    assert _play(env, np.random.default_rng(0)) == a
    env.reset(seed=4)
    assert _play(env, np.random.default_rng(0)) != a


def test_one_block_of_four_words_per_chance_event_in_engine_order() -> None:
    """The batched engine's stream contract (``SeededChance``): each chance event takes four random words from game
    0's keyed stream (``dicearena.envs.common.streams``), die i showing word i mod 6, so the engine replays the env
    exactly."""
    env = raw_env(num_players=3)
    env.reset(seed=99)
    rng = np.random.default_rng(5)
    words = PlainStream(np.random.SeedSequence(99).generate_state(1, np.uint64)[0])
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.start_game(state, 3, 1000, 0, -1)
    while True:
        while (k := E.dice_needed(state)) > 0:
            E.apply_chance(state, np.array(words.words(E.NUM_DICE)[:k], dtype=np.int64) % E.NUM_FACES)
        np.testing.assert_array_equal(state, env.engine_state)
        if state[E.PHASE] == E.PHASE_OVER:
            break
        action = int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
        env.step(action)
        E.apply_action(state, state[E.CURRENT], action)


# --- Bad input: raw_env raises and leaves the state alone; env() terminates with -1


def test_illegal_action_raw_env_names_it_and_the_legal_ones() -> None:
    env = raw_env(dice=ScriptedDice([[1, 2, 3, 5]]), first_player=0)
    env.reset()
    assert_step_rejected(
        env, 3, ValueError, r"illegal action 3 \(collect prize 3 \(7 exactly\)\).*Legal action ids: \[9,"
    )


@pytest.mark.parametrize(
    "bad",
    [2.5, "3", True, np.bool_(False), None, [9], np.array([9, 10]), np.array([[9]]), np.float32(9.0), np.array(9.0)],
)
def test_wrong_action_type_raw_env(bad: object) -> None:
    env = raw_env()
    env.reset(seed=0)
    assert_step_rejected(env, bad, TypeError, r"action must be an int 0\.\.23")


@pytest.mark.parametrize("ok", [np.int64(23), np.int8(23), np.uint16(23), np.array(23), np.array(23, dtype=np.int32)])
def test_numpy_integer_actions_are_accepted(ok: object) -> None:
    env = raw_env()
    env.reset(seed=0)
    turn = env.engine_state[E.TURN]
    env.step(ok)  # freeze all: the turn ends
    assert env.engine_state[E.TURN] == turn + 1


@pytest.mark.parametrize("bad", [-1, 24, 1000, 2**70, np.int64(-5)])
def test_out_of_range_action_raw_env(bad: object) -> None:
    env = raw_env()
    env.reset(seed=0)
    assert_step_rejected(env, bad, ValueError, r"out of range: actions are 0\.\.23")


def test_step_before_reset_and_after_the_end_raw_env() -> None:
    env = raw_env(max_turns=1)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    env.step(FREEZE_ALL)
    assert all(env.truncations.values())
    with pytest.raises(ValueError, match="None"):
        env.step(0)  # a dead agent may only step None
    while env.agents:
        env.step(None)
    before = env.engine_state.copy()
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(FREEZE_ALL)
    np.testing.assert_array_equal(before, env.engine_state)


def test_illegal_move_in_wrapped_env_ends_the_game_with_minus_one(caplog: pytest.LogCaptureFixture) -> None:
    env = easy_come_easy_go_v0.env(dice=ScriptedDice([[1, 2, 3, 5]]), num_players=3, first_player=1)
    env.reset()
    assert env.agent_selection == "player_1"
    env.step(3)
    assert "Illegal move" in caplog.text
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 0, "player_1": -1.0, "player_2": 0}
    _, reward, term, _, _ = env.last()
    assert term and reward == (-1.0 if env.agent_selection == "player_1" else 0)
    while env.agents:
        env.step(None)


def test_out_of_range_in_wrapped_env_is_rejected() -> None:
    """The raw env's errors (issue 21; PettingZoo's AssertOutOfBoundsWrapper gave a bare AssertionError)."""
    env = easy_come_easy_go_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action 24 is out of range: actions are 0..23"):
        env.step(24)
    with pytest.raises(TypeError, match="action must be an int 0..23"):
        env.step(2.5)


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"num_players": 7}, "num_players"),
        ({"num_players": 1}, "num_players"),
        ({"max_turns": 0}, "max_turns"),
        ({"first_player": 2}, "first_player"),
        ({"four_of_a_kind_is_two_pairs": "yes"}, "four_of_a_kind_is_two_pairs"),
        ({"win_reward": "big"}, "win_reward"),
        ({"colour": "red"}, "colour"),
        ({"config": {"num_players": 9}}, "num_players"),
    ],
)
def test_bad_config_is_a_clear_error_naming_the_key(kwargs: dict, key: str) -> None:
    with pytest.raises(ConfigError, match=key):
        raw_env(**kwargs)


def test_bad_render_mode_and_dice() -> None:
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="svg")
    with pytest.raises(TypeError, match="roll"):
        raw_env(dice=object())
    with pytest.raises(ValueError, match="faces=6"):
        raw_env(dice=SeededDice(faces=8))
    env = raw_env(dice=ScriptedDice([[1, 2, 3, 9]], faces=10), first_player=0)
    with pytest.raises(ValueError, match="0..5"):
        env.reset()


def test_render_modes_return_the_right_things() -> None:
    env = raw_env(num_players=6, render_mode="rgb_array")
    env.reset(seed=2)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 10  # a picture, not a blank canvas
    text = raw_env(render_mode="ansi")
    text.reset(seed=2)
    out = text.render()
    assert "player_" in out and "3 of a kind - all even" in out and "Last turn" in out
    assert raw_env().render() is None


def test_frozen_dice_are_drawn_differently() -> None:
    env = raw_env(dice=ScriptedDice([[3, 3, 3, 3], [3, 3, 3]]), render_mode="rgb_array", first_player=0)
    env.reset()
    before = env.render()
    env.step(E.FREEZE_OFFSET + 1)  # freeze die 0; the others re-roll to the same faces
    after = env.render()
    die0 = (slice(62, 134), slice(24, 96))
    die1 = (slice(62, 134), slice(118, 190))
    assert not np.array_equal(before[die0], after[die0])
    assert np.array_equal(before[die1], after[die1])


# --- Invariants over many random games


@njit(cache=True)
def _random_games(num_games: int, seed: int, out: np.ndarray) -> None:
    """Random legal play driven through the engine; out[g] = players, turns, winner, truncated, violations."""
    np.random.seed(seed)
    state = np.zeros(E.STATE_SIZE, np.int32)
    mask = np.zeros(E.NUM_ACTIONS, np.int8)
    faces = np.zeros(E.NUM_DICE, np.int64)
    rewards = np.zeros(E.MAX_PLAYERS)
    before = np.zeros(E.NUM_PRIZES, np.int32)
    for g in range(num_games):
        n = 2 + g % 5
        max_turns = 5 + np.random.randint(0, 200)
        first = -1 if g % 3 else np.random.randint(0, n)
        E.start_game(state, n, max_turns, (g // 5) % 2, first)
        bad = 0
        steps = 0
        while True:
            k = E.dice_needed(state)
            if k > 0:
                for i in range(k):
                    faces[i] = np.random.randint(0, E.NUM_FACES)
                E.apply_chance(state, faces)
                continue
            if state[E.PHASE] == E.PHASE_OVER:
                break
            E.legal_mask(state, state[E.CURRENT], mask)
            legal = 0
            for a in range(E.NUM_ACTIONS):
                legal += mask[a]
            if legal == 0:
                bad |= 1
                break
            pick = np.random.randint(0, legal)
            action = -1
            for a in range(E.NUM_ACTIONS):
                if mask[a]:
                    if pick == 0:
                        action = a
                        break
                    pick -= 1
            me = state[E.CURRENT]
            if action < E.NUM_PRIZES and state[E.OWNER + action] == me:
                bad |= 2
            before[:] = state[E.OWNER : E.OWNER + E.NUM_PRIZES]
            result = E.apply_action(state, state[E.CURRENT], action)
            changed = 0
            for p in range(E.NUM_PRIZES):
                owner = state[E.OWNER + p]
                if owner < E.CENTRE or owner >= n:
                    bad |= 4
                if owner != before[p]:
                    changed += 1
                    if p != result or owner != me:
                        bad |= 8
            if changed > 1:
                bad |= 8
            for s in range(n):
                if E.prizes_held(state, s) > E.PRIZES_TO_WIN:
                    bad |= 16
            steps += 1
            if steps > 100_000:
                bad |= 32
                break
        winner = state[E.WINNER]
        truncated = state[E.TRUNCATED]
        if (winner >= 0) == (truncated == 1):
            bad |= 64
        if winner >= 0 and (E.prizes_held(state, winner) < E.PRIZES_TO_WIN or state[E.CURRENT] != winner):
            bad |= 128
        if truncated == 1 and state[E.TURN] != max_turns:
            bad |= 256
        E.final_rewards(state, 1.0, -1.0, rewards)
        total = 0.0
        for s in range(n):
            total += rewards[s]
            expected = 0.0 if winner < 0 else (1.0 if s == winner else -1.0)
            if rewards[s] != expected:
                bad |= 512
        if n == 2 and total != 0.0:
            bad |= 1024
        out[g, 0] = n
        out[g, 1] = state[E.TURN]
        out[g, 2] = winner
        out[g, 3] = truncated
        out[g, 4] = bad


def test_invariants_over_10000_random_engine_games() -> None:
    out = np.zeros((10_000, 5), dtype=np.int64)
    _random_games(len(out), 2024, out)
    violations = out[out[:, 4] != 0]
    assert len(violations) == 0, f"violation codes {np.unique(violations[:, 4])} in games {violations[:5]}"
    assert set(out[:, 0].tolist()) == {2, 3, 4, 5, 6}
    assert (out[:, 2] >= 0).sum() > 1000 and (out[:, 3] == 1).sum() > 1000  # both endings happen
    for n in range(2, 7):
        winners = out[(out[:, 0] == n) & (out[:, 2] >= 0), 2]
        assert set(winners.tolist()) == set(range(n))  # every seat can win


def _check_raw_game(env: raw_env, rng: np.random.Generator) -> None:
    """One random game through raw_env, checking the invariants after every step."""
    cfg = env.config
    space = env.observation_space("player_0")
    steps = 0
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        agent = env.agent_selection
        seat = int(agent.split("_")[1])
        assert env.engine_state[E.CURRENT] == seat
        obs = env.observe(agent)
        assert space.contains(obs)
        assert obs["action_mask"].any(), "the mask is empty for the player to act"
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        owners = env.engine_state[E.OWNER : E.OWNER + E.NUM_PRIZES]
        assert ((owners >= E.CENTRE) & (owners < cfg.num_players)).all()
        assert max(int((owners == s).sum()) for s in range(cfg.num_players)) <= 3
        steps += 1
    assert steps >= 1
    winner = int(env.engine_state[E.WINNER])
    rewards = [env._cumulative_rewards[a] for a in env.possible_agents]
    if winner >= 0:
        assert all(env.terminations.values()) and not any(env.truncations.values())
        assert env.agent_selection == f"player_{winner}"
        assert int((env.engine_state[E.OWNER : E.OWNER + 9] == winner).sum()) >= 3
        assert rewards == [cfg.win_reward if s == winner else cfg.loss_reward for s in range(cfg.num_players)]
    else:
        assert all(env.truncations.values()) and not any(env.terminations.values())
        assert env.engine_state[E.TURN] == cfg.max_turns
        assert rewards == [0.0] * cfg.num_players


def test_invariants_over_random_raw_env_games() -> None:
    rng = np.random.default_rng(11)
    for n in range(2, 7):
        env = raw_env(num_players=n, max_turns=60)
        env.reset(seed=n)
        for _ in range(40):
            _check_raw_game(env, rng)
            env.reset()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=st.integers(2, 6),
    max_turns=st.integers(1, 80),
    variant=st.booleans(),
    first_player=st.one_of(st.none(), st.integers(0, 5)),
    win=st.floats(0.5, 10),
    seed=st.integers(0, 2**31 - 1),
)
def test_invariants_hypothesis(
    num_players: int, max_turns: int, variant: bool, first_player: int | None, win: float, seed: int
) -> None:
    if first_player is not None:
        first_player %= num_players
    env = raw_env(
        num_players=num_players,
        max_turns=max_turns,
        four_of_a_kind_is_two_pairs=variant,
        first_player=first_player,
        win_reward=win,
        loss_reward=-win / 2,
    )
    env.reset(seed=seed)
    _check_raw_game(env, np.random.default_rng(seed))
