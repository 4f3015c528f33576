"""Resuming an RLlib run runs no code from the run folder that its own save did not write and record (issue 21):
every checkpoint's card lists the sha256 of each file the save wrote, and resume skips a checkpoint, naming the file,
when a file is changed, planted, missing or a link (then the next older one is tried; none left is an ``error:``).
And a wrong ``ray.address`` is one ``error:`` line within seconds, not a silent wait of minutes.

Checkpoints here are written by the project's own ``save_checkpoint`` from a stand-in for RLlib's ``Algorithm``
(no Ray needed); tests/test_rllib.py resumes a real run whose checkpoint holds a planted pickle."""

from __future__ import annotations

import json
import pickle
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from dicearena.agents.rllib_checkpoints import (
    CARD,
    DIGESTS,
    CheckpointError,
    file_digests,
    newest_loadable,
    save_checkpoint,
    verified_copy,
    verify_files,
    weights_file,
)
from dicearena.envs.common.config import ConfigError

ROOT = Path(__file__).resolve().parents[1]


class FakeAlgo:
    """What ``Algorithm.save_to_path`` leaves: RLlib's metadata, state pickles, and the shared module's weights."""

    def save_to_path(self, path: str) -> None:
        root = Path(path)
        weights = weights_file(root, "shared")
        weights.parent.mkdir(parents=True)
        weights.write_bytes(pickle.dumps({"w": np.zeros(3, np.float32)}))
        (root / "rllib_checkpoint.json").write_text(json.dumps({"type": "Algorithm"}))
        (root / "algorithm_state.pkl").write_bytes(pickle.dumps({"iteration": 1}))
        (root / "env_runner").mkdir()
        (root / "env_runner" / "state.pkl").write_bytes(pickle.dumps({"filters": []}))


def _card(iteration: int) -> dict[str, Any]:
    return {"game": "easy_come_easy_go", "config": {"num_players": 2}, "module_id": "shared", "model_config": {},
            "observation_size": 3, "actions": 2, "iteration": iteration, "env_steps": 64 * iteration,
            "training_seconds": 1.0}  # fmt: skip


def _checkpoints(folder: Path, iterations: int = 2) -> list[Path]:
    return [save_checkpoint(FakeAlgo(), folder, _card(i), keep=5) for i in range(1, iterations + 1)]


def _newest(folder: Path) -> tuple[Path | None, list[str]]:
    said: list[str] = []
    found = newest_loadable(folder, say=said.append, verify=True)
    return (None if found is None else found[0]), said


def test_a_save_records_the_sha256_of_every_file_it_wrote(tmp_path: Path) -> None:
    path, = _checkpoints(tmp_path, 1)
    card = json.loads((path / CARD).read_text())
    assert sorted(card[DIGESTS]) == ["algorithm_state.pkl", "env_runner/state.pkl",
                                     "learner_group/learner/rl_module/shared/module_state.pkl",
                                     "rllib_checkpoint.json"]  # fmt: skip
    assert card[DIGESTS] == file_digests(path)
    verify_files(path, card)  # passes as saved
    assert _newest(tmp_path) == (path, [])


@pytest.mark.parametrize(
    ("tamper", "named"),
    [
        (lambda p: (p / "algorithm_state.pkl").write_bytes(pickle.dumps({"iteration": 99})),
         "algorithm_state.pkl does not match the sha256"),
        (lambda p: (p / "env_runner" / "extra.pkl").write_bytes(b"planted"),
         "env_runner/extra.pkl is not listed in its card"),
        (lambda p: (p / "env_runner" / "state.pkl").unlink(),
         "env_runner/state.pkl, listed in its card .*, is missing"),
        (lambda p: ((p / "algorithm_state.pkl").unlink(), (p / "algorithm_state.pkl").symlink_to(p.parent / "x")),
         "algorithm_state.pkl is a symbolic link"),
        (lambda p: (p / CARD).write_text(json.dumps({k: v for k, v in json.loads((p / CARD).read_text()).items()
                                                     if k != DIGESTS})),
         "records no sha256 for its files"),
    ],
    ids=["changed", "planted", "missing", "link", "no-digests"],
)
def test_resume_skips_a_checkpoint_whose_files_do_not_match_its_card(tmp_path: Path, tamper: Any, named: str) -> None:
    older, newer = _checkpoints(tmp_path)
    tamper(newer)
    found, said = _newest(tmp_path)
    assert found == older  # the next older checkpoint is tried, and checks out
    assert len(said) == 1 and said[0].startswith("skipping checkpoint iter_000002: ")
    assert re.search(named, said[0]), said
    assert newer.is_dir()  # skipped, not deleted
    found, _ = newest_loadable(tmp_path, say=lambda _: None)  # an agent reads the weights as data: still loads
    assert found == newer


def test_resume_restores_from_a_private_copy_of_exactly_the_checked_bytes(tmp_path: Path) -> None:
    path, = _checkpoints(tmp_path, 1)
    card = json.loads((path / CARD).read_text())
    with verified_copy(path, card) as copy:
        assert copy != path and not copy.is_relative_to(tmp_path)
        assert file_digests(copy) == card[DIGESTS] and not (copy / CARD).exists()
    assert not copy.exists()  # removed afterwards
    (path / "algorithm_state.pkl").write_bytes(b"changed")
    with pytest.raises(CheckpointError, match="algorithm_state.pkl does not match"), verified_copy(path, card):
        pass


def test_no_resumable_checkpoint_left_is_an_error_not_a_fresh_start_over_them(tmp_path: Path, capsys) -> None:
    """Starting over would overwrite (and prune) the checkpoints that were skipped: refused, --fresh named."""
    from dicearena.agents.training.rllib import check_recipe, plan_resume

    out = tmp_path / "run"
    recipe = check_recipe({"name": "t", "game": "easy_come_easy_go", "config": {"num_players": 2},
                           "training": {"iterations": 3, "output_dir": str(out)}})  # fmt: skip
    (out / "config.yaml").parent.mkdir()
    (out / "config.yaml").write_text(yaml.safe_dump(recipe.model_dump()))
    checkpoints = _checkpoints(out / "checkpoints")
    for path in checkpoints:
        (path / "algorithm_state.pkl").write_bytes(b"planted")
    with pytest.raises(ConfigError, match=r"no checkpoint in .*checkpoints can be resumed .*--fresh"):
        plan_resume(recipe, out, fresh=False)
    said = capsys.readouterr().out
    assert said.count("algorithm_state.pkl does not match") == 2
    assert all(path.is_dir() for path in checkpoints)
    assert plan_resume(recipe, out, fresh=True) is None


# --- ray.address


@pytest.mark.parametrize("address", ["127.0.0.1:99999", "localhost", "ray://head:10001", "head:0"])
def test_a_malformed_ray_address_is_refused_naming_the_forms_allowed(address: str, tmp_path: Path) -> None:
    from dicearena.agents.training.rllib import check_recipe

    with pytest.raises(ConfigError, match=r"\[ray\].*'address' must be \"local\", \"auto\" or \"<host>:<port>\""):
        check_recipe({"name": "t", "game": "yay", "ray": {"address": address},
                      "training": {"iterations": 1, "output_dir": str(tmp_path / "run")}})  # fmt: skip


def test_a_ray_address_where_nothing_answers_is_an_error_line_within_seconds(tmp_path: Path) -> None:
    """It used to wait for minutes in ``ray.init``, saying nothing; nothing is written either."""
    pytest.importorskip("ray")
    out = tmp_path / "run"
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(yaml.safe_dump({"name": "t", "game": "easy_come_easy_go", "ray": {"address": "localhost:1"},
                                      "training": {"iterations": 1, "output_dir": str(out)}}))  # fmt: skip
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "dicearena.agents.training.rllib", str(recipe), "--no-progress"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert time.monotonic() - started < 60, "waited like before"
    assert proc.returncode == 2, proc.stderr[-2000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "'address' 'localhost:1': nothing answers at" in errors[0], proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_a_full_disk_during_an_rllib_run_is_an_error_line(tmp_path: Path, capsys, monkeypatch) -> None:
    import errno

    from dicearena.agents.training import rllib

    def full_disk(*args: Any, **kwargs: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(rllib, "train", full_disk)
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(yaml.safe_dump({"name": "t", "game": "easy_come_easy_go",
                                      "training": {"iterations": 1, "output_dir": str(tmp_path / "run")}}))  # fmt: skip
    assert rllib.main([str(recipe), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: could not write the run's files in") and "No space left on device" in err
