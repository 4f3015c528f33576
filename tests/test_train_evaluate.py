"""train.py and evaluate.py end to end on tiny recipes: outputs, resume after a kill, bad configs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from dicearena.agents.evaluation import evaluate
from dicearena.agents.training import train
from tests.helpers import tiny_train_recipe, write

ROOT = Path(__file__).resolve().parents[1]


def test_train_saves_model_config_checkpoints_and_score(tmp_path: Path) -> None:
    out = tmp_path / "run"
    cfg = write(tmp_path / "t.yaml", tiny_train_recipe(out, 1024))
    assert train.main([str(cfg), "--no-progress"]) == 0
    assert (out / "model.zip").is_file() and (out / "config.yaml").is_file()
    assert yaml.safe_load((out / "config.yaml").read_text())["training"]["total_timesteps"] == 1024
    assert train.latest_checkpoint(out / "checkpoints")[1] == 1024
    score = json.loads((out / "score.json").read_text())
    assert score["timesteps"] == 1024
    assert 0 < score["mean_value"] <= score["mean_optimal_value"] + 1e-12
    assert any((out / "tb").rglob("events.out.tfevents.*")), "no TensorBoard log written"


def test_train_resumes_after_a_kill_without_losing_work(tmp_path: Path) -> None:
    out = tmp_path / "run"
    cfg = write(tmp_path / "t.yaml", tiny_train_recipe(out, 10_000_000))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "train.py"), str(cfg), "--no-progress"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 120
    while train.latest_checkpoint(out / "checkpoints") is None:
        assert proc.poll() is None, proc.stdout.read()
        assert time.monotonic() < deadline, "no checkpoint within 120 s"
        time.sleep(0.2)
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, output
    assert "interrupted: saved" in output
    done = train.latest_checkpoint(out / "checkpoints")[1]
    assert done > 0
    # Finish: a total just above what is done; the run continues from the newest checkpoint.
    total = done + 512
    assert train.main([str(cfg), "--no-progress", "--total-timesteps", str(total)]) == 0
    assert train.latest_checkpoint(out / "checkpoints")[1] >= total
    assert json.loads((out / "score.json").read_text())["timesteps"] >= total


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_during_a_checkpoint_waits_for_the_checkpoint(
    signum: int, tmp_path: Path, monkeypatch, capsys
) -> None:  # fmt: skip
    """SIGTERM or Ctrl-C in the middle of a checkpoint's write: the write finishes (a KeyboardInterrupt raised inside
    torch's zip writer became a RuntimeError and the run exited 1), then the run stops with its save."""
    real_save = train.save_checkpoint
    finished: list[bool] = []

    def save_with_a_signal(*args, **kwargs):
        if not finished:
            os.kill(os.getpid(), signum)  # Python runs the handler at once, here, inside the write
            time.sleep(0.05)
        path = real_save(*args, **kwargs)
        finished.append(path.exists())
        return path

    monkeypatch.setattr(train, "save_checkpoint", save_with_a_signal)
    recipe = tiny_train_recipe(tmp_path / "run", 10_000_000)
    assert train.main([str(write(tmp_path / "t.yaml", recipe)), "--no-progress"]) == 130
    assert finished[:2] == [True, True]  # the checkpoint the signal came in, then the save on stopping
    assert "interrupted: saved" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda r: r["training"].update(total_timesteps=0), "total_timesteps"),
        (lambda r: r["training"].update(learning_rat=1), "learning_rat"),
        (lambda r: r["task"].update(id="chess"), "id"),
        (lambda r: r["task"].update(num_envs="many"), "num_envs"),
        (lambda r: r.pop("training"), "training"),
    ],
)
def test_train_bad_config_names_the_key(tmp_path: Path, capsys, change, named: str) -> None:
    recipe = tiny_train_recipe(tmp_path / "run", 1024)
    change(recipe)
    assert train.main([str(write(tmp_path / "bad.yaml", recipe))]) == 2
    assert named in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_train_bad_hyperparameter_is_a_clear_error(tmp_path: Path, capsys) -> None:
    recipe = tiny_train_recipe(tmp_path / "run", 1024)
    recipe["algorithm"]["hyperparameters"]["learning_rat"] = 0.1
    assert train.main([str(write(tmp_path / "bad.yaml", recipe))]) == 2
    assert "learning_rat" in capsys.readouterr().err


def tiny_eval_recipe(out: Path) -> dict:
    return {
        "name": "tiny_eval",
        "game": "easy_come_easy_go",
        "output_dir": str(out),
        "agents": {
            "random": {"kind": "random", "kwargs": {"seed": 0}},
            "myopic": {"kind": "eceg_myopic"},
            "exact": {"kind": "eceg_exact_turn"},
            "heuristic": {"kind": "eceg_heuristic"},
            "absent": {"kind": "sb3", "path": str(out / "nope.zip"), "if_missing": "skip"},
        },
        "turn_tasks": {
            "ones": {"config": {"prize_values": [1] * 9}},
            "drawn": {
                "config": {"value_distribution": {"kind": "uniform_int", "low": 0, "high": 3}},
                "value_vectors": 3,
            },
        },
        "round_robin": {"games_per_seating": 40},
    }


def test_evaluate_writes_tables_and_plots(tmp_path: Path, capsys) -> None:
    out = tmp_path / "eval"
    assert evaluate.main([str(write(tmp_path / "e.yaml", tiny_eval_recipe(out)))]) == 0
    printed = capsys.readouterr().out
    assert "percent of optimum" in printed and "win rate" in printed
    results = json.loads((out / "results.json").read_text())["benchmarks"]
    for task in ("ones", "drawn"):
        turn = {r["agent"]: r for r in results[f"turn_task_{task}"]}
        assert set(turn) == {"random", "myopic", "exact"}
        assert turn["exact"]["percent_of_optimum"] == pytest.approx(100.0)
        assert turn["random"]["percent_of_optimum"] < turn["myopic"]["percent_of_optimum"] < 100.0
    assert turn["myopic"]["value_vectors"] == 3
    games = results["round_robin_by_seating"]
    assert len(games) == 4 * 3  # ordered pairs of the four agents that play the full game
    assert all(r["seat_0_wins"] + r["seat_1_wins"] + r["truncated"] == r["games"] == 40 for r in games)
    overall = {r["agent"]: r for r in results["round_robin_2_players_both_seatings"]}
    assert set(overall) == {"random", "myopic", "exact", "heuristic"}
    assert overall["random"]["win_rate"] < 0.1 < overall["heuristic"]["win_rate"]
    assert (out / "evaluation.png").stat().st_size > 10_000
    assert (out / "turn_task_ones.csv").read_text().startswith("agent,")


def test_evaluate_extra_solitaire_and_tables(tmp_path: Path, capsys) -> None:
    out = tmp_path / "extra"
    recipe = {
        "name": "tiny_extra",
        "game": "extra",
        "output_dir": str(out),
        "agents": {"random": {"kind": "random", "kwargs": {"seed": 0}}, "greedy": {"kind": "extra_greedy"}},
        "solitaire": {"games": 60},
        "tables": {"player_counts": [2, 3], "games": 60},
    }
    assert evaluate.main([str(write(tmp_path / "x.yaml", recipe))]) == 0
    results = json.loads((out / "results.json").read_text())["benchmarks"]
    solo = {r["agent"]: r for r in results["solitaire"]}
    assert solo["greedy"]["mean_score"] > solo["random"]["mean_score"]
    assert all(r["games"] == 60 for r in solo.values())
    for n in (2, 3):
        rows = {r["agent"]: r for r in results[f"{n}_player_tables_seats_drawn_from_the_agents"]}
        assert sum(r["seats"] for r in rows.values()) == 60 * n
        assert rows["greedy"]["win_rate"] > rows["random"]["win_rate"]
    assert (out / "evaluation.png").is_file()


def test_evaluate_yay_tables(tmp_path: Path, capsys) -> None:
    out = tmp_path / "yay"
    recipe = {
        "name": "tiny_yay",
        "game": "yay",
        "output_dir": str(out),
        "agents": {"random": {"kind": "random", "kwargs": {"seed": 0}}, "greedy": {"kind": "yay_greedy"}},
        "tables": {"player_counts": [2, 4], "games": 80, "config": {"rows": 6, "cols": 6}},
    }
    assert evaluate.main([str(write(tmp_path / "y.yaml", recipe))]) == 0
    results = json.loads((out / "results.json").read_text())["benchmarks"]
    for n in (2, 4):
        rows = {r["agent"]: r for r in results[f"{n}_player_tables_seats_drawn_from_the_agents"]}
        assert sum(r["seats"] for r in rows.values()) == 80 * n
        assert rows["greedy"]["win_rate"] > rows["random"]["win_rate"]
        assert rows["greedy"]["mean_numbers"] > rows["random"]["mean_numbers"]
    assert "2-player tables" in capsys.readouterr().out
    recipe["tables"]["player_counts"] = [5]
    assert evaluate.main([str(write(tmp_path / "y.yaml", recipe))]) == 2
    assert "num_players" in capsys.readouterr().err


def test_a_trained_yay_seat_plays_the_tables_of_its_size_only(tmp_path: Path, capsys) -> None:
    run = tmp_path / "run"
    recipe = tiny_train_recipe(run, 512)
    recipe["task"] = {"id": "yay_vs_opponents", "config": {"opponents": "random", "game": {"rows": 5, "cols": 5}},
                      "num_envs": 16}  # fmt: skip
    assert train.main([str(write(tmp_path / "t.yaml", recipe)), "--no-progress"]) == 0
    out = tmp_path / "eval"
    evaluation = {
        "name": "yay_trained",
        "game": "yay",
        "output_dir": str(out),
        "agents": {"random": {"kind": "random"}, "greedy": {"kind": "yay_greedy"},
                   "trained": {"kind": "sb3", "path": str(run / "model.zip")}},
        "tables": {"player_counts": [2, 3], "games": 40, "config": {"rows": 5, "cols": 5}},
    }  # fmt: skip
    assert evaluate.main([str(write(tmp_path / "e.yaml", evaluation))]) == 0
    printed = capsys.readouterr().out
    assert "'trained' was trained on observations of" in printed and "at 3 players has" in printed
    assert "it sits out these tables" in printed
    results = json.loads((out / "results.json").read_text())["benchmarks"]
    two = {r["agent"] for r in results["2_player_tables_seats_drawn_from_the_agents"]}
    three = {r["agent"] for r in results["3_player_tables_seats_drawn_from_the_agents"]}
    assert two == {"random", "greedy", "trained"} and three == {"random", "greedy"}


def test_evaluate_bad_config_names_the_key(tmp_path: Path, capsys) -> None:
    recipe = tiny_eval_recipe(tmp_path / "eval")
    recipe["agents"]["myopic"]["kind"] = "extra_greedy"  # an agent of another game
    assert evaluate.main([str(write(tmp_path / "e.yaml", recipe))]) == 2
    err = capsys.readouterr().err
    assert "kind" in err and "myopic" in err
    recipe = tiny_eval_recipe(tmp_path / "eval")
    recipe["agents"]["absent"]["if_missing"] = "error"
    assert evaluate.main([str(write(tmp_path / "e.yaml", recipe))]) == 2
    assert "nope.zip" in capsys.readouterr().err
    assert evaluate.main([str(tmp_path / "missing.yaml")]) == 2


@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("*.yaml")), ids=lambda p: p.name)
def test_every_shipped_recipe_validates(path: Path, tmp_path: Path) -> None:
    """The configs/ the README points at load (and a training task's env builds) without running them."""
    raw = yaml.safe_load(path.read_text())
    if "task" in raw:
        from dicearena.agents.training.tasks import make_training_env

        recipe = train.load_recipe(path)
        env = make_training_env(recipe.task.id, recipe.task.config, 2, 0)
        if hasattr(env, "pool"):  # self-play: the pool's 'latest' member is the learner, built on the env
            env.pool.attach(recipe.algorithm.build(env, 0, str(tmp_path)).policy)
        assert env.reset().shape[0] == 2
    elif "ray" in raw:  # an RLlib recipe (dicearena.agents.training.rllib): checked without starting Ray
        from dicearena.agents.training.rllib import check_recipe

        assert check_recipe(raw).game == raw["game"]
    else:
        evaluate.load_recipe(path)


@pytest.mark.parametrize(
    ("task", "config"),
    [("easy_come_easy_go_vs_opponents", {"opponents": ["eceg_myopic"], "game": {"num_players": 2}}),
     ("extra_vs_opponents", {"opponents": "extra_greedy", "learner_seat": 1, "game": {"num_players": 3}}),
     ("yay_vs_opponents", {"opponents": ["yay_greedy"], "learner_seat": 1, "game": {"rows": 5, "cols": 5}})],
)  # fmt: skip
def test_train_a_seat_against_opponents_and_score_its_win_rate(tmp_path: Path, task: str, config: dict) -> None:
    out = tmp_path / "run"
    recipe = tiny_train_recipe(out, 512)
    recipe["task"] = {"id": task, "config": config, "num_envs": 16}
    recipe["score"] = {"samples": 40, "seed": 1}
    assert train.main([str(write(tmp_path / "t.yaml", recipe)), "--no-progress"]) == 0
    score = json.loads((out / "score.json").read_text())
    assert score["games"] == 40 and 0.0 <= score["win_rate"] <= 1.0
    assert score["ci95"][0] <= score["win_rate"] <= score["ci95"][1]
    first = config["opponents"][0] if isinstance(config["opponents"], list) else config["opponents"]
    assert score["reference_agent"] == first


@pytest.mark.parametrize(
    ("config", "message"),
    [({"opponents": [{"kind": "extra_greedy", "kwarg": {}}]}, "unknown key 'opponents.0.kwarg'"),
     ({"opponents": ["extra_greedyy"]}, "unknown agent 'extra_greedyy'"),
     ({"opponents": ["random"], "learner_seat": 2}, "learner_seat must be a seat 0..1"),
     ({"opponents": ["random"], "game": {"num_players": 1}}, "num_players must be 2 or more against opponents"),
     ({"opponents": ["random", "random"], "game": {"num_players": 4}}, "opponents: 2 given for 3 other seats"),
     ({"opponents": ["random"], "game": {"reward": "points"}}, "reward")],
)  # fmt: skip
def test_a_bad_seat_task_is_a_config_error_before_training(tmp_path: Path, capsys, config: dict, message: str) -> None:
    recipe = tiny_train_recipe(tmp_path / "run", 512)
    recipe["task"] = {"id": "extra_vs_opponents", "config": config}
    assert train.main([str(write(tmp_path / "bad.yaml", recipe)), "--no-progress"]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()  # nothing was started
