"""Reading YAML recipes (``train.py``, ``evaluate.py``): strict, bounded, and every mistake a short ConfigError.

Why: a recipe is the whole description of a run, so a typo must stop it before any work starts, with one
line naming the key. PyYAML alone keeps the last of two duplicate keys, reads ``1e-4`` as a string, and lets
an alias bomb expand into a structure whose error message runs to megabytes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, TypeVar

import yaml
from pydantic import Field

from dicearena.envs.common.config import ConfigError, GameConfig, validate_config

__all__ = ["MAX_NODES", "OutputDir", "RunName", "Seed", "check_recipe_kind", "load_yaml", "make_output_dir",
           "recipe_kind", "resume_changes", "section"]

MAX_BYTES = 1 << 20
MAX_NODES = 100_000  # values in a recipe after aliases are expanded (ours have under 100)

RunName = Annotated[
    str,
    Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
          description="the run's name: letters, digits, '_', '.', '-' (no path separators)"),
]  # fmt: skip
OutputDir = Annotated[str, Field(min_length=1, description="the folder outputs go to (created if absent)")]
Seed = Annotated[int, Field(ge=0, le=2**31 - 1, description="a seed in 0..2**31-1")]

class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that rejects duplicate keys and reads ``1e-4`` as a float."""


def _mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            duplicate = key in out
        except TypeError:
            line = key_node.start_mark.line + 1
            raise ConfigError(f"line {line}: a key must be a plain value, got {key!r}") from None
        if duplicate:
            raise ConfigError(f"line {key_node.start_mark.line + 1}: duplicate key {key!r} (given twice)")
        out[key] = loader.construct_object(value_node, deep=deep)
    return out


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
# YAML 1.1 floats need a dot and a signed exponent ("1.0e-4"); also read "1e-4" and "2.5e3" as floats.
_EXPONENT_FLOAT = re.compile(r"^[-+]?\d[\d_]*(?:\.\d*)?[eE][-+]?\d+$")
_StrictLoader.add_implicit_resolver("tag:yaml.org,2002:float", _EXPONENT_FLOAT, list("-+0123456789"))


def _count(value: Any, budget: list[int]) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise ConfigError(f"the recipe has more than {MAX_NODES:,} values (an alias expanding too far?)")
    if isinstance(value, dict):
        for k, v in value.items():
            _count(k, budget)
            _count(v, budget)
    elif isinstance(value, list):
        for v in value:
            _count(v, budget)


def load_yaml(path: Path) -> dict[str, Any]:
    """The recipe at ``path`` as a mapping, or a ConfigError naming what is wrong with the file."""
    if not path.is_file():
        raise ConfigError(f"no such config file: {path}")
    raw_bytes = path.read_bytes()
    if len(raw_bytes) > MAX_BYTES:
        raise ConfigError(f"{path}: {len(raw_bytes):,} bytes; a recipe is at most {MAX_BYTES:,}")
    try:
        text = raw_bytes.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a text file (not UTF-8): expected a YAML recipe") from None
    try:
        raw = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 (a SafeLoader subclass)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" at line {where.line + 1}, column {where.column + 1}" if where else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise ConfigError(f"{path}: not valid YAML{line}: {problem}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a YAML mapping (key: value lines) at the top level")
    _count(raw, [MAX_NODES])
    return raw


# What each kind of recipe is run with, and the top-level keys that tell it apart from the others.
RECIPE_KINDS = {
    "train": ("dicearena train", "a training recipe (it has a 'task' section)"),
    "rllib": ("dicearena rllib", "an RLlib training recipe (it has 'ray'/'ppo' sections)"),
    "evaluate": ("dicearena evaluate", "an evaluation recipe (it has 'game' and 'agents' but no 'task')"),
}


def recipe_kind(raw: dict[str, Any]) -> str | None:
    """Which tool a recipe is for, read off its top-level keys: ``train`` (a ``task`` section, or ``training``
    without ``game``), ``rllib`` (a ``game`` with ``ray``/``ppo``/``module`` sections), ``evaluate`` (``game`` or
    ``agents``, no ``task`` or ``training``); None when the keys do not say (the tool's own checks then name what is
    wrong)."""
    keys = set(raw)
    if "task" in keys and "agents" not in keys:
        return "train"
    if "game" in keys and keys & {"ray", "ppo", "module"} and not keys & {"agents", "task"}:
        return "rllib"
    if "training" in keys and not keys & {"game", "agents"}:
        return "train"
    if keys & {"game", "agents"} and not keys & {"task", "training"}:
        return "evaluate"
    return None


def check_recipe_kind(raw: dict[str, Any], path: Path, expected: str) -> None:
    """A ConfigError when the recipe at ``path`` is for another tool than ``expected``, naming the command to use."""
    from importlib import resources

    kind = recipe_kind(raw)
    if kind is not None and kind != expected:
        command, what = RECIPE_KINDS[kind]
        bundled = path.is_absolute() and path.parent == Path(str(resources.files("dicearena.configs")))
        name = path.stem if bundled else str(path)  # a bundled recipe by the name the user gave
        raise ConfigError(f"{name} is {what}, not one for `{RECIPE_KINDS[expected][0]}`: run `{command} {name}`")


C = TypeVar("C", bound=GameConfig)


def section(where: str, model: type[C], value: Any) -> C:
    """``value`` validated as ``model``, its errors prefixed with ``[where]``."""
    try:
        return validate_config(model, value)
    except ConfigError as exc:
        raise ConfigError(f"[{where}] {exc}") from None


Imports = list[str]  # a recipe's ``imports``: modules that register games, agents or tasks of the user's own


def import_modules(raw: Any) -> None:
    """Import each module a recipe names under ``imports`` (e.g. ``[mypkg.pig]``, a game kept outside the tree that
    registers itself), so the rest of the recipe can name what it registers; a ConfigError names one that fails."""
    import importlib
    import os
    import sys

    names = raw.get("imports", []) if isinstance(raw, dict) else []
    if names and os.getcwd() not in sys.path:  # as ``python -m`` does: the user's modules beside where they run
        sys.path.insert(0, os.getcwd())
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise ConfigError(f"'imports' is a list of module names (e.g. [mypkg.pig]), got {names!r}")
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001  (any failure of the user's module is reported by name)
            raise ConfigError(f"'imports': cannot import {name!r}: {type(exc).__name__}: {exc}") from None


def recipe_path(name: str | Path) -> Path:
    """A recipe file: ``name`` itself when it exists, else the bundled recipe of that name (``easy_money_greed`` or
    ``easy_money_greed.yaml``, from ``configs/``, installed as ``dicearena.configs``). A ConfigError lists them."""
    from importlib import resources

    path = Path(name)
    if path.is_file():
        return path
    bundled = resources.files("dicearena.configs")
    candidate = bundled / (path.name if path.suffix in (".yaml", ".yml") else f"{path.name}.yaml")
    if path.parent == Path(".") and candidate.is_file():
        return Path(str(candidate))
    names = sorted(p.name.removesuffix(".yaml") for p in bundled.iterdir() if p.name.endswith(".yaml"))
    raise ConfigError(f"no recipe file {str(name)!r}, and no bundled recipe of that name; bundled: {', '.join(names)}")


def make_output_dir(path: str | Path, key: str) -> Path:
    """Create the folder ``path`` (named in errors as the recipe's ``key``), or a ConfigError saying why not."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{key!r} {str(out)!r} is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"{key!r} {str(out)!r} cannot be created: {exc.strerror or exc}") from None
    return out


def _flat(tree: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(tree, dict) and tree:
        out: dict[str, Any] = {}
        for key, value in tree.items():
            out.update(_flat(value, f"{prefix}{key}."))
        return out
    return {prefix[:-1]: tree}


def resume_changes(previous: dict[str, Any], recipe: dict[str, Any], output_dir: str, ignored: tuple[str, ...],
                   fixed: tuple[str, ...], shaped: str) -> list[str]:  # fmt: skip
    """The edited values a resumed run applies ("key: old -> new", keys dotted), or a ConfigError naming those under
    a ``fixed`` prefix that changed (``shaped``: what they shape, for the message). ``train.py`` and
    ``dicearena.agents.training.rllib`` resume alike."""
    old, new = _flat(previous), _flat(recipe)
    changed = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k) and k not in ignored)
    stuck = [k for k in changed if k.startswith(fixed) or f"{k}.".startswith(fixed)]
    if stuck:
        listed = "; ".join(f"{k}: {old.get(k)!r} -> {new.get(k)!r}" for k in stuck)
        raise ConfigError(f"cannot resume {output_dir} with these keys changed ({shaped}): {listed}. Restore them, "
                          "or add --fresh to start over")  # fmt: skip
    return [f"{k}: {old.get(k)!r} -> {new.get(k)!r}" for k in changed]

