"""What a user notices first (issue 22, items 8 and 9): the training progress bar, config typos in nested sections,
a recipe given to the wrong command, ``make_agent`` on the runtime dependencies alone, game id typos, and a fast
test command."""

from __future__ import annotations

import importlib
import importlib.metadata as metadata
import io
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from dicearena.agents.evaluation import evaluate
from dicearena.agents.training import train
from dicearena.envs.common.config import ConfigError, validate_config
from dicearena.envs.common.contract import GAMES, TASK_GAMES, game_spec
from dicearena.envs.yay.config import YayConfig
from tests.helpers import tiny_train_recipe, write

ROOT = Path(__file__).resolve().parents[1]


# --- the training progress bar ---------------------------------------------------------------------------------


def _callback(total: int, done: int, now: list[float], **kwargs: object):
    callback = train.progress_callback(total, done, "run", clock=lambda: now[0], file=io.StringIO(), **kwargs)
    model = SimpleNamespace(num_timesteps=done, get_env=lambda: None, logger=None)
    callback.init_callback(model)
    return callback, model


def test_a_resumed_runs_bar_counts_from_the_restored_steps_and_stops_at_the_total() -> None:
    now = [100.0]
    callback, model = _callback(233_152, 200_000, now)
    assert "200,000/233,152 steps" in str(callback.bar)
    now[0], model.num_timesteps = 110.0, 210_000
    callback.on_step()
    # 10,000 steps in this run's 10 s: the 23,152 steps left take 23 s
    assert "210,000/233,152 steps [00:10<00:23, 1,000 steps/s]" in str(callback.bar)
    now[0], model.num_timesteps = 130.0, 237_568  # the last rollout runs past the total
    callback.on_step()
    assert callback.bar.n == 233_152
    assert "233,152/233,152 steps" in str(callback.bar) and "237,568" not in str(callback.bar)


def test_the_bars_time_left_is_the_time_limits_when_that_comes_first() -> None:
    now = [0.0]
    callback, model = _callback(10_000_000, 0, now, time_left=lambda: 42.0)
    now[0], model.num_timesteps = 10.0, 1_000
    callback.on_step()  # 100 steps/s: the steps left would take 27 hours, the time limit ends the run in 42 s
    assert "1,000/10,000,000 steps [00:10<00:42 (time limit), 100 steps/s]" in str(callback.bar)


@pytest.mark.slow
def test_a_resumed_training_run_shows_the_whole_run_on_its_bar(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    cfg = write(tmp_path / "t.yaml", tiny_train_recipe(out, 512))  # 16 envs x 16 steps: rollouts of 256 steps
    assert train.main([str(cfg), "--no-progress"]) == 0
    capsys.readouterr()
    assert train.main([str(cfg), "--total-timesteps", "1000"]) == 0  # resumes at 512, stops at 1,024 steps
    err = capsys.readouterr().err
    counts = [(int(n.replace(",", "")), int(t.replace(",", ""))) for n, t in re.findall(r"([\d,]+)/([\d,]+) steps",
                                                                                          err)]  # fmt: skip
    assert counts[0] == (512, 1000) and counts[-1] == (1000, 1000), err[-2000:]
    assert all(n <= total == 1000 for n, total in counts)


# --- config typos in nested sections ---------------------------------------------------------------------------


def test_a_nested_typo_lists_the_keys_of_its_own_section_and_the_nearest(tmp_path: Path, capsys) -> None:
    recipe = tiny_train_recipe(tmp_path / "run", 512)
    recipe["algorithm"]["hyperparameters"]["learning_rte"] = 0.001
    assert train.main([str(write(tmp_path / "t.yaml", recipe)), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "unknown key 'algorithm.hyperparameters.learning_rte' (did you mean 'learning_rate'?)" in err
    assert "Allowed keys in 'algorithm.hyperparameters': learning_rate, learning_rate_end, n_steps, batch_size," in err
    assert "name, task" not in err  # not the top-level keys
    assert not (tmp_path / "run").exists()


def test_a_typo_under_a_union_names_its_section_without_pydantics_tags() -> None:
    recipe = tiny_train_recipe(Path("unused"), 512)
    recipe["algorithm"]["policy_kwargs"]["net_arch"] = {"pi": [8], "vff": [8]}
    with pytest.raises(ConfigError) as info:
        validate_config(train.TrainRecipe, recipe)
    message = str(info.value)
    assert "unknown key 'algorithm.policy_kwargs.net_arch.vff' (did you mean 'vf'?)" in message
    assert "Allowed keys in 'algorithm.policy_kwargs.net_arch': pi, vf" in message
    assert "'algorithm.policy_kwargs.net_arch': Input should be a valid list" in message
    assert "NetArch" not in message and "constrained-int" not in message


def test_typos_in_an_agent_entry_and_at_the_top_name_their_own_sections() -> None:
    model = evaluate.recipe_model("yay")
    with pytest.raises(ConfigError) as info:
        validate_config(model, {"name": "x", "output_dir": "o", "game": "yay", "agents": {"a": {"kind": "random",
                                "kwarg": {}}}, "tabels": {}})  # fmt: skip
    message = str(info.value)
    assert "unknown key 'agents.a.kwarg' (did you mean 'kwargs'?)" in message
    assert "unknown key 'tabels' (did you mean 'tables'?)" in message
    assert "Allowed keys in 'agents.a': kind, kwargs, path, if_missing, only." in message
    assert "Allowed keys: imports, name, output_dir, game, agents, tables," in message


def test_a_game_config_typo_names_the_nearest_key() -> None:
    with pytest.raises(ConfigError, match=r"unknown key 'num_player' \(did you mean 'num_players'\?\)\. Allowed keys:"):
        validate_config(YayConfig, {"num_player": 3})


# --- a recipe given to the wrong command -----------------------------------------------------------------------


@pytest.mark.parametrize("given", ["configs/yay_selfplay.yaml", "yay_selfplay"])
def test_evaluate_given_a_training_recipe_says_to_run_train(given: str, capsys, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    assert evaluate.main([given]) == 2
    err = capsys.readouterr().err
    assert "is a training recipe (it has a 'task' section)" in err
    assert f"run `dicearena train {given}`" in err
    assert "'game' must be one of" not in err


def test_train_given_an_evaluation_or_rllib_recipe_names_the_command(tmp_path: Path, capsys) -> None:
    assert train.main(["eval_yay", "--output-dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "eval_yay is an evaluation recipe" in err and "run `dicearena evaluate eval_yay`" in err
    assert train.main(["rllib_yay", "--output-dir", str(tmp_path / "run")]) == 2
    assert "run `dicearena rllib rllib_yay`" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_rllib_given_a_training_recipe_names_the_command(tmp_path: Path, capsys) -> None:
    from dicearena.agents.training import rllib

    assert rllib.main(["easy_money_greed", "--output-dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "easy_money_greed is a training recipe" in err and "run `dicearena train easy_money_greed`" in err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("command", ["dicearena.bench.bench_game", "dicearena.bench.bench_threads"])
def test_a_bench_game_typo_is_a_usage_error_with_the_nearest_game(command: str, capsys) -> None:
    module = importlib.import_module(command)
    with pytest.raises(SystemExit) as exit_:
        module.main(["yayy", "--no-pin"])
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert "unknown game 'yayy' (did you mean 'yay'?)" in captured.err and "game" not in captured.out


def test_an_evaluation_recipe_with_a_game_typo_suggests_the_game(tmp_path: Path, capsys) -> None:
    cfg = write(tmp_path / "e.yaml", {"name": "e", "game": "yayy", "output_dir": str(tmp_path / "out"),
                                      "agents": {"r": {"kind": "random"}}})  # fmt: skip
    assert evaluate.main([str(cfg)]) == 2
    assert "got 'yayy' (did you mean 'yay'?)" in capsys.readouterr().err


# --- make_agent on the runtime dependencies ---------------------------------------------------------------------


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _runtime_closure() -> set[str]:
    """The distributions ``pip install dice-arena`` brings: pyproject's dependencies and theirs, no extras."""
    requirement = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    todo = [_normal(requirement.match(d).group(1)) for d in pyproject["project"]["dependencies"]]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [_normal(requirement.match(r).group(1)) for r in requires if "extra ==" not in r.partition(";")[2]]
    return seen


MAKE_AGENT = """
import sys

BLOCKED = set(sys.argv[1:])


class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ImportError(f"{name} is not a runtime dependency")
        return None


sys.meta_path.insert(0, Blocker())

from dicearena.agents import make_agent
from dicearena.envs import easy_come_easy_go_v0

players = [make_agent("eceg_td"), make_agent("eceg_heuristic")]
env = easy_come_easy_go_v0.env(num_players=2)
env.reset(seed=0)
for agent in env.agent_iter(max_iter=40):
    obs, reward, terminated, truncated, info = env.last()
    seat = env.possible_agents.index(agent)
    action = None if terminated or truncated else players[seat].act(obs["observation"], obs["action_mask"],
                                                                     state=env.state(), seat=seat)
    env.step(action)
print("ok")
"""


def test_make_agent_works_on_the_runtime_dependencies_alone() -> None:
    """The README's first example without any extra: every installed module outside the runtime dependencies (and
    theirs) is blocked, so a missing runtime dependency (pyyaml: the shipped agents' cards) fails here."""
    runtime = _runtime_closure()
    blocked = sorted(module for module, dists in metadata.packages_distributions().items()
                     if not {_normal(d) for d in dists} & runtime and module not in sys.stdlib_module_names
                     and module != "dicearena" and not module.startswith("_"))  # fmt: skip
    assert {"torch", "stable_baselines3", "tqdm"} <= set(blocked)
    done = subprocess.run([sys.executable, "-c", MAKE_AGENT, *blocked], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "ok", done.stderr[-3000:]


# --- game id typos ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("typo", ["yayy", "Yay", "dicearena/yay-v0", "yay_v0"])
def test_a_game_id_typo_suggests_the_nearest_and_lists_the_games_only(typo: str) -> None:
    import dicearena.envs.easy_come_easy_go.turn_task  # noqa: F401  (registers a task: tasks are not listed)

    assert TASK_GAMES
    with pytest.raises(ValueError) as info:
        game_spec(typo)
    message = str(info.value)
    assert message == f"unknown game {typo!r} (did you mean 'yay'?); games: {', '.join(sorted(GAMES))}"


def test_a_game_id_far_from_every_game_lists_the_games() -> None:
    with pytest.raises(ValueError) as info:
        game_spec("chess")
    assert str(info.value) == f"unknown game 'chess'; games: {', '.join(sorted(GAMES))}"


# --- the fast test command --------------------------------------------------------------------------------------


def test_every_slow_module_and_test_exists() -> None:
    from tests.conftest import SLOW_MODULES, SLOW_TESTS

    tests = ROOT / "tests"
    assert SLOW_MODULES and sorted(name for name in SLOW_MODULES if not (tests / f"{name}.py").is_file()) == []
    missing = [name for name in SLOW_TESTS if not (tests / f"{name.partition('::')[0]}.py").is_file()
               or f"def {name.partition('::')[2]}(" not in (tests / f"{name.partition('::')[0]}.py").read_text()]
    assert SLOW_TESTS and missing == []


def _collected(*args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode in (0, 5), done.stdout[-3000:] + done.stderr[-3000:]  # 5: every test deselected
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_not_slow_leaves_the_slow_modules_and_tests_out() -> None:
    files = ["tests/test_wheel.py", "tests/test_readme.py", "tests/test_kernels.py"]
    slow_test = "tests/test_kernels.py::test_kernels_load_without_a_cache_directory"
    fast = _collected("-m", "not slow", *files)
    slow = _collected("-m", "slow", *files)
    assert fast and not any(item.startswith(("tests/test_wheel.py::", slow_test)) for item in fast)
    assert any(item.startswith("tests/test_kernels.py::") for item in fast)
    assert slow and all(item.startswith(("tests/test_wheel.py::", slow_test)) for item in slow)
    assert any(item.startswith(slow_test) for item in slow)


def test_make_test_runs_everything_and_test_fast_leaves_the_slow_tests_out() -> None:
    makefile = (ROOT / "Makefile").read_text()
    recipes = dict(re.findall(r"^([\w-]+):[^\n]*\n((?:\t[^\n]*\n)+)", makefile, flags=re.M))
    assert "-m pytest\n" in recipes["test"] and " -m " not in recipes["test"].split("pytest", 1)[1]
    assert '-m pytest -m "not slow"' in recipes["test-fast"]
    readme = (ROOT / "README.md").read_text()
    assert "make test-fast" in readme
