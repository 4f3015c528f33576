"""A self-play run's pool and its checkpoints are one unit (dicearena.agents.training.pool_files): a resume from
any checkpoint restores the pool it was saved with, no file the pool lists is deleted, damaged pool files are
skipped by name, and a listing cannot reach outside the run. Kills are simulated in-process: a BaseException
raised at a file operation, which nothing in training catches, stops the run where a SIGKILL would."""

from __future__ import annotations

import json
import os
import pathlib
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from dicearena.agents.model_files import METADATA_ENTRY, read_model_file
from dicearena.agents.snapshots import PoolFileError, pool_agents
from dicearena.agents.training import train
from dicearena.agents.training.checkpoints import checkpoints_newest_first
from dicearena.agents.training.pool_files import POOL_KEY
from tests.helpers import self_play_recipe, write


class Killed(BaseException):
    """Stands for SIGKILL: not an Exception, so no handler in training saves anything on the way out."""


def _recipe(out: Path, total: int, snapshot_every: int, checkpoint_every: int, keep_checkpoints: int = 3) -> dict:
    recipe = self_play_recipe("easy_come_easy_go", out, total, {"snapshot_every": snapshot_every})
    recipe["task"]["config"]["evaluation"].update(every=10**6, games=2)
    recipe["training"].update(checkpoint_every=checkpoint_every, keep_checkpoints=keep_checkpoints)
    recipe["score"]["samples"] = 2
    return recipe


def _run(cfg: Path, *flags: str) -> int:
    return train.main([str(cfg), "--no-progress", *flags])


def _pool(out: Path) -> list[dict]:
    return json.loads((out / "pool" / "pool.json").read_text())["snapshots"]


def assert_pool_whole(out: Path, exact: bool = True) -> None:
    """Every file the pool and the kept checkpoints list is there and loads; nothing else is kept (``exact``; a
    kill may leave a file written and not listed yet, which the next start clears)."""
    listed = {e["file"] for e in _pool(out)}
    for _, path in checkpoints_newest_first(out / "checkpoints"):
        listed |= {e["file"] for e in read_model_file(path).metadata.get(POOL_KEY, [])}
    on_disk = {p.name for p in (out / "pool").glob("snapshot_*.zip")}
    assert on_disk == listed if exact else on_disk >= listed, (on_disk, listed)
    for name in listed:
        read_model_file(out / "pool" / name)


def kill_at(monkeypatch: pytest.MonkeyPatch, event: int, after: bool) -> None:
    """Raise Killed at the ``event``-th file replace or delete (before it, or just after it)."""
    count = [0]
    real_replace, real_unlink = os.replace, pathlib.Path.unlink

    def hit(operation: Callable[[], object]) -> object:
        count[0] += 1
        if count[0] == event and not after:
            raise Killed
        result = operation()
        if count[0] == event:
            raise Killed
        return result

    monkeypatch.setattr(os, "replace", lambda a, b: hit(lambda: real_replace(a, b)))
    monkeypatch.setattr(pathlib.Path, "unlink", lambda self, missing_ok=False: hit(
        lambda: real_unlink(self, missing_ok=missing_ok)))  # fmt: skip


def test_a_kill_between_checkpoints_resumes_with_the_checkpoints_pool(tmp_path: Path, monkeypatch, capsys) -> None:
    """snapshot_every < checkpoint_every: snapshots taken after the last checkpoint evict files that checkpoint's
    pool still needs. Before the fix, the resume restored pool.json's newer entries, retook one over its own
    file, evicted and deleted it, and the next resume failed with 'no saved model'."""
    out = tmp_path / "run"
    cfg = write(tmp_path / "sp.yaml", _recipe(out, 2048, snapshot_every=256, checkpoint_every=1024))
    real = train.save_checkpoint
    calls = [0]

    def save_then_die(*args, **kwargs):
        calls[0] += 1
        if calls[0] == 2:  # killed as the checkpoint at 2048 is written: the pool holds 1792 and 2048 by then
            raise Killed
        return real(*args, **kwargs)

    monkeypatch.setattr(train, "save_checkpoint", save_then_die)
    with pytest.raises(Killed):
        _run(cfg)
    monkeypatch.setattr(train, "save_checkpoint", real)
    assert [e["steps"] for e in _pool(out)] == [1792, 2048]
    capsys.readouterr()
    assert _run(cfg) == 0
    printed = capsys.readouterr().out
    assert "resuming from model_1024_steps.zip" in printed
    assert "restored 2 snapshots" in printed and "(the pool of model_1024_steps.zip)" in printed
    assert [e["steps"] for e in _pool(out)] == [1792, 2048]
    assert_pool_whole(out)
    assert _run(cfg, "--total-timesteps", "3072") == 0  # and the next resume works too
    assert [e["steps"] for e in _pool(out)] == [2816, 3072]
    assert_pool_whole(out)


def test_resume_past_a_damaged_newest_checkpoint_keeps_the_pool_whole(tmp_path: Path, capsys) -> None:
    """The documented fallback, with equal intervals as in the shipped recipes."""
    out = tmp_path / "run"
    cfg = write(tmp_path / "sp.yaml", _recipe(out, 3072, snapshot_every=1024, checkpoint_every=1024))
    assert _run(cfg) == 0
    newest = out / "checkpoints" / "model_3072_steps.zip"
    newest.write_bytes(newest.read_bytes()[:4000])
    capsys.readouterr()
    assert _run(cfg, "--total-timesteps", "4096") == 0
    printed = capsys.readouterr().out
    assert "skipping checkpoint model_3072_steps.zip" in printed and "resuming from model_2048_steps.zip" in printed
    assert "restored 2 snapshots" in printed
    assert [e["steps"] for e in _pool(out)] == [3072, 4096]
    assert_pool_whole(out)
    assert _run(cfg, "--total-timesteps", "5120") == 0
    assert [e["steps"] for e in _pool(out)] == [4096, 5120]
    assert_pool_whole(out)


@pytest.mark.parametrize("damage", ["truncated", "deleted", "not_json"])
def test_damaged_pool_files_are_skipped_by_name(tmp_path: Path, capsys, damage: str) -> None:
    out = tmp_path / "run"
    cfg = write(tmp_path / "sp.yaml", _recipe(out, 2048, snapshot_every=1024, checkpoint_every=1024))
    assert _run(cfg) == 0
    oldest = out / "pool" / "snapshot_000000001024.zip"
    if damage == "truncated":
        oldest.write_bytes(oldest.read_bytes()[:3000])
    elif damage == "deleted":
        oldest.unlink()
    else:
        (out / "pool" / "pool.json").write_text("{not json")
    capsys.readouterr()
    assert _run(cfg, "--total-timesteps", "3072") == 0
    printed = capsys.readouterr().out
    if damage == "not_json":  # the checkpoint's own record restores the pool; pool.json is written again
        assert "restored 2 snapshots" in printed
    else:
        assert "skipping snapshot snapshot_000000001024.zip" in printed and "restored 1 snapshots" in printed
    assert [e["steps"] for e in _pool(out)][-1] == 3072
    for entry in _pool(out):
        read_model_file(out / "pool" / entry["file"])


def test_pool_agents_name_a_damaged_listing_or_snapshot(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert _run(write(tmp_path / "sp.yaml", _recipe(out, 2048, snapshot_every=1024, checkpoint_every=1024))) == 0
    snapshot = out / "pool" / "snapshot_000000001024.zip"
    snapshot.write_bytes(snapshot.read_bytes()[:3000])
    with pytest.warns(UserWarning, match="skipping snapshot_1024: .*snapshot_000000001024.zip"):
        assert list(pool_agents(out)) == ["snapshot_2048"]
    (out / "pool" / "pool.json").write_text("[1, 2")
    with pytest.raises(PoolFileError, match="pool.json is not a readable JSON pool listing"):
        pool_agents(out)


def _rewrite_metadata(checkpoint: Path, update: Callable[[dict], None]) -> None:
    with zipfile.ZipFile(checkpoint) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    metadata = json.loads(entries[METADATA_ENTRY])
    update(metadata)
    entries[METADATA_ENTRY] = json.dumps(metadata).encode()
    with zipfile.ZipFile(checkpoint, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)


def test_a_listing_cannot_reach_outside_the_run(tmp_path: Path, capsys) -> None:
    """An entry ``../../victim.zip`` was loaded, then deleted on eviction. Now it is skipped by name, from
    pool.json (a tournament's reader, a checkpoint from before pools were recorded) and from a checkpoint."""
    out = tmp_path / "run"
    cfg = write(tmp_path / "sp.yaml", _recipe(out, 2048, snapshot_every=1024, checkpoint_every=1024))
    assert _run(cfg) == 0
    victim = tmp_path / "victim.zip"
    victim.write_bytes((out / "pool" / "snapshot_000000002048.zip").read_bytes())
    planted = {"file": "../../victim.zip", "steps": 2048}
    (out / "pool" / "pool.json").write_text(json.dumps({"snapshots": [planted]}))
    with pytest.warns(UserWarning, match=r"skipping pool entry .*victim\.zip"):
        assert pool_agents(out) == {}
    checkpoint = out / "checkpoints" / "model_2048_steps.zip"
    _rewrite_metadata(checkpoint, lambda m: m.__setitem__(POOL_KEY, [planted]))
    capsys.readouterr()
    assert _run(cfg, "--total-timesteps", "5120") == 0  # three snapshots more: evictions on the way
    assert "skipping pool entry {'file': '../../victim.zip'" in capsys.readouterr().out
    assert victim.is_file()
    newest = checkpoints_newest_first(out / "checkpoints")[0][1]
    _rewrite_metadata(newest, lambda m: m.pop(POOL_KEY))  # as before pools were recorded: pool.json is read
    (out / "pool" / "pool.json").write_text(json.dumps({"snapshots": [planted]}))
    capsys.readouterr()
    assert _run(cfg, "--total-timesteps", "6144") == 0
    assert "skipping pool entry {'file': '../../victim.zip'" in capsys.readouterr().out
    assert victim.is_file()
    assert_pool_whole(out)


def test_twenty_kills_in_a_row_lose_nothing(tmp_path: Path, monkeypatch) -> None:
    """Killed at 20 seeded random file operations in a row (before or after each), resumed each time: the
    final pool has the snapshots of an uninterrupted run with the same seed, and every file it lists loads."""
    recipe = _recipe(tmp_path / "clean", 8192, 128, 512, keep_checkpoints=2)
    recipe["algorithm"]["hyperparameters"]["n_steps"] = 16  # 512-step rollouts: a resume ends where a run does
    clean = write(tmp_path / "clean.yaml", recipe)
    assert _run(clean) == 0
    out = tmp_path / "killed"
    recipe["training"]["output_dir"] = str(out)
    cfg = write(tmp_path / "killed.yaml", recipe)
    rng = np.random.default_rng(2026)
    for _ in range(20):
        with monkeypatch.context() as patch:
            kill_at(patch, int(rng.integers(1, 25)), after=bool(rng.integers(2)))
            with pytest.raises(Killed):
                _run(cfg)
        if (out / "pool" / "pool.json").is_file():
            assert_pool_whole(out, exact=False)
    assert _run(cfg) == 0
    assert _pool(out) == _pool(tmp_path / "clean")  # the same snapshot steps and file names
    assert read_model_file(out / "model.zip").num_timesteps == 8192
    assert_pool_whole(out)
    assert list(pool_agents(out)) == ["snapshot_8064", "snapshot_8192"]
