"""``evaluate.py`` covers every task env (the Greed stop task scored exactly, one seat against fixed opponents), its
tables name their game, games per second leave compiling out, and ``dicearena ship`` sets each row beside its card."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from dicearena.agents import make_agent
from dicearena.agents.base import Agent
from dicearena.agents.easy_come_easy_go import ExactTurnAgent
from dicearena.agents.easy_money import GreedTaskExactAgent, GreedTaskThresholdAgent
from dicearena.agents.easy_money.benchmarks import cash_table
from dicearena.agents.easy_money.evaluation import score_greed_policy
from dicearena.agents.easy_money.greed_solver import sequence_value
from dicearena.agents.evaluation import evaluate, ship
from dicearena.agents.evaluation.benchmarks import benchmarks_of
from dicearena.agents.evaluation.play import compile_seconds, play_games
from dicearena.agents.evaluation.stats import rate_difference_z
from dicearena.agents.shipped import shipped
from dicearena.agents.training.tasks import make_training_env
from dicearena.envs.common.config import ConfigError
from dicearena.envs.registration import ENV_GAMES, GYMNASIUM_ENVS
from tests.helpers import write

ROOT = Path(__file__).resolve().parents[1]

# Each Gymnasium task env and the evaluate.py benchmark that scores a policy trained on it.
TASK_BENCHMARKS = {
    "dicearena/EasyComeEasyGoTurn-v0": "turn_tasks",
    "dicearena/ExtraSolitaire-v0": "solitaire",
    "dicearena/GreedStop-v0": "greed_tasks",
}


def test_every_task_env_has_an_evaluate_benchmark() -> None:
    for env_id in GYMNASIUM_ENVS:
        if not env_id.startswith("dicearena/"):
            continue  # a game registered by another test
        game = ENV_GAMES[env_id]
        key = "vs_opponents" if env_id.endswith("VsOpponents-v0") else TASK_BENCHMARKS.get(env_id)
        assert key is not None, f"{env_id} has no evaluate.py benchmark: add one (and a line here)"
        assert key in benchmarks_of(game), (env_id, sorted(benchmarks_of(game)))


def greed_model(path: Path) -> Path:
    """An (untrained) MaskablePPO of the Greed stop task, saved: what configs/easy_money_greed.yaml writes."""
    from sb3_contrib import MaskablePPO

    env = make_training_env("easy_money_greed", {"named_cash": [1, 40]}, 2, 0)
    model = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=16, policy_kwargs={"net_arch": [8]}, seed=0)
    model.save(path)
    return path.with_suffix(".zip")


def test_the_greed_recipe_scores_every_agent_exactly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = yaml.safe_load((ROOT / "configs" / "eval_easy_money_greed.yaml").read_text())
    recipe["output_dir"] = str(tmp_path / "out")
    recipe["agents"]["trained"]["path"] = str(greed_model(tmp_path / "greed"))
    recipe["agents"]["full_game"] = {"kind": "sb3", "path": str(ROOT / "agents" / "models" / "em_ppo.zip")}
    recipe["greed_tasks"]["cash_1_to_40"]["cash_rows"] = 8
    assert evaluate.main([str(write(tmp_path / "greed.yaml", recipe))]) == 0
    printed = capsys.readouterr().out
    assert "Ea$y Money: greed task cash_1_to_40" in printed  # the table names its game
    assert "'full_game' sits out greed task cash_1_to_40" in printed  # a model of the whole game cannot play it
    results = json.loads((tmp_path / "out" / "results.json").read_text())["benchmarks"]
    rows = {r["agent"]: r for r in results["greed_task_cash_1_to_40"]}
    assert list(rows) == sorted(rows, key=lambda a: -rows[a]["percent_of_optimum"])  # best first
    assert set(rows) == {"random", "heuristic", "exact", "trained"}
    optimum = np.mean([sequence_value(m) for m in range(1, 41)])
    assert all(r["optimal_units"] == pytest.approx(optimum) and r["named_cash"] == "1..40" for r in rows.values())
    assert rows["exact"]["percent_of_optimum"] == pytest.approx(100.0)
    config = {"named_cash": [1, 40]}
    threshold = score_greed_policy(GreedTaskThresholdAgent(config), config)["percent_of_optimum"]
    assert rows["heuristic"]["percent_of_optimum"] == pytest.approx(threshold) and 98 < threshold < 99.5  # min(20, M-4)
    assert rows["random"]["percent_of_optimum"] < threshold
    trained = make_agent("sb3", path=recipe["agents"]["trained"]["path"])
    direct = score_greed_policy(trained, config)["percent_of_optimum"]  # the model reads the task's observations
    assert rows["trained"]["percent_of_optimum"] == pytest.approx(direct)
    by_cash = results["greed_task_cash_1_to_40_by_m"]
    assert [r["named_cash"] for r in by_cash] == [f"{a}..{a + 4}" for a in range(1, 41, 5)]
    assert all(r["exact"] == pytest.approx(100.0) for r in by_cash)
    assert (tmp_path / "out" / "greed_task_cash_1_to_40_by_m.csv").is_file()


def test_the_cash_table_gives_each_m_or_each_range() -> None:
    config = {"named_cash": [10, 14]}
    exact = score_greed_policy(GreedTaskExactAgent(config), config)
    threshold = score_greed_policy(GreedTaskThresholdAgent(config), config)
    table = cash_table({"exact": exact["by_cash"], "threshold": threshold["by_cash"]}, rows=5)
    assert [r["named_cash"] for r in table] == ["10", "11", "12", "13", "14"]
    for row, (cash, value, optimum) in zip(table, threshold["by_cash"], strict=True):
        assert optimum == pytest.approx(sequence_value(cash)) and row["optimal_units"] == pytest.approx(optimum)
        assert row["threshold"] == pytest.approx(100 * value / optimum) and row["exact"] == pytest.approx(100.0)
    grouped = cash_table({"threshold": threshold["by_cash"]}, rows=2)
    assert [r["named_cash"] for r in grouped] == ["10..12", "13..14"]
    units = [v for _, v, _ in threshold["by_cash"]]
    optima = [o for _, _, o in threshold["by_cash"]]
    assert grouped[1]["threshold"] == pytest.approx(100 * sum(units[3:]) / sum(optima[3:]))


def vs_recipe(out: Path, **section: object) -> dict:
    return {
        "name": "vs",
        "game": "yay",
        "output_dir": str(out),
        "agents": {"random": {"kind": "random", "kwargs": {"seed": 0}}, "greedy": {"kind": "yay_greedy"}},
        "vs_opponents": {"seat_1": {"opponents": ["yay_greedy", "random"], "learner_seat": 1,
                                    "game": {"num_players": 3, "rows": 5, "cols": 5}, "games": 60, "seed": 4,
                                    **section}},
    }  # fmt: skip


def test_vs_opponents_scores_one_seat_against_fixed_opponents(tmp_path: Path, capsys) -> None:
    assert evaluate.main([str(write(tmp_path / "vs.yaml", vs_recipe(tmp_path / "a")))]) == 0
    assert "Yay!: vs_opponents seat_1: win rate in seat 1 of 3 against yay_greedy, random" in capsys.readouterr().out
    rows = json.loads((tmp_path / "a" / "results.json").read_text())["benchmarks"]["vs_opponents_seat_1"]
    by = {r["agent"]: r for r in rows}
    assert set(by) == {"random", "greedy"} and all(r["games"] == 60 for r in rows)
    assert by["greedy"]["win_rate"] > by["random"]["win_rate"]
    assert all(r["ci_low"] <= r["win_rate"] <= r["ci_high"] and 0 <= r["tie_rate"] <= r["win_rate"] for r in rows)
    assert evaluate.main([str(write(tmp_path / "vs.yaml", vs_recipe(tmp_path / "b")))]) == 0
    again = json.loads((tmp_path / "b" / "results.json").read_text())["benchmarks"]["vs_opponents_seat_1"]
    assert [(r["agent"], r["win_rate"]) for r in again] == [(r["agent"], r["win_rate"]) for r in rows]  # seeded


@pytest.mark.parametrize(
    ("section", "named"),
    [({"learner_seat": 3}, "'learner_seat' 3 is not a seat of 3 players"),
     ({"opponents": ["yay_greedy"] * 3}, "'opponents' has 3 agents"),
     ({"opponents": ["eceg_heuristic"]}, "[vs_opponents.opponents.0] agent 'eceg_heuristic' plays easy_come_easy_go"),
     ({"game": {"num_players": 3, "rows": 99}}, "[vs_opponents.game]"),
     ({"games": 0}, "vs_opponents.seat_1")],
)  # fmt: skip
def test_a_bad_vs_opponents_section_names_the_key(tmp_path: Path, capsys, section: dict, named: str) -> None:
    assert evaluate.main([str(write(tmp_path / "vs.yaml", vs_recipe(tmp_path / "out", **section)))]) == 2
    assert named in capsys.readouterr().err
    with pytest.raises(ConfigError):
        evaluate.load_recipe(tmp_path / "vs.yaml")


class CompilingAgent(Agent):
    """Plays the first legal action through a numba function of its own, compiled on its first move."""

    name = "compiling"

    def __init__(self) -> None:
        from numba import njit

        self.first = njit(lambda masks: np.argmax(masks, axis=1))  # a new function: no cache to load

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return self.first(np.ascontiguousarray(action_masks, dtype=np.int8)).astype(np.int64)


def test_games_per_second_leave_compiling_out() -> None:
    with compile_seconds() as spent:
        started = time.perf_counter()
        CompilingAgent().act_batch(np.zeros((1, 2)), np.ones((1, 2), dtype=np.int8))
        wall = time.perf_counter() - started
    assert 0 < spent[0] <= wall
    with compile_seconds() as again:
        np.zeros(3).sum()
    assert again[0] == 0.0
    seats = np.tile([0, 1], (40, 1))
    started = time.perf_counter()
    result = play_games("easy_come_easy_go", seats, [CompilingAgent(), make_agent("random", seed=0)], {}, seed=1)
    wall = time.perf_counter() - started
    assert result["compile_seconds"] > 0 and result["seconds"] > 0
    assert result["seconds"] + result["compile_seconds"] <= wall  # what games/s divides by leaves compiling out


def test_the_exact_turn_agent_is_named_for_what_it_is() -> None:
    agent = make_agent("eceg_exact_turn")
    assert isinstance(agent, ExactTurnAgent) and agent.name == "exact_turn"
    with pytest.raises(ValueError, match="unknown agent 'eceg_exact'; did you mean 'eceg_exact_turn'"):
        make_agent("eceg_exact")
    for folder in ("configs", "notebooks", "agents/models", "docs"):  # every recipe, notebook, card and doc
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".yaml", ".ipynb", ".md", ".py"):
                text = path.read_text().replace("eceg_exact_turn", "")
                assert "eceg_exact" not in text, path
    assert "eceg_exact" not in (ROOT / "README.md").read_text().replace("eceg_exact_turn", "")


def test_rate_difference_z() -> None:
    assert rate_difference_z(0.5, 100, 0.5, 4000) == 0.0
    z = rate_difference_z(0.435, 200, 0.527, 20_000)  # the demo's old eceg_td row against its card
    assert -2.7 < z < -2.5 and rate_difference_z(0.527, 20_000, 0.435, 200) == pytest.approx(-z)
    assert rate_difference_z(1.0, 10, 1.0, 10) == 0.0


def test_ship_sets_each_row_beside_its_card(capsys) -> None:
    name = "eceg_td"
    card = shipped()[name]
    assert ship.main(["--games", "40", "--only", name]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(f"{name} ")]
    assert len(rows) == len(card["against"])
    for line, measured in zip(rows, card["measured"]["head_to_head"], strict=True):
        assert measured["against"] in line and f"{measured['win_rate']:.3f}" in line
        assert f"{measured['games']:,}" in line and (line.endswith("agree") or "differ (z = " in line)
    assert "its card" in out and "--games 4000 measures as they did" in out and "leaves out compiling" in out
