"""Faults that cost users their work: kills during a save, damaged or planted model files, edited recipes on
resume, finished runs, and every recipe mistake as one ``error:`` line (exit 2) before any work starts."""

from __future__ import annotations

import base64
import json
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from dicearena.agents import make_agent
from dicearena.agents.evaluation import evaluate
from dicearena.agents.training import train
from dicearena.agents.training.checkpoints import checkpoints_newest_first
from tests.helpers import tiny_train_recipe, write

ROOT = Path(__file__).resolve().parents[1]


def recipe_for(out: Path, total: int, **training: object) -> dict:
    recipe = tiny_train_recipe(out, total, **training)
    recipe["algorithm"]["hyperparameters"]["learning_rate"] = 0.001
    return recipe


def steps_on_disk(out: Path) -> list[int]:
    return [steps for steps, _ in checkpoints_newest_first(out / "checkpoints")]


# --- Checkpoints: atomic, bounded, resumed from the newest that loads


_KILL_DURING_SECOND_SAVE = """
import os, signal, sys, zipfile
sys.path.insert(0, {root!r})
real = zipfile.ZipFile.writestr
saves = [0]
def writestr(self, name, data, *args, **kwargs):
    if str(getattr(name, "filename", name)) == "dicearena.json":  # the last entry of a checkpoint being saved
        saves[0] += 1
        if saves[0] == 2:
            os.kill(os.getpid(), signal.SIGKILL)
    return real(self, name, data, *args, **kwargs)
zipfile.ZipFile.writestr = writestr
from dicearena.agents.training import train
sys.exit(train.main([{cfg!r}, "--no-progress"]))
"""


def test_a_kill_during_a_checkpoint_save_leaves_no_partial_file_and_the_run_resumes(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    cfg = write(tmp_path / "t.yaml", recipe_for(out, 1024))
    script = _KILL_DURING_SECOND_SAVE.format(root=str(ROOT), cfg=str(cfg))
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == -9, proc.stdout + proc.stderr  # killed mid-save
    assert steps_on_disk(out) == [256]  # the checkpoint being written never appeared under its name
    assert train.main([str(cfg), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "resuming from model_256_steps.zip" in printed
    assert steps_on_disk(out)[0] == 1024
    assert not list((out / "checkpoints").glob(".*.tmp"))  # the killed save's temp file was cleared away


def test_resume_skips_a_damaged_newest_checkpoint_and_says_so(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    cfg = write(tmp_path / "t.yaml", recipe_for(out, 512))
    assert train.main([str(cfg), "--no-progress"]) == 0
    newest = out / "checkpoints" / "model_512_steps.zip"
    damaged = out / "checkpoints" / "model_9999_steps.zip"
    damaged.write_bytes(newest.read_bytes()[:5000])  # what a kill or a full disk mid-write used to leave
    capsys.readouterr()
    assert train.main([str(cfg), "--no-progress", "--total-timesteps", "768"]) == 0
    printed = capsys.readouterr().out
    assert "skipping checkpoint model_9999_steps.zip" in printed
    assert "resuming from model_512_steps.zip" in printed


def test_only_the_newest_checkpoints_are_kept(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert train.main([str(write(tmp_path / "t.yaml", recipe_for(out, 2048))), "--no-progress"]) == 0
    assert steps_on_disk(out) == [2048, 1792, 1536]  # default keep_checkpoints: 3
    out2 = tmp_path / "run2"
    assert train.main([str(write(tmp_path / "t2.yaml", recipe_for(out2, 1024, keep_checkpoints=1))),
                       "--no-progress"]) == 0  # fmt: skip
    assert steps_on_disk(out2) == [1024]


# --- Model files run no code


class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({str(self.marker)!r}, 'w').write('ran')",))


def plant_payload(model_zip: Path, marker: Path) -> None:
    """Rewrite every serialized entry of ``model_zip``'s data as a pickle that writes ``marker`` when loaded."""
    with zipfile.ZipFile(model_zip) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(entries["data"])
    payload = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
    planted = 0
    for value in data.values():
        if isinstance(value, dict) and ":serialized:" in value:
            value[":serialized:"] = payload
            planted += 1
    assert planted >= 5  # policy class, spaces, schedules, policy_kwargs
    entries["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(model_zip, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)


def test_the_planted_payload_would_run_under_plain_unpickling(tmp_path: Path) -> None:
    """The test's payload is live: SB3's own loader runs it (which is why we never use that loader)."""
    from stable_baselines3.common.save_util import json_to_data

    out = tmp_path / "run"
    assert train.main([str(write(tmp_path / "t.yaml", recipe_for(out, 256))), "--no-progress"]) == 0
    marker = tmp_path / "ran.txt"
    plant_payload(out / "model.zip", marker)
    with zipfile.ZipFile(out / "model.zip") as archive:
        json_to_data(archive.read("data").decode())
    assert marker.read_text() == "ran"


def test_loading_a_planted_model_runs_nothing_on_any_path(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    cfg = write(tmp_path / "t.yaml", recipe_for(out, 512))
    assert train.main([str(cfg), "--no-progress"]) == 0
    marker = tmp_path / "ran.txt"
    plant_payload(out / "model.zip", marker)
    for _, checkpoint in checkpoints_newest_first(out / "checkpoints"):
        plant_payload(checkpoint, marker)

    agent = make_agent("sb3", path=out / "model.zip")  # 1. make_agent
    masks = np.zeros((4, 24), dtype=np.int8)
    masks[:, 10:] = 1
    assert np.all(agent.act_batch(np.zeros((4, 86), np.float32), masks) >= 10)

    evaluation = {"name": "planted", "game": "easy_come_easy_go", "output_dir": str(tmp_path / "eval"),
                  "agents": {"trained": {"kind": "sb3", "path": str(out / "model.zip")},
                             "myopic": {"kind": "eceg_myopic"}},
                  "turn_tasks": {"ones": {"config": {"prize_values": [1] * 9}, "value_vectors": 1}}}  # fmt: skip
    assert evaluate.main([str(write(tmp_path / "e.yaml", evaluation))]) == 0  # 2. evaluate.py kind sb3

    assert train.main([str(cfg), "--no-progress", "--total-timesteps", "768"]) == 0  # 3. resume
    assert "resuming from model_512_steps.zip" in capsys.readouterr().out
    assert not marker.exists()


def test_a_loaded_model_plays_like_the_saved_one(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    from dicearena.envs.easy_come_easy_go.turn_task import EasyComeEasyGoTurnVecEnv

    env = EasyComeEasyGoTurnVecEnv(8, config={"prize_values": [1] * 9}, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, seed=0,
                        policy_kwargs={"net_arch": {"pi": [12, 6], "vf": [5]}})  # fmt: skip
    model.learn(256)
    model.save(tmp_path / "model.zip")
    agent = make_agent("sb3", path=tmp_path / "model.zip", deterministic=False)
    obs, masks = env.reset(), env.action_masks()
    for seed in range(3):
        agent.reset(seed)
        mine = agent.act_batch(obs, masks)
        model.set_random_seed(seed)
        theirs, _ = model.predict(obs, deterministic=False, action_masks=masks)
        assert np.array_equal(mine, theirs)


def test_a_file_that_is_not_a_model_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "notes.zip"
    bad.write_text("not a zip")
    with pytest.raises(ValueError, match="notes.zip: not a readable zip file"):
        make_agent("sb3", path=bad)


# --- Resume applies edits it can, refuses the rest, and a finished run stays finished


def test_resume_applies_an_edited_learning_rate(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    recipe = recipe_for(out, 512)
    assert train.main([str(write(tmp_path / "t.yaml", recipe)), "--no-progress"]) == 0
    recipe["algorithm"]["hyperparameters"]["learning_rate"] = 0.0001
    recipe["training"]["total_timesteps"] = 768
    capsys.readouterr()
    assert train.main([str(write(tmp_path / "t.yaml", recipe)), "--no-progress"]) == 0
    assert "algorithm.hyperparameters.learning_rate: 0.001 -> 0.0001" in capsys.readouterr().out
    with zipfile.ZipFile(out / "model.zip") as archive:
        assert json.loads(archive.read("data"))["learning_rate"] == 0.0001


def test_resume_refuses_a_changed_network_naming_the_key(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    recipe = recipe_for(out, 256)
    assert train.main([str(write(tmp_path / "t.yaml", recipe)), "--no-progress"]) == 0
    config_before = (out / "config.yaml").read_text()
    recipe["algorithm"]["policy_kwargs"]["net_arch"] = [32]
    recipe["training"]["total_timesteps"] = 512
    assert train.main([str(write(tmp_path / "t.yaml", recipe)), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "algorithm.policy_kwargs.net_arch" in err and "--fresh" in err
    assert (out / "config.yaml").read_text() == config_before and steps_on_disk(out)[0] == 256
    assert train.main([str(write(tmp_path / "t.yaml", recipe)), "--no-progress", "--fresh"]) == 0


def test_a_time_limited_run_that_is_done_stays_done(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    cfg = write(tmp_path / "t.yaml", recipe_for(out, 10_000_000, time_limit_minutes=0.002))
    assert train.main([str(cfg), "--no-progress"]) == 0
    done = steps_on_disk(out)[0]
    assert 0 < done < 10_000_000
    capsys.readouterr()
    assert train.main([str(cfg), "--no-progress"]) == 0
    assert "already done" in capsys.readouterr().out
    assert steps_on_disk(out)[0] == done
    assert json.loads((out / "score.json").read_text())["timesteps"] == done


# --- Every recipe mistake: one error line, exit code 2, nothing started


def _set(path: str, value: object):
    def change(recipe: dict) -> None:
        *parents, key = path.split(".")
        node = recipe
        for part in parents:
            node = node.setdefault(part, {})
        node[key] = value

    return change


BAD_TRAIN_VALUES = [
    ("algorithm.hyperparameters.learning_rate", "fast", "learning_rate"),
    ("algorithm.hyperparameters.learning_rate", -1, "learning_rate"),
    ("algorithm.hyperparameters.n_steps", 0, "n_steps"),
    ("algorithm.hyperparameters.n_epochs", -1, "n_epochs"),
    ("algorithm.hyperparameters.gamma", 2.0, "gamma"),
    ("algorithm.policy_kwargs.activation_fn", "Swish", "activation_fn"),
    ("training.seed", -1, "seed"),
    ("training.seed", 2**64, "seed"),
    ("score.seed", -1, "seed"),
    ("training.output_dir", "", "output_dir"),
    ("training.keep_checkpoints", 0, "keep_checkpoints"),
    ("name", "../../x", "name"),
    ("task.config.value_distribution", {"kind": "uniform_int", "low": 0, "high": 2**64}, "high"),
]


@pytest.mark.parametrize(("key", "value", "named"), BAD_TRAIN_VALUES, ids=lambda v: str(v)[:30])
def test_a_bad_train_value_is_one_error_line(tmp_path: Path, capsys, key: str, value: object, named: str) -> None:
    recipe = recipe_for(tmp_path / "run", 256)
    if key.startswith("task.config.value"):
        recipe["task"]["config"] = {}
    _set(key, value)(recipe)
    assert train.main([str(write(tmp_path / "bad.yaml", recipe)), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and named in err, err
    assert not (tmp_path / "run").exists()


SEAT_MISTAKES = [
    ({"opponents": [{"kind": "eceg_myopic", "kwargs": {"horizn": 2}}]}, "horizn"),
    ({"opponents": ["yay_greedy"]}, "plays yay, not easy_come_easy_go"),
    ({"opponents": ["random"], "learner_seat": "0"}, "learner_seat"),
    ({"opponents": ["random"], "game": {"win_reward": float("nan")}}, "win_reward"),
    ({"opponents": ["random"], "game": {"loss_reward": float("-inf")}}, "loss_reward"),
    ({"opponents": [{"kind": "sb3", "kwargs": {"path": "missing.zip"}}]}, "missing.zip"),
]


@pytest.mark.parametrize(("config", "named"), SEAT_MISTAKES, ids=lambda v: str(v)[:40])
def test_a_bad_opponent_is_one_error_line_before_training(tmp_path: Path, capsys, config: dict, named: str) -> None:
    recipe = recipe_for(tmp_path / "run", 256)
    recipe["task"] = {"id": "easy_come_easy_go_vs_opponents", "config": config, "num_envs": 4}
    assert train.main([str(write(tmp_path / "bad.yaml", recipe)), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and named in err, err
    assert not (tmp_path / "run").exists()


RAW_MISTAKES = [
    (b"name: [unclosed\n", "not valid YAML at line"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", "not a text file"),
    (b"- just\n- a list\n", "expected a YAML mapping"),
    (b"name: a\nname: b\n", "duplicate key 'name'"),
    (b"a: &a [x, x, x, x, x, x, x, x]\n" + b"".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n".encode()
        for p, c in zip("abcdefg", "bcdefgh", strict=True)), "more than 100,000 values"),
]  # fmt: skip


@pytest.mark.parametrize("script", [train, evaluate], ids=["train", "evaluate"])
@pytest.mark.parametrize(("content", "named"), RAW_MISTAKES, ids=["malformed", "binary", "list", "dup", "alias-bomb"])
def test_a_bad_file_is_one_short_error_line(tmp_path: Path, capsys, script, content: bytes, named: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    assert script.main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and named in err and len(err) < 400, err


def test_an_output_dir_that_is_a_file_is_named(tmp_path: Path, capsys) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("")
    for out in (blocker, blocker / "run"):
        assert train.main([str(write(tmp_path / "t.yaml", recipe_for(out, 256))), "--no-progress"]) == 2
        assert "output_dir" in capsys.readouterr().err


def test_floats_in_exponent_form_read_as_numbers(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(write(tmp_path / "x.yaml", recipe_for(tmp_path / "run", 256)).read_text()
                    .replace("learning_rate: 0.001", "learning_rate: 1e-3"))  # fmt: skip
    assert train.load_recipe(path).algorithm.hyperparameters.learning_rate == 0.001


def _eval_recipe(tmp_path: Path) -> dict:
    return {"name": "e", "game": "yay", "output_dir": str(tmp_path / "eval"),
            "agents": {"random": {"kind": "random"}, "greedy": {"kind": "yay_greedy"}},
            "tables": {"player_counts": [2], "games": 4, "config": {"rows": 5, "cols": 5}}}  # fmt: skip


EVAL_MISTAKES = [
    (_set("agents.greedy.kwargs", {"cross_bonuss": 1}), "cross_bonuss"),
    (_set("tables.config.num_players", 3), "num_players"),
    (_set("tables.config.rowz", 3), "rowz"),
    (_set("tables.seed", -1), "seed"),
    (_set("agents.greedy.path", "x.zip"), "path"),
]


@pytest.mark.parametrize(("change", "named"), EVAL_MISTAKES, ids=lambda v: str(v)[:30])
def test_a_bad_evaluate_value_is_one_error_line(tmp_path: Path, capsys, change, named: str) -> None:
    recipe = _eval_recipe(tmp_path)
    change(recipe)
    assert evaluate.main([str(write(tmp_path / "bad.yaml", recipe))]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and named in err, err
    assert not (tmp_path / "eval").exists()


def test_an_sb3_path_that_is_not_a_model_is_named_by_evaluate(tmp_path: Path, capsys) -> None:
    recipe = _eval_recipe(tmp_path)
    (tmp_path / "model.zip").write_text("text")
    recipe["agents"]["trained"] = {"kind": "sb3", "path": str(tmp_path / "model.zip")}
    assert evaluate.main([str(write(tmp_path / "bad.yaml", recipe))]) == 2
    assert "model.zip: not a readable zip file" in capsys.readouterr().err


def test_seat_envs_name_a_string_opponent_and_a_string_seat() -> None:
    from dicearena.envs.common.seating import seat_opponents

    with pytest.raises(TypeError, match=r"not the name 'random'.*make_agent\('random'\)"):
        seat_opponents("random", 2, 0)
    with pytest.raises(TypeError, match="learner_seat must be an int"):
        seat_opponents([make_agent("random")], 2, "0")
