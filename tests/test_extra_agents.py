"""Extra! agents: decoding, legality, greedy against brute force on engine states, the registry, and the
ranking random < greedy < planner, expectimax in solitaire mean score (non-overlapping 95% CIs)."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.extra import ExpectimaxAgent, GreedyAgent, PlannerAgent, decode_sheet, num_players_of
from agents.extra.evaluation import play_extra
from agents.random_agent import RandomAgent, sample_masked
from agents.stats import mean_ci
from envs.extra import engine as E
from envs.extra.batched import BatchedExtra

AGENTS = [GreedyAgent(), PlannerAgent(), ExpectimaxAgent()]


def _solitaire_scores(agent, games: int, seed: int, batch: int = 512) -> np.ndarray:
    result = play_extra(np.zeros((games, 1), dtype=np.int64), [agent], seed=seed, batch_size=batch)
    return result["scores"][:, 0]


def test_decode_sheet_reads_the_engine_state() -> None:
    batch = BatchedExtra(64, num_players=3, seed=4)
    obs, masks, _ = batch.reset()
    rng = np.random.default_rng(4)
    for _ in range(8):
        actions = sample_masked(masks.reshape(-1, E.NUM_ACTIONS), rng).reshape(64, 3)
        obs, masks, *_ = batch.step(actions)
    for seat in range(3):
        view = decode_sheet(obs[:, seat])
        block = E.PLAYERS + seat * E.PLAYER_SIZE
        states = batch.states
        np.testing.assert_array_equal(view.dice, states[:, E.DICE : E.DICE + 5])
        np.testing.assert_array_equal(view.rows, states[:, block + E.P_ROWS : block + E.P_ROWS + 11])
        np.testing.assert_array_equal(view.numbers, states[:, block + E.P_NUMBER : block + E.P_NUMBER + 3])
        np.testing.assert_array_equal(view.checks, states[:, block + E.P_CHECKS : block + E.P_CHECKS + 3])
        np.testing.assert_array_equal(view.round, states[:, E.ROUND])
    assert num_players_of(obs[:, 0]) == 3
    with pytest.raises(ValueError, match="not an Extra! observation"):
        num_players_of(np.zeros((1, 81)))


@pytest.mark.parametrize("players", [1, 3])
def test_agents_only_play_legal_actions_in_solitaire_and_the_full_game(players: int) -> None:
    for agent in AGENTS:
        batch = BatchedExtra(16, num_players=players, seed=players)
        obs, masks, _ = batch.reset()
        for _ in range(25):
            acting = masks.any(axis=2)
            actions = np.full((16, players), -1, dtype=np.int64)
            for seat in range(players):
                rows = np.flatnonzero(acting[:, seat])
                if rows.size:
                    chosen = agent.act_batch(obs[rows, seat], masks[rows, seat])
                    assert masks[rows, seat, chosen].all(), agent.name
                    actions[rows, seat] = chosen
            obs, masks, *_ = batch.step(actions)  # raises on an illegal action


def test_greedy_matches_brute_force_over_engine_afterstates() -> None:
    """Independent check of the observation decoding and the chooser: best afterstate score, by the engine."""
    agent = GreedyAgent()
    batch = BatchedExtra(32, num_players=2, seed=9)
    obs, masks, _ = batch.reset()
    rng = np.random.default_rng(9)
    checked = 0
    for _ in range(15):
        for b in range(32):
            for seat in range(2):
                legal = np.flatnonzero(masks[b, seat])
                if legal.size == 0:
                    continue
                values = []
                for action in legal:
                    state = batch.states[b].copy()
                    E.apply_action(state, seat, int(action))
                    if state[E.PHASE] == E.PHASE_DECIDE:  # the other seat still decides: resolve with its choice
                        other = 1 - seat
                        E.apply_action(state, other, int(np.flatnonzero(masks[b, other])[0]))
                    values.append(E.score(state, seat))
                chosen = agent.act(obs[b, seat], masks[b, seat])
                assert values[list(legal).index(chosen)] == max(values)
                checked += 1
        actions = sample_masked(masks.reshape(-1, E.NUM_ACTIONS), rng).reshape(32, 2)
        obs, masks, *_ = batch.step(actions)
    assert checked > 500


def test_bad_input_and_registry() -> None:
    agent = PlannerAgent()
    with pytest.raises(ValueError, match=r"masks \(B, 45\)"):
        agent.act_batch(np.zeros((2, 80)), np.ones((2, 44)))
    with pytest.raises(ValueError, match="not an Extra! observation"):
        agent.act_batch(np.zeros((2, 79)), np.ones((2, 45)))
    with pytest.raises(ValueError, match="mask is empty"):
        agent.act(np.zeros(80), np.zeros(45))
    with pytest.raises(ValueError, match="params must be 3"):
        PlannerAgent(params=(1.0, 2.0))
    assert isinstance(make_agent("extra_greedy"), GreedyAgent)
    assert isinstance(make_agent("extra_planner", sheet={"penalty": 100}), PlannerAgent)
    assert isinstance(make_agent("extra_expectimax"), ExpectimaxAgent)


def test_ranking_random_greedy_planner_expectimax_in_solitaire() -> None:
    """Means with 95% CIs; each comparison needs the intervals apart (true gaps are 5-60x the half-widths)."""
    random_ = mean_ci(_solitaire_scores(RandomAgent(seed=0), 1000, seed=1))
    greedy = mean_ci(_solitaire_scores(GreedyAgent(), 2000, seed=2))
    planner = mean_ci(_solitaire_scores(PlannerAgent(), 2000, seed=3))
    expectimax = mean_ci(_solitaire_scores(ExpectimaxAgent(), 150, seed=4, batch=150))
    assert random_[0] + random_[1] < greedy[0] - greedy[1], (random_, greedy)
    assert greedy[0] + greedy[1] < planner[0] - planner[1], (greedy, planner)
    assert greedy[0] + greedy[1] < expectimax[0] - expectimax[1], (greedy, expectimax)


def test_solitaire_policy_at_table_sees_its_own_sheet() -> None:
    """The table observation's prefix is the solitaire view: an agent gets the same answer through the adapter."""
    from agents.extra.at_table import SolitairePolicyAtTable

    batch = BatchedExtra(32, num_players=3, seed=11)
    obs, masks, _ = batch.reset()
    greedy = GreedyAgent()
    seated = SolitairePolicyAtTable(GreedyAgent())
    rng = np.random.default_rng(0)
    for _ in range(15):
        acting = masks.any(axis=-1)
        rows, seats = np.nonzero(acting)
        direct = greedy.act_batch(obs[rows, seats], masks[rows, seats])
        np.testing.assert_array_equal(seated.act_batch(obs[rows, seats], masks[rows, seats]), direct)
        assert obs.shape[-1] > E.observation_size(1)
        actions = np.full(masks.shape[:2], -1, dtype=np.int64)
        actions[rows, seats] = sample_masked(masks[rows, seats], rng)
        obs, masks, *_ = batch.step(actions)
