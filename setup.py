"""The package layout, computed: the visible folders are installed under the one import name ``dicearena``.

Why a setup.py: ``[tool.setuptools.packages.find]`` cannot map several folders into one package, and a hand-kept
list of subpackages goes stale the day someone adds a game. Everything else is declared in ``pyproject.toml``.
"""

from setuptools import find_packages, setup

LAYOUT = {
    "dicearena": "dicearena", "dicearena.envs": "envs", "dicearena.agents": "agents", "dicearena.configs": "configs",
    "dicearena.bench": "bench",
}


def packages() -> list[str]:
    found = []
    for name, folder in LAYOUT.items():
        found += [name] + [f"{name}.{sub}" for sub in find_packages(folder)]
    return found


setup(packages=packages(), package_dir=LAYOUT)
