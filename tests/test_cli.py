"""The ``dicearena`` command: every command's --help, bundled recipes by name, and clear errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dicearena.agents.evaluation.recipes import recipe_path
from dicearena.cli import COMMANDS, main
from dicearena.envs.common.config import ConfigError

ROOT = Path(__file__).resolve().parents[1]


def test_no_command_prints_every_command(capsys) -> None:
    assert main([]) == 2
    out = capsys.readouterr().out
    assert all(name in out for name in COMMANDS)
    assert main(["--help"]) == 0


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "recipes"])
def test_every_command_has_its_own_help(command: str) -> None:
    """Run as an installed user would (the console script's module), in a fresh process."""
    out = subprocess.run([sys.executable, "-m", "dicearena", command, "--help"], capture_output=True, text=True,
                         cwd=ROOT / "tests", timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert f"usage: dicearena {command}" in out.stdout


def test_bundled_recipes_are_named_without_a_path(capsys) -> None:
    assert main(["recipes"]) == 0
    listed = capsys.readouterr().out.split()
    assert {"easy_money_greed", "demo", "eval_yay"} <= set(listed)
    assert set(listed) == {p.stem for p in (ROOT / "configs").glob("*.yaml")}
    path = recipe_path("easy_money_greed")
    assert path.read_text() == (ROOT / "configs" / "easy_money_greed.yaml").read_text()
    assert recipe_path("easy_money_greed.yaml") == path


def test_a_file_wins_over_a_bundled_name(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "demo").write_text("name: mine\n")
    assert recipe_path("demo") == Path("demo")


def test_an_unknown_recipe_lists_the_bundled_ones(capsys) -> None:
    with pytest.raises(ConfigError, match="bundled: .*easy_money_greed"):
        recipe_path("easy_mony_greed")
    assert main(["train", "no_such_recipe"]) == 2
    assert "no recipe file 'no_such_recipe'" in capsys.readouterr().err
    assert main(["no-such-command"]) == 2
    assert "unknown command 'no-such-command'" in capsys.readouterr().err


def test_train_checks_a_bundled_recipe_by_name() -> None:
    """``dicearena train easy_money_greed`` reads the bundled recipe: the same checked recipe as the file's."""
    from dicearena.agents.training.train import load_recipe

    by_name = load_recipe(recipe_path("easy_money_greed"))
    by_file = load_recipe(ROOT / "configs" / "easy_money_greed.yaml")
    assert by_name == by_file and by_name.task.id == "easy_money_greed"
