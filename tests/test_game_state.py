"""The OpenSpiel-style state API over the contract (issue 23.1): every game and task, no rule of its own."""

from __future__ import annotations

import numpy as np
import pytest

import dicearena.envs  # noqa: F401  (registers the suite's games)
import examples.pig.pig_game  # noqa: F401  (registers "pig")
from dicearena.envs.common.contract import GAMES
from dicearena.envs.common.game_aec import make_env
from dicearena.envs.common.game_state import (
    CHANCE_PLAYER,
    SIMULTANEOUS_PLAYER,
    TERMINAL_PLAYER,
    State,
    import_tasks,
    load_game,
)

IDS = sorted(GAMES) + import_tasks()


def random_step(state: State, rng: np.random.Generator) -> None:
    """One random transition: a chance outcome drawn by its probability (sampled where not enumerable), a random
    legal action, or one per deciding seat."""
    player = state.current_player()
    if player == CHANCE_PLAYER:
        if state.chance_enumerable():
            outcomes = state.chance_outcomes()
            probs = np.array([p for _, p in outcomes])
            assert probs.min() > 0 and probs.sum() == pytest.approx(1.0)
            state.apply_action(int(rng.choice(len(outcomes), p=probs / probs.sum())))
        else:
            state.sample_chance(rng)
    elif player == SIMULTANEOUS_PLAYER:
        actions = [0] * state.game.num_players()
        for seat in state.acting_players():
            legal = state.legal_actions(seat)
            assert legal, f"seat {seat} must decide but has no legal action"
            actions[seat] = int(rng.choice(legal))
        state.apply_actions(actions)
    else:
        legal = state.legal_actions()
        assert legal, f"player {player} must decide but has no legal action"
        state.apply_action(int(rng.choice(legal)))


@pytest.mark.parametrize("game", IDS)
def test_random_games_end_with_returns_and_clones_and_serialized_states_are_independent(game: str) -> None:
    g = load_game(game)
    rng = np.random.default_rng(0)
    for _ in range(3):
        state = g.new_initial_state()
        for step in range(4000):
            if state.is_terminal():
                break
            if step % 37 == 0:
                before = state.serialize()
                twin = state.clone()
                random_step(twin, np.random.default_rng(step))
                assert state.serialize() == before  # the clone moved, the original did not
                again = g.deserialize_state(before)
                assert again.serialize() == before and again.current_player() == state.current_player()
            random_step(state, rng)
        if state.is_terminal():
            assert state.current_player() == TERMINAL_PLAYER and state.legal_actions() == []
            assert state.rewards() == state.returns() or any(state.rewards())  # the ending transition paid them
            assert len(state.returns()) == g.num_players()


def test_chance_is_declared_truthfully() -> None:
    """Every chance node of an explicit-chance game enumerates; Yay! only samples."""
    assert load_game("easy_come_easy_go").explicit_chance and load_game("extra").explicit_chance
    assert load_game("easy_money_greed").explicit_chance and load_game("pig").explicit_chance
    assert not load_game("yay").explicit_chance and load_game("yay").max_chance_outcomes() == 0
    assert not load_game("easy_money").explicit_chance  # shuffles are sampled, dice enumerated
    start = load_game("easy_come_easy_go").new_initial_state()
    assert start.is_chance_node() and len(start.chance_outcomes()) == 6**4


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_resampled_state_looks_the_same_to_every_player(game: str) -> None:
    """``resample_from_infostate``: every seat's observation and legal moves unchanged; only Ea$y Money (face-down
    decks) redraws anything, and the original state is untouched."""
    rng = np.random.default_rng(5)
    state, changed = load_game(game, num_players=2).new_initial_state(), 0
    for _ in range(200):
        if state.is_terminal():
            state = state.game.new_initial_state()
        if not state.is_chance_node():
            before = state.engine_state
            other = state.resample_from_infostate(0, rng)
            assert np.array_equal(state.engine_state, before)
            changed += not np.array_equal(other.engine_state, before)
            for seat in range(2):
                assert np.array_equal(other.observation_tensor(seat), state.observation_tensor(seat))
                assert np.array_equal(other.legal_actions_mask(seat), state.legal_actions_mask(seat))
        random_step(state, rng)
    assert (changed > 50) == (game == "easy_money"), changed


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_state_from_the_aec_env_agrees_with_the_env_at_every_decision(game: str) -> None:
    """``env.state()`` loads into the state API: the same player to move, legal actions and observation; and the
    engine state goes back unchanged."""
    env = make_env(game)
    g = load_game(game)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for agent in env.agent_iter(max_iter=300):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        state = g.state_from(env.state())
        assert np.array_equal(state.engine_state, env.state())
        assert state.current_player() in (seat, SIMULTANEOUS_PLAYER)
        assert state.legal_actions(seat) == np.flatnonzero(obs["action_mask"]).tolist()
        assert np.array_equal(state.observation_tensor(seat), obs["observation"])
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_an_illegal_action_names_the_legal_ones_and_changes_nothing() -> None:
    state = load_game("easy_come_easy_go").new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node():  # (outcome 0 every time would tie the roll-off for ever)
        random_step(state, rng)
    before = state.serialize()
    illegal = next(a for a in range(state.game.num_distinct_actions()) if a not in state.legal_actions())
    with pytest.raises(ValueError, match=rf"action {illegal} .* is not legal for player_\d now: .*; legal: \["):
        state.apply_action(illegal)
    for bad in (-1, 24, "3", True):
        with pytest.raises(ValueError, match="actions are ids 0..23"):
            state.apply_action(bad)
    assert state.serialize() == before


def test_wrong_calls_say_what_to_use() -> None:
    yay = load_game("yay").new_initial_state()
    assert yay.is_chance_node() and not yay.chance_enumerable()
    with pytest.raises(ValueError, match=r"sampled, not enumerated: use sample_chance\(rng\)"):
        yay.chance_outcomes()
    extra = load_game("extra").new_initial_state()
    rng = np.random.default_rng(0)
    while not extra.is_simultaneous_node():
        random_step(extra, rng)
    with pytest.raises(ValueError, match="decide at once here; use apply_actions"):
        extra.apply_action(0)
    with pytest.raises(ValueError, match="need one action per seat"):
        extra.apply_actions([0])
    eceg = load_game("easy_come_easy_go").new_initial_state()
    with pytest.raises(ValueError, match="apply_actions is for simultaneous nodes"):
        eceg.apply_actions([0, 0])
    with pytest.raises(ValueError, match="chance outcome ids are 0..1295"):
        eceg.apply_action(1296)
    with pytest.raises(ValueError, match="players are seats 0..1"):
        eceg.observation_tensor(2)


def test_a_finished_game_takes_no_action() -> None:
    state = load_game("easy_money_greed").new_initial_state()
    rng = np.random.default_rng(1)
    while not state.is_terminal():
        random_step(state, rng)
    before = state.serialize()
    with pytest.raises(ValueError, match="the game is over"):
        state.apply_action(0)
    assert state.serialize() == before and state.is_terminal()


def test_states_from_another_config_or_of_another_shape_are_refused() -> None:
    two = load_game("yay", num_players=2)
    three = load_game("yay", num_players=3)
    with pytest.raises(ValueError, match=r"that state has 3 players, this game 2: load it with load_game\('yay'"):
        two.state_from(three.new_initial_state().engine_state)
    size = two.sizes.state
    with pytest.raises(ValueError, match=rf"shape \({size},\) under this config, got float64"):
        two.state_from(np.zeros(size))
    with pytest.raises(ValueError, match="whitespace-separated integers"):
        two.deserialize_state("1 2 x")


def test_load_game_checks_the_config_and_the_id() -> None:
    from dicearena.envs.common.config import ConfigError

    with pytest.raises(ConfigError, match="num_players"):
        load_game("yay", num_players=9)
    with pytest.raises(ValueError, match="did you mean 'yay'"):
        load_game("yayy")


@pytest.mark.parametrize("game", IDS)
def test_slot_0_of_every_engine_state_is_the_number_of_players(game: str) -> None:
    """The contract rule ``state_from`` relies on to refuse another table's state."""
    for players in ([1] if game in import_tasks() else [2, 3]):
        try:
            g = load_game(game, num_players=players) if players > 1 else load_game(game)
        except ValueError:  # a game without that many seats
            continue
        assert g.new_initial_state().engine_state[0] == g.num_players() == players
