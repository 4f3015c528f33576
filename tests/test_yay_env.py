"""Yay!'s PettingZoo face: PettingZoo's own tests, many random games against a recount, bad input, config."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from dicearena.envs import yay_v0
from dicearena.envs.common.config import ConfigError
from dicearena.envs.yay import engine as E
from dicearena.envs.yay.chance import ScriptedThrows, corners_at
from dicearena.envs.yay.render import layout
from tests.helpers import assert_step_rejected


@pytest.mark.parametrize("config", [{}, {"num_players": 4}, {"num_players": 3, "rows": 5, "cols": 7}])
def test_pettingzoo_api_test(config: dict) -> None:
    api_test(yay_v0.env(**config), num_cycles=300)


def test_pettingzoo_api_test_raw_env() -> None:
    api_test(yay_v0.raw_env(num_players=3), num_cycles=300)


def test_pettingzoo_seed_and_render_tests(capsys: pytest.CaptureFixture[str]) -> None:
    seed_test(yay_v0.env, num_cycles=100)
    seed_test(lambda: yay_v0.env(num_players=4, end_when="row_and_column"), num_cycles=100)
    render_test(yay_v0.env)


def test_registered_and_rendered() -> None:
    env = pettingzoo.make("aec", "dicearena/yay-v0", render_mode="rgb_array")
    env.reset(seed=1)
    image = env.render()
    width, height = layout(8, 8, 2)["picture"][2:]  # the picture's size follows from the config alone
    assert image.dtype == np.uint8 and image.shape == (height, width, 3) and image.std() > 0
    text = yay_v0.env(render_mode="ansi")
    text.reset(seed=1)
    assert "threw" in text.render() and "numbers (sum)" in text.render()


def _recount(board: np.ndarray, n: int) -> list[tuple[int, int]]:
    """(uncrossed numbers, sum) per seat, decoded by hand from the square codes."""
    out = [[0, 0] for _ in range(n)]
    for code in board.tolist():
        if code > E.BLOCKED and not code & (1 << 10):
            seat, value = (code >> 5) - 1, code & 31
            out[seat][0] += 1
            out[seat][1] += value
    return [tuple(x) for x in out]


@pytest.mark.parametrize(("num_players", "games", "config"), [(2, 400, {}), (4, 200, {"end_when": "row_and_column"})])
def test_random_games_end_with_rewards_matching_a_recount(num_players: int, games: int, config: dict) -> None:
    """Masks never empty for the player to move, numbers only ever 3..18, each game ends, rewards from a recount."""
    env = yay_v0.raw_env(num_players=num_players, **config)
    rng = np.random.default_rng(0)
    lengths = []
    for g in range(games):
        env.reset(seed=g)
        steps = 0
        returns = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            returns[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            mask = obs["action_mask"]
            assert mask.any(), f"game {g}: empty mask for {agent}"
            others = [a for a in env.agents if a != agent]
            assert not any(env.observe(a)["action_mask"].any() for a in others)
            env.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
        state = env.engine_state
        board = state[E.BOARD : E.BOARD + 64]
        values = [c & 31 for c in board.tolist() if c > E.BLOCKED]
        assert all(3 <= v <= 18 for v in values)
        assert state[E.PHASE] == E.PHASE_OVER and not state[E.TRUNCATED] and E.line_filled(state)
        counts = _recount(board, num_players)
        best = max(counts)
        expected = [1.0 if c == best else -1.0 for c in counts]
        assert list(returns.values()) == expected
        lengths.append(steps)
    assert 10 < np.mean(lengths) < 200


def test_rewards_reach_every_agent_at_the_end() -> None:
    env = yay_v0.env()
    env.reset(seed=5)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    assert sorted(returns.values()) in ([-1.0, 1.0], [1.0, 1.0])


def test_seeded_reset_replays_the_game_and_later_unseeded_ones() -> None:
    def play(env: yay_v0.raw_env, seed: int | None) -> list[int]:
        env.reset(seed=seed)
        trace = []
        while env.agents and not any(env.terminations.values()):
            mask = env.observe(env.agent_selection)["action_mask"]
            action = int(np.flatnonzero(mask)[len(trace) % mask.sum()])
            trace.append(action)
            env.step(action)
        return trace

    a, b = yay_v0.raw_env(), yay_v0.raw_env()
    assert [play(a, 9), play(a, None)] == [play(b, 9), play(b, None)]
    assert play(a, 9) != play(a, 10)


def test_bad_input_is_named_and_changes_nothing(caplog: pytest.LogCaptureFixture) -> None:
    env = yay_v0.raw_env(dice=ScriptedThrows([[6, 6, 6], [1, 1, 1], ([3, 3, 3], corners_at((3, 3), (0, 0), (6, 6)))]))
    env.reset()
    assert_step_rejected(env, 1.5, TypeError, "action must be an int 0..192")
    assert_step_rejected(env, True, TypeError, "got a bool")
    assert_step_rejected(env, 193, ValueError, r"out of range: actions are 0..192")
    assert_step_rejected(env, 2, ValueError, r"illegal action 2 \(write \d+ at row 0, col 2\).*no die touches")
    env.engine_state[E.BOARD + 27] = E.BLOCKED
    E.refresh(env.engine_state)  # a hand edit: the kept bitboards follow the sheet
    assert_step_rejected(env, 27, ValueError, "already filled")
    assert_step_rejected(env, 64 + 28, ValueError, "blocking is allowed only when")
    assert_step_rejected(env, 128 + 5, ValueError, "crossing off happens only after a throw that was not higher")
    wrapped = yay_v0.env()
    wrapped.reset(seed=0)
    agent = wrapped.agent_selection
    illegal = int(np.flatnonzero(wrapped.observe(agent)["action_mask"] == 0)[0])
    wrapped.step(illegal)
    assert "Illegal move" in caplog.text
    assert wrapped.rewards[agent] == -1.0 and all(wrapped.terminations.values())


def test_step_before_reset_and_after_the_end() -> None:
    env = yay_v0.raw_env()
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(0)
    env.reset(seed=2)
    while env.agents:
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(0)


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        ({"num_players": 5}, "'num_players'"),
        ({"rows": 2}, "'rows'"),
        ({"die_size": 3.0, "rows": 5}, r"'die_size' 3.0 does not fit a 5x8 sheet: .*\(here die_size <= 1.667\)"),
        ({"die_size": 1.2, "rows": 3, "cols": 3}, r"'die_size' 1.2 does not fit a 3x3 sheet: .*<= 1\)"),
        ({"end_when": "row"}, "'end_when'"),
        ({"landing": "aimed"}, "unknown key 'landing'"),
        ({"max_turns": 0}, "'max_turns'"),
    ],
)
def test_bad_config_names_the_key(overrides: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        yay_v0.env(**overrides)


def test_a_dice_source_without_landing_is_refused() -> None:
    from dicearena.envs.common.dice import SeededDice

    with pytest.raises(TypeError, match="land"):
        yay_v0.env(dice=SeededDice(faces=6, block=3))


def test_smaller_sheets_have_matching_spaces() -> None:
    env = yay_v0.raw_env(num_players=3, rows=4, cols=5)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert env.action_space("player_0").n == 3 * 20 + 1 == obs["action_mask"].shape[0]
    assert obs["observation"].shape == (20 * (4 + 3) + 8 + 2 * 3,)


def _sheet_as_documented(state: np.ndarray, seat: int, n: int, squares: int) -> np.ndarray:
    """README's per-square channels, written from the square codes without the engine's encoder."""
    out = np.zeros((squares, 4 + n), dtype=np.float32)
    for s in range(squares):
        code = int(state[E.BOARD + s])
        out[s, 0] = code == E.EMPTY
        out[s, 1] = code == E.BLOCKED
        out[s, 2] = state[E.TOUCHED + s]
        if code > E.BLOCKED:
            if E.is_crossed(code):
                out[s, 3] = 1
            else:
                out[s, 4 + (E.owner(code) - seat) % n] = np.float32(E.value_of(code) / 18)
    return out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_sheet_channels_read_every_square_from_the_observers_seat(n: int) -> None:
    rng = np.random.default_rng(n)
    squares = 64
    for _ in range(20):
        state = np.zeros(E.STATE_SIZE, dtype=np.int32)
        E.start_game(state, n, 8, 8, E.END_ROW_OR_COLUMN, 100, E.DEFAULT_DIE_BITS)
        state[E.PHASE] = E.PHASE_DECIDE
        kinds = rng.integers(0, 4, squares)  # empty, blocked, a number, a crossed number
        for s in range(squares):
            owner, value = int(rng.integers(0, n)), int(rng.integers(3, 19))
            state[E.BOARD + s] = [E.EMPTY, E.BLOCKED, E.number_code(owner, value), E.crossed_code(owner, value)][
                kinds[s]]
        state[E.TOUCHED : E.TOUCHED + squares] = rng.integers(0, 2, squares)
        state[E.PASSED : E.PASSED + n] = rng.integers(0, 2, n)  # rule-5 passes, read in relative seat order
        for seat in range(n):
            obs = np.zeros(E.observation_size(n, 8, 8), dtype=np.float32)
            E.observe(state, seat, obs)
            sheet = obs[: squares * (4 + n)].reshape(squares, 4 + n)
            np.testing.assert_array_equal(sheet, _sheet_as_documented(state, seat, n, squares))
            live = [(sheet[:, 4 + r] > 0).sum() / squares for r in range(n)]  # the per-seat counts after the scalars
            np.testing.assert_array_equal(obs[squares * (4 + n) + 8 : squares * (4 + n) + 8 + n], np.float32(live))
            passed = [state[E.PASSED + (seat + r) % n] for r in range(n)]
            np.testing.assert_array_equal(obs[squares * (4 + n) + 8 + n :], np.float32(passed))
