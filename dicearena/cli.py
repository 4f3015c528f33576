"""``dicearena COMMAND ...``: the package's tools, for an installed user (no checkout needed).

Each command is a module's own ``main(argv)``, the same code ``python -m <module>`` and the scripts ``train.py`` /
``evaluate.py`` run; this only dispatches, so ``dicearena train --help`` is that module's help.
"""

from __future__ import annotations

import importlib
import sys

from dicearena import __version__

__all__ = ["COMMANDS", "main"]

COMMANDS: dict[str, tuple[str, str]] = {
    "train": ("dicearena.agents.training.train", "train an agent from a recipe (a file, or a bundled name)"),
    "evaluate": ("dicearena.agents.evaluation.evaluate", "play agents against each other from a recipe"),
    "play": ("dicearena.agents.evaluation.human_play", "play a game yourself against agents, in the terminal"),
    "replay": ("dicearena.agents.evaluation.replay", "write a GIF (or MP4) of a game between named agents"),
    "bench": ("dicearena.bench.bench_game", "every game's faces against connect_four_v3, measured in one run"),
    "bench-threads": ("dicearena.bench.bench_threads", "every game's batched engine on 2 threads against 1"),
    "bench-contention": ("dicearena.bench.bench_contention", "threads and training with other processes busy"),
    "bench-search": ("dicearena.bench.bench_search", "state API speed, search strength and optimality"),
    "bench-training": ("dicearena.bench.bench_training", "time to quality on the decision tasks"),
    "bench-profile": ("dicearena.bench.bench_profile", "where a batched step's time goes, stage by stage"),
    "ship": ("dicearena.agents.evaluation.ship", "shipped agents against their games' heuristics; --ship a run"),
    "rllib": ("dicearena.agents.training.rllib", "self-play PPO on Ray RLlib from a recipe (the rllib extra)"),
    "curves": ("dicearena.agents.training.self_play", "plot self-play runs' learning curves"),
    "recipes": ("dicearena.cli", "list the bundled recipes"),
}


def _usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {help_}" for name, (_, help_) in COMMANDS.items()]
    head = "usage: dicearena COMMAND [ARGS ...]   (dicearena COMMAND --help for a command's own)"
    return head + "\n\ncommands:\n" + "\n".join(lines)


def recipes() -> int:
    """Print the bundled recipes, one name a line (what ``dicearena train NAME`` accepts)."""
    from importlib import resources

    for path in sorted(resources.files("dicearena.configs").iterdir(), key=lambda p: p.name):
        if path.name.endswith(".yaml"):
            print(path.name.removesuffix(".yaml"))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if not args or args[0] in ("-h", "--help"):
        print(_usage())
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command == "--version":
        print(__version__)
        return 0
    if command not in COMMANDS:
        print(f"dicearena: unknown command {command!r}; commands: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    if command == "recipes":
        return recipes()
    module = importlib.import_module(COMMANDS[command][0])
    saved = sys.argv[0]
    sys.argv[0] = f"dicearena {command}"  # argparse names the command in its usage line
    try:
        result = module.main(rest)
    finally:
        sys.argv[0] = saved
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
