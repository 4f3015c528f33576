"""Every README's Python snippets run as written (docs that match the code): README.md, each game's
envs/<game>/README.md, notebooks/README.md and any README added beside them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIP = (".", "results", "runs")  # folders that are not the project's docs: .venv, .git, run outputs


def _readmes() -> list[Path]:
    """README.md at the root and up to two folders down (a new game's README is picked up by itself)."""
    found = [path for pattern in ("README.md", "*/README.md", "*/*/README.md") for path in ROOT.glob(pattern)]
    return sorted(p for p in found if not p.relative_to(ROOT).parts[0].startswith(SKIP))


def _snippets() -> list[tuple[Path, int, str]]:
    """(README, index, code) for every fenced ```python block."""
    out = []
    for path in _readmes():
        for i, code in enumerate(re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)):
            out.append((path, i, code))
    return out


SNIPPETS = _snippets()


def test_every_readme_is_found() -> None:
    names = {str(p.relative_to(ROOT)) for p in _readmes()}
    assert {"README.md", "notebooks/README.md", "envs/easy_come_easy_go/README.md", "envs/extra/README.md",
            "envs/yay/README.md"} <= names  # fmt: skip
    assert sum(path.name == "README.md" and path.parent == ROOT for path, _, _ in SNIPPETS) >= 2


@pytest.mark.parametrize(
    ("path", "code"),
    [(path, code) for path, _, code in SNIPPETS],
    ids=[f"{path.relative_to(ROOT)}#{i}" for path, i, _ in SNIPPETS],
)
def test_readme_snippet_runs(path: Path, code: str) -> None:
    exec(compile(code, str(path), "exec"), {"__name__": "readme"})
