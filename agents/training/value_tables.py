"""Learned value tables (Easy Come's position values, Extra!'s planning values, Yay!'s board values): the trainers'
command line, scoring and cards.

Why one module: a table-valued agent ships as an ``.npz`` of plain arrays (``dicearena.agents.table_files``: loading it
runs no code, unlike a pickle) beside a card (``dicearena.agents.shipped``), and each trainer scores its table head to
head against its game's baselines the same way; this holds that plumbing once.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from dicearena.agents import table_player
from dicearena.agents.evaluation.play import head_to_head
from dicearena.agents.evaluation.ship import git_commit

__all__ = ["command_line", "score_and_card", "trainer_parser"]


def trainer_parser(description: str, name: str, score_games: int) -> argparse.ArgumentParser:
    """A table trainer's command line with the arguments every trainer takes (``--seed``, ``--out``,
    ``--score-games``); each adds its own."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path(f"runs/{name}/{name}.npz"),
                        help="the table to write; its card (the .yaml beside it) too")  # fmt: skip
    parser.add_argument("--score-games", type=int, default=score_games,
                        help=f"head-to-head games per baseline (default {score_games:,})")  # fmt: skip
    return parser


def command_line(module: str, argv: list[str] | None) -> str:
    """The command that ran a trainer (what its card's recipe records)."""
    return f"python -m {module} " + " ".join(sys.argv[1:] if argv is None else argv)



def score_and_card(
    game: str, bot: Any, against: tuple[str, ...], games: int, out: Path, card: dict[str, Any], command: str,
    extra: dict[str, Any] | None = None, seed: int = 12345,
) -> Path:  # fmt: skip
    """Play ``bot`` head to head (2 players, seats alternated) against each of ``against`` and the ``extra``
    agents (printed only), print each win share, and write the card (``card`` plus the measured rows) beside
    the table ``out``. Returns the card's path."""
    import yaml


    config, rows = {"num_players": 2}, []
    rivals = {name: table_player(game, name, config) for name in against}
    for name, rival in {**rivals, **(extra or {})}.items():
        result = head_to_head(game, bot, rival, config, games=games, seed=seed)
        low, high = result["ci95"]
        print(f"against {name}: {result['win_rate']:.4f} [{low:.4f}, {high:.4f}] over {games} games "
              f"({result['tie_rate']:.1%} ties, {result['games_per_second']:.0f} games/s)")  # fmt: skip
        if name in rivals:
            rows.append({"against": name, "win_rate": result["win_rate"], "ci95": [low, high], "games": games})
    card = {"name": out.stem, "game": game, "config": {}, "players": [2], "model": out.name, **card,
            "against": list(against), "commit": git_commit()}  # fmt: skip
    card["measured"] = {**card.get("measured", {}), "head_to_head": rows}
    path = out.with_suffix(".yaml")
    path.write_text(f"# Shipped by: {command}\n" + yaml.safe_dump(card, sort_keys=False))
    print(f"wrote {path}")
    return path
