"""Rated tournaments (``dicearena.agents.evaluation.tournament``, the ``tournament`` recipe section): rotated seatings
put every entrant
in every seat equally often, ranks / pairwise counts / Bradley–Terry match plain computations, ratings order agents
of known strength and repeat exactly for a seed, and evaluate.py writes and plots them."""

from __future__ import annotations

import itertools
import json
import math
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml

from dicearena.agents import make_agent, table_player
from dicearena.agents.evaluation import evaluate
from dicearena.agents.evaluation.tournament import (
    ELO,
    bradley_terry,
    openskill_ratings,
    pairwise_wins,
    ranks_of,
    seatings,
    tournament,
)
from dicearena.agents.shipped import MODELS, shipped_card
from tests.helpers import write

GAME = "easy_come_easy_go"
MODELS_NAMES = {p.stem for p in MODELS.glob("*.yaml")}  # the shipped agents' names
KEYS = {"prize_features": True, "zero_sum": True}  # what the shipped eceg_ppo reads; every agent plays them


@pytest.mark.parametrize(("agents", "players"), [(2, 2), (5, 2), (3, 3), (5, 3), (4, 4), (6, 4)])
def test_every_agent_sits_in_every_seat_equally_often(agents: int, players: int) -> None:
    schedule = seatings(agents, players, 3)
    counts = Counter((int(a), s) for row in schedule for s, a in enumerate(row))
    assert set(counts) == {(a, s) for a in range(agents) for s in range(players)}
    assert len(set(counts.values())) == 1  # one count for every (agent, seat)
    assert all(len(set(row)) == players for row in schedule.tolist())  # distinct entrants at a table
    tables = Counter(tuple(row) for row in schedule.tolist())
    assert set(tables.values()) == {3} and len(tables) == math.comb(agents, players) * players
    if players == 2:  # every ordered pair, both seatings
        assert set(tables) == set(itertools.permutations(range(agents), 2))


def test_too_few_entrants_for_the_table_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least 4 entrants"):
        seatings(3, 4, 1)


def test_ranks_share_ties_and_pairwise_wins_match_a_plain_count() -> None:
    rng = np.random.default_rng(3)
    schedule = seatings(5, 3, 4)
    rewards = rng.integers(0, 3, size=schedule.shape).astype(float)  # many ties
    ranks = ranks_of(rewards)
    for g, row in enumerate(rewards.tolist()):
        assert ranks[g].tolist() == [sum(other > mine for other in row) for mine in row]
    wins, meetings = pairwise_wins(schedule, ranks, 5)
    plain_wins, plain_meetings = np.zeros((5, 5)), np.zeros((5, 5))
    for seats, rank in zip(schedule.tolist(), ranks.tolist(), strict=True):
        for s, t in itertools.permutations(range(3), 2):
            plain_meetings[seats[s], seats[t]] += 1
            plain_wins[seats[s], seats[t]] += 1.0 if rank[s] < rank[t] else 0.5 if rank[s] == rank[t] else 0.0
    np.testing.assert_array_equal(wins, plain_wins)
    np.testing.assert_array_equal(meetings, plain_meetings)
    np.testing.assert_array_equal(wins + wins.T, meetings)


def test_bradley_terry_recovers_known_strengths_and_their_errors() -> None:
    theta = np.array([1.0, 0.2, -0.4, -0.8])  # mean 0
    p = np.exp(theta)
    meetings = np.full((4, 4), 1000.0) - np.diag(np.full(4, 1000.0))
    wins = meetings * p[:, None] / (p[:, None] + p[None, :])  # the expected results: the MLE is theta itself
    elo, se = bradley_terry(wins, meetings, prior=0.0)
    np.testing.assert_allclose(elo, ELO * theta, atol=1e-6)

    # the errors: the sum-zero constraint's inverse Fisher information, by a plain finite-difference Hessian
    def loglik(t: np.ndarray) -> float:
        return sum(wins[i, j] * (t[i] - np.logaddexp(t[i], t[j])) for i in range(4) for j in range(4) if i != j)

    basis = np.linalg.qr(np.vstack([np.ones(4), np.eye(4)[:3]]).T)[0][:, 1:]  # directions that keep the mean 0
    h = 1e-4
    hess = np.array([[(loglik(theta + h * (u + v)) - loglik(theta + h * (u - v)) - loglik(theta - h * (u - v))
                       + loglik(theta - h * (u + v))) / (4 * h * h) for v in basis.T] for u in basis.T])  # fmt: skip
    cov = basis @ np.linalg.inv(-hess) @ basis.T
    np.testing.assert_allclose(se, ELO * np.sqrt(np.diag(cov)), rtol=1e-3)


def test_bradley_terry_stays_finite_when_an_agent_wins_every_game() -> None:
    wins = np.array([[0.0, 500.0], [0.0, 0.0]])
    elo, se = bradley_terry(wins, wins + wins.T)
    assert np.isfinite(elo).all() and np.isfinite(se).all() and elo[0] > elo[1] + 1000


def test_openskill_orders_a_strict_hierarchy_and_ties_pull_together() -> None:
    schedule = seatings(3, 2, 50)
    ranks = (schedule[:, ::-1] < schedule).astype(np.int64)  # the lower index always wins
    mu = openskill_ratings(schedule, ranks, 3)[:, 0]
    assert mu[0] > mu[1] > mu[2]
    tied = openskill_ratings(schedule, np.zeros_like(ranks), 3)
    np.testing.assert_allclose(tied[:, 0], 25.0, atol=0.5)  # all draws: nobody moves far from the prior
    assert (tied[:, 1] < 25 / 3).all()  # ... but every one is surer


KNOWN = (("random", "random", {"seed": 0}), ("myopic", "eceg_myopic", {}), ("heuristic", "eceg_heuristic", {}))


def _agents(num_players: int) -> dict:
    """Three agents of known order: random < myopic (the best single turn) < the full-game heuristic."""
    config = {**KEYS, "num_players": num_players}
    return {name: table_player(GAME, kind, config, **kwargs) for name, kind, kwargs in KNOWN}


def test_same_seed_same_ratings_and_known_strengths_in_order() -> None:
    first = tournament(GAME, _agents(2), 2, 100, KEYS, seed=7, progress=False)
    again = tournament(GAME, _agents(2), 2, 100, KEYS, seed=7, progress=False)
    assert first.ratings == again.ratings and first.pairwise == again.pairwise
    other = tournament(GAME, _agents(2), 2, 100, KEYS, seed=8, progress=False)
    assert other.ratings != first.ratings
    assert first.games == 6 * 100 and all(r["games"] == 2 * 2 * 100 for r in first.ratings)
    assert [r["agent"] for r in first.ratings] == ["heuristic", "myopic", "random"]  # by openskill's ordinal
    elo = {r["agent"]: r["bt_elo"] for r in first.ratings}
    assert elo["random"] < elo["myopic"] < elo["heuristic"]
    assert all(r["sigma"] < 25 / 3 for r in first.ratings)
    rates = {(r["agent"], r["opponent"]): r for r in first.pairwise}
    assert len(rates) == 6 and all(r["games"] == 200 for r in rates.values())
    for (a, b), r in rates.items():
        assert r["win_rate"] + rates[b, a]["win_rate"] == pytest.approx(1.0)
        assert r["ci_low"] <= r["win_rate"] <= r["ci_high"]
    assert rates["heuristic", "random"]["ci_low"] > 0.9


def test_a_three_player_tournament_rotates_the_seats() -> None:
    agents = {**_agents(3), "random_2": make_agent("random", seed=1)}
    result = tournament(GAME, agents, 3, 10, KEYS, seed=1, progress=False)
    assert result.games == 4 * 3 * 10  # 4 sets of 3 entrants, 3 rotations each
    assert {r["agent"]: r["games"] for r in result.ratings} == dict.fromkeys(agents, 3 * 3 * 10)
    assert all(r["games"] == 2 * 3 * 10 for r in result.pairwise)  # 2 sets hold a given pair, 3 rotations each
    share = sum(r["win_share"] * r["games"] for r in result.ratings)
    assert share == pytest.approx(result.games)  # every game hands out one first place


def _recipe(out: Path, **section) -> dict:
    return {"name": "tiny_tournament", "game": GAME, "output_dir": str(out),
            "agents": {"random": {"kind": "random", "kwargs": {"seed": 0}}, "myopic": {"kind": "eceg_myopic"},
                       "heuristic": {"kind": "eceg_heuristic"}},
            "tournament": {"config": KEYS, "games_per_seating": 20, **section}}  # fmt: skip


def _fake_pool(run: Path) -> Path:
    """A self-play run folder whose pool holds one snapshot: the shipped eceg_ppo (a 2-player model), with the
    recipe that trained it (its card's), which names the advisor its snapshots read."""
    (run / "pool").mkdir(parents=True)
    (run / "config.yaml").write_text(yaml.safe_dump(shipped_card("eceg_ppo")["recipe"]))
    shutil.copy(MODELS / "eceg_ppo.zip", run / "pool" / "snapshot_000000000007.zip")
    (run / "pool" / "pool.json").write_text(json.dumps({"snapshots": [{"file": "snapshot_000000000007.zip",
                                                                       "steps": 7}]}))  # fmt: skip
    return run


def test_evaluate_writes_plots_and_seats_a_pool(tmp_path: Path, capsys) -> None:
    out = tmp_path / "eval"
    recipe = _recipe(out, player_counts=[2, 3], pool=str(_fake_pool(tmp_path / "run")))
    assert evaluate.main([str(write(tmp_path / "t.yaml", recipe))]) == 0
    printed = capsys.readouterr().out
    assert "'snapshot_7' sits out the 3-player tournament" in printed and "games/s" in printed
    results = json.loads((out / "results.json").read_text())["benchmarks"]
    two = {r["agent"] for r in results["2_player_tournament_ratings"]}
    three = {r["agent"] for r in results["3_player_tournament_ratings"]}
    assert two == {"random", "myopic", "heuristic", "snapshot_7"} and three == {"random", "myopic", "heuristic"}
    assert len(results["2_player_tournament_pairwise_win_rates"]) == 4 * 3
    assert (out / "2_player_tournament_ratings.csv").read_text().startswith("rank,agent,mu,sigma,ordinal,bt_elo")
    assert (out / "3_player_tournament_pairwise_win_rates.csv").read_text().startswith("agent,opponent,games")
    assert (out / "evaluation.png").stat().st_size > 10_000


@pytest.mark.parametrize(
    ("section", "message"),
    [({"games_per_seating": 0}, "games_per_seating"), ({"player_counts": [7]}, "player_counts"),
     ({"snapshots": ["snapshot_1"]}, "'snapshots' picks from a 'pool'"), ({"pool": "no/such/run"}, "'pool'"),
     ({"config": {"num_players": 2}}, "num_players"), ({"config": {"prize_featurs": True}}, "prize_featurs"),
     ({"player_counts": [4]}, "4-player tables need at least 4 entrants")],
)  # fmt: skip
def test_a_bad_tournament_section_names_the_key(tmp_path: Path, capsys, section: dict, message: str) -> None:
    assert evaluate.main([str(write(tmp_path / "t.yaml", _recipe(tmp_path / "eval", **section)))]) == 2
    assert message in capsys.readouterr().err


def test_unknown_pool_snapshots_are_named(tmp_path: Path, capsys) -> None:
    recipe = _recipe(tmp_path / "eval", pool=str(_fake_pool(tmp_path / "run")), snapshots=["snapshot_8"])
    assert evaluate.main([str(write(tmp_path / "t.yaml", recipe))]) == 2
    err = capsys.readouterr().err
    assert "['snapshot_8']" in err and "['snapshot_7']" in err


@pytest.mark.parametrize("game", ["easy_come_easy_go", "easy_money", "extra", "yay"])
def test_each_games_tournament_recipe_rates_every_agent_and_the_shipped_ones_sit_out_4_player_tables(
    game: str, tmp_path: Path, capsys
) -> None:
    """The bundled ``configs/tournament_<game>.yaml``, shortened to 2 games a seating: every agent is rated at 2
    players; the shipped agents (2-player cards) sit out the 4-player tables, the rest play them."""
    recipe = yaml.safe_load((Path(__file__).parents[1] / "configs" / f"tournament_{game}.yaml").read_text())
    recipe["output_dir"] = str(tmp_path / "out")
    recipe["tournament"]["games_per_seating"] = 2
    assert evaluate.main([str(write(tmp_path / "t.yaml", recipe))]) == 0
    printed = capsys.readouterr().out
    shipped = {name for name, spec in recipe["agents"].items() if spec["kind"] in MODELS_NAMES}
    assert "search" in recipe["agents"] and len(shipped) >= 1
    results = json.loads((tmp_path / "out" / "results.json").read_text())["benchmarks"]
    assert {r["agent"] for r in results["2_player_tournament_ratings"]} == set(recipe["agents"])
    assert {r["agent"] for r in results["4_player_tournament_ratings"]} == set(recipe["agents"]) - shipped
    for name in shipped:
        assert f"'{name}' was trained for 2-player tables (its card); this one has 4 players: it sits out" in printed
    assert (tmp_path / "out" / "evaluation.png").stat().st_size > 10_000
