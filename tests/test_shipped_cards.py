"""Shipped agents' cards are checked before anything is built from them (issue 21): a malformed card, a loader that
is not one of the allowed ones, or a model outside the models folder is skipped with a warning naming the file, and
every other agent still loads; ``ship --ship RUN NAME`` writes only plain names inside the models folder, replaces
an existing agent only with ``--replace``, and each mistake is one ``error:`` line with exit status 2.

Every test works on a models folder of its own (``dicearena.agents.shipped.MODELS`` pointed at it), never on the real
``agents/models``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from dicearena.agents import agent_names, make_agent
from dicearena.agents import shipped as shipped_module
from dicearena.agents.evaluation import ship as ship_module
from dicearena.agents.shipped import LOADERS, CardError, ShippedAgent, shipped

REAL = Path(shipped_module.__file__).resolve().parent / "models"


@pytest.fixture
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A models folder holding one good shipped agent, ``eceg_td`` (a card and its small table)."""
    folder = tmp_path / "models"
    folder.mkdir()
    for name in ("eceg_td.yaml", "eceg_td.npz"):
        shutil.copy(REAL / name, folder / name)
    monkeypatch.setattr(shipped_module, "MODELS", folder)
    monkeypatch.setattr(ship_module, "MODELS", folder)
    shipped.cache_clear()
    yield folder
    shipped.cache_clear()


def _good_card(**edits: object) -> str:
    card = yaml.safe_load((REAL / "eceg_td.yaml").read_text())
    card.update(edits)
    return yaml.safe_dump({k: v for k, v in card.items() if v is not None}, sort_keys=False)


def _others_still_work() -> None:
    assert "eceg_td" in agent_names() and "bad" not in agent_names()
    assert make_agent("random").name == "random"
    assert isinstance(make_agent("eceg_td"), ShippedAgent)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("!!python/object/apply:os.getcwd []\n", "not a readable YAML card"),
        (_good_card(game=None), "no 'game'"),
        ("{{{ this: is not [ YAML\n", "not a readable YAML card"),
        ("just a sentence\n", "not a card"),
        (_good_card(players="two"), "'players' must be a list"),
    ],
    ids=["python-tag", "no-game", "not-yaml", "not-a-mapping", "bad-players"],
)
def test_a_malformed_card_is_skipped_with_a_warning_and_every_other_agent_loads(
    models: Path, text: str, reason: str
) -> None:  # fmt: skip
    (models / "bad.yaml").write_text(text)
    shutil.copy(models / "eceg_td.npz", models / "bad.npz")
    shutil.copy(models / "eceg_td.npz", models / "bad.zip")
    with pytest.warns(UserWarning, match=rf"bad\.yaml.*{reason}"):
        _others_still_work()


def test_a_loader_outside_the_allow_list_is_refused_naming_the_allowed_ones(
    models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # fmt: skip
    from dicearena.agents.training import checkpoints

    called = []
    monkeypatch.setattr(checkpoints, "remove_all", lambda *args: called.append(args) or 0)
    shutil.copy(models / "eceg_td.npz", models / "bad.npz")
    evil = "dicearena.agents.training.checkpoints:remove_all"
    (models / "bad.yaml").write_text(_good_card(model="bad.npz", loader=evil))
    with pytest.warns(UserWarning, match=r"bad\.yaml: loader .*remove_all.* is not one of the allowed loaders: .*"
                                         r"position_agent:PositionValueAgent"):  # fmt: skip
        _others_still_work()
    with pytest.raises(ValueError, match="unknown agent 'bad'"):
        make_agent("bad")
    with pytest.raises(CardError, match="bad.yaml: loader .* allowed loaders"):  # asked for directly, too
        shipped_module._load_model("bad", yaml.safe_load((models / "bad.yaml").read_text()), True)
    assert called == []
    assert all(loader.startswith("dicearena.agents.") for loader in LOADERS)


@pytest.mark.parametrize("where", ["../outside.npz", "absolute", "link"])
def test_a_model_outside_the_models_folder_is_refused(models: Path, where: str) -> None:
    outside = models.parent / "outside.npz"
    shutil.copy(models / "eceg_td.npz", outside)
    model = {"../outside.npz": "../outside.npz", "absolute": str(outside), "link": "link.npz"}[where]
    if where == "link":
        (models / "link.npz").symlink_to(outside)
    (models / "bad.yaml").write_text(_good_card(model=model))
    with pytest.warns(UserWarning, match=r"bad\.yaml: 'model' .*(must name a file in|leads outside) the models folder"):
        _others_still_work()


# --- dicearena ship


def _finished_run(folder: Path) -> Path:
    """A finished self-play run as ``ship`` reads it: the recipe eceg_ppo was trained by, a score, and its model."""
    card = yaml.safe_load((REAL / "eceg_ppo.yaml").read_text())
    folder.mkdir()
    (folder / "config.yaml").write_text(yaml.safe_dump(card["recipe"]))
    (folder / "score.json").write_text(json.dumps({"timesteps": 1, "minutes_in_all": 0.1, "head_to_head": [
        {"against": "random", "win_rate": 0.9, "ci95": [0.8, 0.95], "games": 10}]}))  # fmt: skip
    shutil.copy(REAL / "eceg_ppo.zip", folder / "model.zip")
    return folder


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def _error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("name", ["../escaped", "<tmp>/escaped", "Bad-Name", "a/b", ""])
def test_the_shipped_name_must_be_a_plain_name(models: Path, tmp_path: Path, name: str, capsys) -> None:
    """(The paths tried stay inside the test's folder, so even a ship that followed them would write nowhere else.)"""
    run = _finished_run(tmp_path / "run")
    name = name.replace("<tmp>", str(tmp_path))
    before = _files(tmp_path)
    assert ship_module.main(["--ship", str(run), name]) == 2
    assert "lowercase letters, digits and '_'" in _error_line(capsys)
    assert _files(tmp_path) == before


def test_shipping_over_an_existing_agent_needs_replace(models: Path, tmp_path: Path, capsys) -> None:
    run = _finished_run(tmp_path / "run")
    card_before = (models / "eceg_td.yaml").read_text()
    assert ship_module.main(["--ship", str(run), "eceg_td"]) == 2
    assert "a shipped agent 'eceg_td' exists" in _error_line(capsys)
    assert (models / "eceg_td.yaml").read_text() == card_before
    assert ship_module.main(["--ship", str(run), "mine"]) == 0  # a new name ships
    assert ShippedAgent("mine").game == "easy_come_easy_go"
    assert ship_module.main(["--ship", str(run), "mine"]) == 2
    assert "add --replace" in _error_line(capsys)
    assert ship_module.main(["--ship", str(run), "mine", "--replace"]) == 0
    assert _files(models) == ["eceg_td.npz", "eceg_td.yaml", "mine.yaml", "mine.zip"]  # no temp file left
    assert ship_module.main(["--ship", str(run), "random"]) == 2  # not a built-in agent's name either
    assert "built-in agent" in _error_line(capsys)


def test_an_unknown_only_name_and_a_missing_run_are_error_lines(models: Path, tmp_path: Path, capsys) -> None:
    assert ship_module.main(["--only", "nobody", "--games", "2"]) == 2
    err = _error_line(capsys)
    assert "no shipped agent 'nobody'" in err and "eceg_td" in err
    assert ship_module.main(["--ship", str(tmp_path / "nowhere"), "mine"]) == 2
    assert "no run at" in _error_line(capsys)
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    (unfinished / "config.yaml").write_text("name: x\n")
    assert ship_module.main(["--ship", str(unfinished), "mine"]) == 2
    assert "score.json, model.zip missing" in _error_line(capsys)
    assert _files(models) == ["eceg_td.npz", "eceg_td.yaml"]
