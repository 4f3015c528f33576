"""The import structure: one import name, arrows that point one way, no circles.

Scans every module of the package (``envs/``, ``agents/``, ``dicearena/``) for its imports (module level and
function-local) and for ``"dicearena.<module>[:attr]"`` strings, which load modules as surely as imports do.
Layers, lowest first: ``dicearena.envs`` (the games) -> policies (``dicearena.agents`` and each game's agents) ->
evaluation (``agents/evaluation``, a game's ``benchmarks`` / ``evaluation``) -> training (``agents/training``, a game's
``tasks`` and value-table trainers). An arrow may only point down (or stay in its layer).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"envs": "dicearena.envs", "agents": "dicearena.agents", "dicearena": "dicearena"}
MODULE_STRING = re.compile(r"^(dicearena(?:\.\w+)+)(?::\w+)?$")
EVALUATION_MODULES = {"benchmarks", "evaluation"}  # a game's own modules in agents/<game>/, by layer
TRAINING_MODULES = {"tasks", "position_values", "learned_values"}
LAYERS = {"envs": 0, "policies": 1, "evaluation": 2, "training": 3}


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = [FOLDERS[rel.parts[0]], *rel.parts[1:]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] == ["dicearena", "envs"]:
        return "envs"
    if parts[:2] != ["dicearena", "agents"]:
        return None
    if len(parts) > 2 and parts[2] in ("evaluation", "training"):
        return parts[2]
    if len(parts) > 3 and parts[3] in EVALUATION_MODULES:
        return "evaluation"
    if len(parts) > 3 and parts[3] in TRAINING_MODULES:
        return "training"
    return "policies"


def modules() -> dict[str, Path]:
    out = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            out[module_name(path)] = path
    return out


def arrows(path: Path, module: str) -> list[tuple[str, int, bool]]:
    """(target module, line, at module level) of every import and module string in ``path``."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [base]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = MODULE_STRING.match(node.value)
            targets = [match.group(1)] if match else []
        for target in targets:
            found.append((target, node.lineno, id(node) in top_level))
    return found


def test_no_bare_envs_or_agents_import() -> None:
    """The issue's own check: no tracked file imports a bare ``envs`` or ``agents``."""
    files = subprocess.run(["git", "ls-files", "*.py", "*.ipynb", "*.yaml", "*.md", "Makefile"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()  # fmt: skip
    bare = re.compile(r"(^|[^.\w])(from|import) (envs|agents)\b")
    hits = [f"{f}:{n}" for f in files if (ROOT / f).is_file()
            for n, line in enumerate((ROOT / f).read_text().splitlines(), 1) if bare.search(line)]  # fmt: skip
    assert hits == []


def test_bare_names_refuse_to_import() -> None:
    """The folders only work as ``dicearena.envs`` / ``dicearena.agents``: a bare import would be a second copy."""
    for name in ("envs", "agents"):
        out = subprocess.run(["python", "-c", f"import {name}"], cwd=ROOT, capture_output=True, text=True)
        assert out.returncode != 0
        assert f"import dicearena.{name}, not {name}" in out.stderr


@pytest.fixture(scope="module")
def graph() -> dict[str, list[tuple[str, int, bool]]]:
    known = modules()
    out = {}
    for module, path in known.items():
        out[module] = [(t, line, top) for t, line, top in arrows(path, module) if t.startswith("dicearena")]
    return out


def test_envs_never_names_agents(graph) -> None:
    wrong = [f"{m}:{line} -> {t}" for m, edges in graph.items() if layer(m) == "envs"
             for t, line, _ in edges if layer(t) not in ("envs", None)]  # fmt: skip
    assert wrong == []


def test_arrows_point_down(graph) -> None:
    """training -> evaluation -> policies -> envs, never back up (imports and module strings alike)."""
    wrong = []
    for module, edges in graph.items():
        here = layer(module)
        for target, line, _ in edges:
            there = layer(target)
            if here and there and LAYERS[there] > LAYERS[here]:
                wrong.append(f"{module}:{line} ({here}) -> {target} ({there})")
    assert wrong == []


def _resolve(target: str, known: set[str]) -> str | None:
    """The package module an import names (``from a.b import c`` may name module ``a.b.c`` or attribute c)."""
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def test_no_circles_at_module_level(graph) -> None:
    """Module-level imports form no cycle (a package's ``__init__`` counts as the package)."""
    known = set(graph)
    edges = {m: {r for t, _, top in es if top and (r := _resolve(t, known)) and r != m} for m, es in graph.items()}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([*path[path.index(nxt):], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_every_module_imports_first_in_a_fresh_process() -> None:
    """No import order hides a circle: each module imported first, alone, in a fresh interpreter (what a user's
    ``from dicearena.agents.training import train`` or a spawned worker does)."""
    from concurrent.futures import ThreadPoolExecutor

    names = sorted(m for m in modules() if not m.endswith("__main__"))

    def load(name: str) -> tuple[str, str]:
        out = subprocess.run([sys.executable, "-c", f"import {name}"], cwd=ROOT, capture_output=True, text=True)
        return name, "" if out.returncode == 0 else out.stderr.strip().splitlines()[-1]

    with ThreadPoolExecutor(max_workers=2) as pool:
        failed = {name: error for name, error in pool.map(load, names) if error}
    assert failed == {}
