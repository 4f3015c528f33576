"""Yay! on the game contract: its chance model (faces and touched squares), injected outcomes and the header.

The generic faces themselves are checked by tests/test_conformance.py; here what is Yay!'s own: a landing drawn
from the random words, touched squares a test scripts directly, the refusals, and that the game's own AEC env and
the generic one play the same game from the same chance.
"""

from __future__ import annotations

import numpy as np
import pytest

import dicearena.envs  # noqa: F401  (registers the games)
from dicearena.agents.random_agent import sample_masked
from dicearena.envs.common.chance import ScriptedChance
from dicearena.envs.common.contract import CHANCE, game_spec
from dicearena.envs.common.game_aec import GameAEC
from dicearena.envs.yay import engine as E
from dicearena.envs.yay.chance import ScriptedThrows, SeededThrows, corners_at
from dicearena.envs.yay.config import YayConfig
from dicearena.envs.yay_v0 import raw_env
from tests.yay_scripts import sq


def touched_by(corners: np.ndarray, rows: int = 8, cols: int = 8, die_size: float = 1.27) -> list[int]:
    out = np.zeros(rows * cols, dtype=np.int32)
    E.touched_squares(np.asarray(corners, dtype=np.float64), die_size, rows, cols, out)
    return out.tolist()


def test_a_throw_is_three_faces_and_the_squares_its_landing_touches() -> None:
    config = YayConfig(die_size=1.5, rows=9, cols=7)
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.init_state(state, E.header(config))
    assert E.die_size_of(state) == pytest.approx(1.5) and state[E.ROWS] == 9 and state[E.COLS] == 7
    sizes = game_spec("yay").sizes(config)
    assert (sizes.outcome, sizes.words) == (3 + 63, 4)
    state[E.PHASE] = E.PHASE_THROW
    assert E.to_act(state) == CHANCE and E.chance_words(state) == 4
    words = np.array([6 * 11 + 2, 5, 6 * 7 + 4, 2**63 - 1], dtype=np.int64)
    outcome = np.zeros(sizes.outcome, dtype=np.int32)
    E.draw_outcome(state, words, outcome)
    corners = np.zeros((3, 2))
    E.sample_landing(int(words[3]) % E.LANDING_KEYS, 1.5, 9, 7, corners)
    assert outcome[:3].tolist() == [2, 5, 4]
    assert outcome[3:].tolist() == touched_by(corners, 9, 7, 1.5) and 3 <= outcome[3:].sum() <= 27
    state[E.PHASE] = E.PHASE_START
    E.draw_outcome(state, words, outcome)
    assert outcome[:3].tolist() == [2, 5, 4] and not outcome[3:].any()  # a start roll lands nowhere
    assert E.enumerate_outcomes(state, np.zeros((1, sizes.outcome), np.int32), np.zeros(1)) == -1


def test_an_injected_throw_scripts_touched_squares_directly_and_the_game_agrees_with_the_yay_env() -> None:
    landing = corners_at((3, 3), (0, 0), (6, 6))
    old = raw_env(dice=ScriptedThrows([[6, 6, 6], [1, 1, 1], ([3, 4, 5], landing), ([2, 2, 2], landing)]))
    old.reset()
    scripted = [[5, 5, 5], [0, 0, 0], [2, 3, 4, *touched_by(landing)], [1, 1, 1, *touched_by(landing)]]
    new = GameAEC("yay", chance=ScriptedChance(scripted))
    new.reset()
    np.testing.assert_array_equal(new.state(), old.engine_state)  # the same game, header included
    touched = {sq(r + dr, c + dc) for r, c in ((3, 3), (0, 0), (6, 6)) for dr in (0, 1) for dc in (0, 1)}
    assert set(np.flatnonzero(new.observe("player_0")["action_mask"]).tolist()) == touched  # write on any
    for env in (old, new):
        env.step(sq(3, 3))
    np.testing.assert_array_equal(new.state(), old.engine_state)
    assert new.state()[E.BOARD + sq(3, 3)] == E.number_code(0, 12)
    one_square = GameAEC("yay", chance=ScriptedChance([[5, 5, 5], [0, 0, 0], [0, 0, 0, *([0] * 27), 1]]))
    one_square.reset()  # a throw a landing could not make: one square touched (square 27), as a test may want
    assert np.flatnonzero(one_square.observe("player_0")["action_mask"]).tolist() == [27]


@pytest.mark.parametrize(
    ("throw", "words"),
    [([6, 0, 0], "face 0..5"), ([0, 0, 0, 2], "0 or 1"), ([0, 0, 0], "at least one square")],
)
def test_an_impossible_injected_outcome_is_refused_in_the_rules_words(throw: list[int], words: str) -> None:
    env = GameAEC("yay", chance=ScriptedChance([[5, 5, 5], [0, 0, 0], throw]))
    with pytest.raises(ValueError, match=rf"refused: .*{words}.*unchanged"):
        env.reset()


def test_shaping_is_paid_by_the_contract_faces_and_telescopes_to_the_final_rewards() -> None:
    """``shaping``: the AEC env and the batched engine pay the same change of lead every step; returns stay +-1."""
    from dicearena.envs.common.game_batch import BatchedGame

    env, batch = GameAEC("yay", shaping=True), BatchedGame("yay", 1, seed=3, shaping=True)
    env.reset(seed=3)
    _, masks, _ = batch.reset()
    rng = np.random.default_rng(3)
    returns, shaped, ended = np.zeros(2), 0, 0
    while ended < 3:
        action = int(sample_masked(masks, rng)[0])
        env.step(action)
        _, masks, rewards, terminated, truncated, info = batch.step(np.array([action]))
        np.testing.assert_allclose([env.rewards[a] for a in env.possible_agents], rewards[0], atol=1e-6)
        returns += rewards[0]
        shaped += bool(rewards[0].any())
        if terminated[0] or truncated[0]:
            ended += 1
            np.testing.assert_allclose(returns, info["final_rewards"][0], atol=1e-5)
            returns[:] = 0.0
            env.reset()
    assert shaped > 10


def test_random_games_through_the_contract_pay_the_engines_final_rewards() -> None:
    env, rng = GameAEC("yay", num_players=3, rows=6, cols=7, die_size=1.2), np.random.default_rng(0)
    for episode in range(3):
        env.reset(seed=episode)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            returns[agent] += reward
            env.step(None if terminated or truncated else int(sample_masked(obs["action_mask"][None], rng)[0]))
        state = env.state()
        assert E.status(state) != 0 and E.die_size_of(state) == pytest.approx(1.2)
        assert list(returns.values()) == [E.final_reward(state, s) for s in range(3)]


class Recording(SeededThrows):
    """The Yay! env's own seeded throws, each event recorded as the contract's outcome (faces, touched flags)."""

    def __init__(self, seed: int, rows: int, cols: int, die_size: float) -> None:
        super().__init__(seed)
        self.sheet = rows, cols, die_size
        self.events: list[list[int]] = []

    def roll(self, n: int) -> np.ndarray:
        faces = super().roll(n)
        self.events.append(faces.tolist())
        return faces

    def land(self, die_size: float, rows: int, cols: int) -> np.ndarray:
        corners = super().land(die_size, rows, cols)
        self.events[-1] += touched_by(corners, rows, cols, die_size)
        return corners


@pytest.mark.parametrize("config", [{}, {"num_players": 3, "max_turns": 9, "rows": 5, "cols": 9, "die_size": 1.1}])
def test_the_contract_env_plays_the_yay_env_s_games_move_for_move(config: dict) -> None:
    cfg = YayConfig(**config)
    for episode in range(4):
        source = Recording(episode, cfg.rows, cfg.cols, cfg.die_size)
        old, rng, actions = raw_env(config=cfg, dice=source), np.random.default_rng(episode), []
        old.reset()
        for _ in old.agent_iter():
            obs, _, terminated, truncated, _ = old.last()
            actions.append(None if terminated or truncated else int(sample_masked(obs["action_mask"][None], rng)[0]))
            old.step(actions[-1])
        source.events.append([0, 0, 0])  # never used: lets the replay check that no extra chance event happens
        new = GameAEC("yay", config=cfg, chance=ScriptedChance(source.events))
        old = raw_env(config=cfg, dice=SeededThrows(episode))  # the recorded game again, compared step by step
        old.reset()
        new.reset()
        for action in actions:
            np.testing.assert_array_equal(new.state(), old.engine_state)
            assert new.agent_selection == old.agent_selection and new.rewards == old.rewards
            assert (new.terminations, new.truncations) == (old.terminations, old.truncations)
            for agent in old.agents:
                for key in ("observation", "action_mask"):
                    np.testing.assert_array_equal(new.observe(agent)[key], old.observe(agent)[key])
                assert new.infos[agent] == old.infos[agent]
            old.step(action)
            new.step(action)
        np.testing.assert_array_equal(new.state(), old.engine_state)
        assert not new.agents and not old.agents and new.chance.remaining == 1
