"""bench/bench_training.py (time to quality) on a few seconds of Greed training, and the learning-rate schedule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from dicearena.agents.training import train
from dicearena.agents.training.sb3_recipe import AlgorithmSection
from dicearena.bench.bench_training import main, seconds_to
from tests.helpers import tiny_train_recipe, write


def test_bench_training_scores_the_policy_exactly_over_training_time(tmp_path: Path, capsys) -> None:
    out, picture = tmp_path / "curves.json", tmp_path / "curves.png"
    assert main(["greed", "--minutes", "0.1", "--every", "2", "--no-pin", "--out", str(out), "--plot",
                 str(picture)]) == 0  # fmt: skip
    result = json.loads(out.read_text())["greed"]
    curve = result["curve"]
    assert len(curve) >= 3  # every 2 s of 6, and the end
    assert [p["seconds"] for p in curve] == sorted(p["seconds"] for p in curve)
    assert [p["steps"] for p in curve] == sorted(p["steps"] for p in curve) and curve[-1]["steps"] > 0
    assert all(0.0 < p["percent"] <= 100.0 + 1e-9 for p in curve)  # exact scoring: a share of the optimum
    assert 6.0 <= result["trained_seconds"] < 6.0 + 5.0  # scoring time is not training time
    split = result["split"]
    assert set(split) == {"environment", "inference", "gradient", "other"}
    assert all(v >= 0 for v in split.values()) and sum(split.values()) == pytest.approx(1.0, abs=1e-6)
    assert split["gradient"] > 0 and split["environment"] > 0 and split["inference"] > 0
    assert picture.stat().st_size > 0
    printed = capsys.readouterr().out
    assert "target 99.9% within 120 s" in printed and "steps/s; time: environment" in printed


def test_bench_training_draws_an_earlier_run_beside_its_own_and_refuses_a_missing_one(tmp_path: Path, capsys) -> None:
    earlier = tmp_path / "earlier.json"
    curve = [{"seconds": 1.0, "steps": 100, "percent": 97.0}, {"seconds": 2.0, "steps": 200, "percent": 98.0}]
    earlier.write_text(json.dumps({"turn": {"recipe": "old_turn", "curve": curve}}))
    picture = tmp_path / "both.png"
    args = ["greed", "--minutes", "0.03", "--every", "1", "--no-pin", "--out", str(tmp_path / "c.json")]
    assert main([*args, "--plot", str(picture), "--before", str(earlier)]) == 0
    assert picture.stat().st_size > 0
    with pytest.raises(SystemExit):
        main([*args, "--before", str(tmp_path / "nope.json")])
    assert "no such file" in capsys.readouterr().err


def test_seconds_to_is_the_first_time_at_the_level() -> None:
    curve = [{"seconds": 1.0, "percent": 98.0}, {"seconds": 2.0, "percent": 99.6}, {"seconds": 3.0, "percent": 99.1}]
    assert seconds_to(curve, 99.5) == 2.0
    assert seconds_to(curve, 99.9) is None


def test_bench_training_refuses_an_unknown_task_and_two_tasks_for_one_recipe(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["gready"])
    assert "unknown task 'gready'; the tasks are turn, turn_values, greed" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["turn", "greed", "--recipe", "configs/easy_money_greed.yaml"])
    assert "name exactly one task" in capsys.readouterr().err


def test_learning_rate_end_decays_the_step_size_linearly_over_the_run(tmp_path: Path) -> None:
    from dicearena.agents.training.tasks import make_training_env

    algorithm = AlgorithmSection.model_validate(
        {"hyperparameters": {"learning_rate": 0.002, "learning_rate_end": 0.0005, "n_steps": 8, "batch_size": 32}}
    )
    model = algorithm.build(make_training_env("easy_money_greed", {}, 4, 0), 0, None)
    assert model.lr_schedule(1.0) == pytest.approx(0.002) and model.lr_schedule(0.0) == pytest.approx(0.0005)
    model.learn(64)
    assert model.policy.optimizer.param_groups[0]["lr"] == pytest.approx(0.0005, rel=0.3)  # the run's end
    constant = AlgorithmSection.model_validate({"hyperparameters": {"learning_rate": 0.002}})
    assert constant.build(make_training_env("easy_money_greed", {}, 4, 0), 0, None).lr_schedule(0.0) == 0.002


def test_a_bad_learning_rate_end_is_named(tmp_path: Path, capsys) -> None:
    recipe = tiny_train_recipe(tmp_path / "run", 1024)
    recipe["algorithm"]["hyperparameters"]["learning_rate_end"] = -0.1
    assert train.main([str(write(tmp_path / "bad.yaml", recipe))]) == 2
    assert "learning_rate_end" in capsys.readouterr().err


def test_a_recipe_with_a_schedule_trains_saves_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    recipe = tiny_train_recipe(out, 1024)
    recipe["algorithm"]["hyperparameters"]["learning_rate_end"] = 0.0
    cfg = write(tmp_path / "t.yaml", recipe)
    assert train.main([str(cfg), "--no-progress"]) == 0
    assert yaml.safe_load((out / "config.yaml").read_text())["algorithm"]["hyperparameters"]["learning_rate_end"] == 0
    assert train.main([str(cfg), "--no-progress", "--total-timesteps", "2048"]) == 0
    assert train.latest_checkpoint(out / "checkpoints")[1] == 2048
