"""Recipe and run faults that used to end in a traceback or silence (issue 21): each is one ``error:`` line
with a non-zero exit code, naming the key or the file."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from dicearena.agents import RandomAgent, check_agent
from dicearena.agents.evaluation import evaluate
from dicearena.agents.training import checkpoints, train
from dicearena.agents.training.checkpoints import checkpoints_newest_first
from tests.helpers import tiny_train_recipe, write


def _evaluation(out: Path, **random_kwargs: object) -> dict:
    return {"name": "e", "game": "yay", "output_dir": str(out),
            "agents": {"random": {"kind": "random", "kwargs": random_kwargs}, "greedy": {"kind": "yay_greedy"}},
            "tables": {"player_counts": [2], "games": 4, "config": {"rows": 4, "cols": 4}}}  # fmt: skip


@pytest.mark.parametrize(("seed", "says"), [(-1, "got -1"), ("x", "got str 'x'"), (True, "got bool True")])
def test_an_agents_bad_seed_is_named_before_any_game(tmp_path: Path, capsys, seed: object, says: str) -> None:
    assert evaluate.main([str(write(tmp_path / "e.yaml", _evaluation(tmp_path / "out", seed=seed)))]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: [agents.random] make_agent('random'): seed must be a non-negative int")
    assert says in err
    assert not (tmp_path / "out" / "results.json").exists()
    with pytest.raises((TypeError, ValueError), match="seed must be a non-negative int"):
        RandomAgent(seed)
    with pytest.raises((TypeError, ValueError), match="seed must be a non-negative int"):
        check_agent("random", {"seed": seed})


def test_an_empty_output_dir_override_is_refused_not_ignored(tmp_path: Path, capsys) -> None:
    cfg = write(tmp_path / "e.yaml", _evaluation(tmp_path / "out", seed=0))
    assert evaluate.main([str(cfg), "--output-dir", ""]) == 2
    assert "output_dir" in capsys.readouterr().err
    cfg = write(tmp_path / "t.yaml", tiny_train_recipe(tmp_path / "run", 64))
    assert train.main([str(cfg), "--output-dir", ""]) == 2
    assert "training.output_dir" in capsys.readouterr().err


def test_an_opponent_that_cannot_read_the_table_is_refused_before_the_model_is_built(tmp_path: Path, capsys) -> None:
    """yay_ppo reads 2-player observations; at 3 players it failed only after the model was built."""
    recipe = tiny_train_recipe(tmp_path / "run", 64)
    recipe["task"] = {"id": "yay_vs_opponents", "config": {"opponents": ["yay_ppo"], "game": {"num_players": 3}}}
    assert train.main([str(write(tmp_path / "t.yaml", recipe)), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: [task.config.opponents.0] 'yay_ppo' was trained for 2-player tables (its card)")
    assert "3 players" in err
    assert not (tmp_path / "run" / "checkpoints").exists()


def test_a_checkpoint_name_taken_by_a_folder_ends_in_an_error_line(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    (out / "checkpoints" / "model_256_steps.zip").mkdir(parents=True)
    cfg = write(tmp_path / "t.yaml", tiny_train_recipe(out, 512))
    assert train.main([str(cfg), "--no-progress"]) == 2  # it is no checkpoint that loads, and none other is there
    captured = capsys.readouterr()
    assert "skipping checkpoint model_256_steps.zip: no saved model" in captured.out
    assert captured.err.startswith("error: none of the checkpoints in") and "--fresh" in captured.err
    assert train.main([str(cfg), "--no-progress", "--fresh"]) == 1  # --fresh cannot delete a folder: said so
    err = capsys.readouterr().err
    assert err.startswith("error: could not write the run's files in") and "model_256_steps.zip" in err


def test_a_full_disk_ends_in_an_error_line_and_keeps_the_saved_checkpoints(tmp_path: Path, capsys, monkeypatch) -> None:
    out = tmp_path / "run"
    real, saves = checkpoints.save_model, [0]

    def disk_fills_up(*args, **kwargs):
        saves[0] += 1
        if saves[0] == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(checkpoints, "save_model", disk_fills_up)
    cfg = write(tmp_path / "t.yaml", tiny_train_recipe(out, 1024))
    assert train.main([str(cfg), "--no-progress"]) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert [s for s, _ in checkpoints_newest_first(out / "checkpoints")] == [256]
    monkeypatch.setattr(checkpoints, "save_model", real)
    assert train.main([str(cfg), "--no-progress"]) == 0
    assert "resuming from model_256_steps.zip" in capsys.readouterr().out


def test_a_run_whose_checkpoints_all_fail_to_load_is_not_started_over(tmp_path: Path, capsys) -> None:
    """Starting over would prune them (and clear a self-play pool): the rerun stops and names --fresh."""
    out = tmp_path / "run"
    cfg = write(tmp_path / "t.yaml", tiny_train_recipe(out, 512))
    assert train.main([str(cfg), "--no-progress"]) == 0
    saved = checkpoints_newest_first(out / "checkpoints")
    for _, path in saved:
        path.write_bytes(path.read_bytes()[:3000])
    capsys.readouterr()
    assert train.main([str(cfg), "--no-progress", "--total-timesteps", "1024"]) == 2
    captured = capsys.readouterr()
    assert "skipping checkpoint model_512_steps.zip" in captured.out
    assert captured.err.startswith("error: none of the checkpoints in") and "--fresh" in captured.err
    assert checkpoints_newest_first(out / "checkpoints") == saved and len(saved) == 2
    assert train.main([str(cfg), "--no-progress", "--total-timesteps", "1024", "--fresh"]) == 0
