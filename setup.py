"""The package layout, computed: the visible folders are installed under the one import name ``dicearena``.

Why a setup.py: ``[tool.setuptools.packages.find]`` cannot map several folders into one package, and a hand-kept
list of subpackages goes stale the day someone adds a game. Everything else is declared in ``pyproject.toml``.
"""

from setuptools import find_namespace_packages, setup

LAYOUT = {
    "dicearena": "dicearena", "dicearena.envs": "envs", "dicearena.agents": "agents", "dicearena.configs": "configs",
    "dicearena.bench": "bench",
}


def packages() -> list[str]:
    """Every folder, data folders too (``agents/models``, Ea$y Money's ``data``): setuptools wants each folder it
    installs files from listed as a package, and warns about any that is not."""
    found = []
    for name, folder in LAYOUT.items():
        found += [name] + [f"{name}.{sub}" for sub in find_namespace_packages(folder, exclude=["*__pycache__*"])]
    return found


setup(packages=packages(), package_dir=LAYOUT)
