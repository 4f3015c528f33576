"""The shipped trained agents (agents/models, dicearena.agents.shipped): each loads by name, plays every player count
its card claims, and beats random head to head."""

from __future__ import annotations

import numpy as np
import pytest

from dicearena.agents import agent_names, make_agent, table_player
from dicearena.agents.evaluation.play import head_to_head, play_games
from dicearena.agents.evaluation.ship import main
from dicearena.agents.shipped import ShippedAgent, shipped
from dicearena.envs.common.contract import game_spec

SHIPPED = sorted(shipped())
GAMES = ("easy_come_easy_go", "easy_money", "extra", "yay")
# Not Ea$y Money: luck decides its games (its README, "What decides a game"), and its shipped agent plays at random's
# level, 0.504 [0.497, 0.511] over 20,000 games (as the heuristic nearly does: 0.522 [0.500, 0.544] over 2,000).
BEATS_RANDOM = [n for n in SHIPPED if shipped()[n]["game"] != "easy_money"]


def test_every_game_ships_an_agent() -> None:
    assert sorted({shipped()[n]["game"] for n in SHIPPED}) == sorted(GAMES)


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_agent_loads_by_name_and_says_where_it_came_from(name: str) -> None:
    card = shipped()[name]
    assert name in agent_names(card["game"])
    agent = make_agent(name)
    assert isinstance(agent, ShippedAgent) and agent.name == name
    for key in ("recipe", "commit", "players", "against", "measured"):
        assert card.get(key), f"{name}.yaml lacks {key!r}"
    if agent.reads_state:  # it plans on the engine state (a learned value table), not on observations
        assert agent.observation_space is None and card.get("loader")
        return
    spec = game_spec(card["game"])
    for players in agent.players:
        config = spec.config.model_validate(agent.table_config(players))
        assert agent.observation_space.shape == (spec.sizes(config).observation,)


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_agent_plays_every_size_it_claims(name: str) -> None:
    agent = make_agent(name)
    for players in agent.players:
        result = play_games(agent.game, np.zeros((8, players), dtype=np.int64), [agent], agent.table_config(players),
                            seed=players)  # fmt: skip
        assert result["final_rewards"].shape == (8, players)
        assert not result["truncated"].any()


@pytest.mark.parametrize("name", BEATS_RANDOM)
def test_a_shipped_agent_beats_random(name: str) -> None:
    agent = make_agent(name)
    config = agent.table_config(2)
    row = head_to_head(agent.game, agent, table_player(agent.game, "random", config), config, 400, seed=11)
    assert row["ci95"][0] > 0.5, row


def test_a_wrong_player_count_and_an_unknown_name_are_refused() -> None:
    agent = make_agent(SHIPPED[0])
    with pytest.raises(ValueError, match="was trained for"):
        agent.table_config(7)
    with pytest.raises(ValueError, match="no shipped agent 'nobody_ppo'"):
        ShippedAgent("nobody_ppo")


def test_play_games_names_a_seated_agent_that_cannot_read_the_table() -> None:
    """A model seated at a table whose observations it was not trained on is refused before any game, by name
    (SB3's own error speaks of array shapes); one in the pool but never seated is not checked."""
    name = next(n for n in SHIPPED if shipped()[n]["game"] == "easy_money")
    agent = make_agent(name)
    with pytest.raises(ValueError, match=rf"pool\[1\] cannot sit at this table: '{name}' was trained for 2"):
        play_games("easy_money", np.ones((2, 4), dtype=np.int64), [make_agent("random"), agent], {}, seed=0)
    plain = {"num_players": 2}  # the right size without the card's observation options
    with pytest.raises(ValueError, match="was trained on observations of"):
        head_to_head("easy_money", agent, make_agent("random"), plain, 4, seed=0)
    result = play_games("easy_money", np.zeros((2, 4), dtype=np.int64), [make_agent("random"), agent], {}, seed=0)
    assert result["final_rewards"].shape == (2, 4)


def test_the_demo_match_prints_a_row_per_pairing(capsys) -> None:
    name = next(n for n in SHIPPED if shipped()[n]["game"] == "easy_come_easy_go")
    assert main(["--games", "20", "--only", name]) == 0
    out = capsys.readouterr().out
    assert all(other in out for other in shipped()[name]["against"])
