"""``python -m dicearena.agents.evaluation.ship``: every shipped agent (``dicearena.agents.shipped``) head to head
against its game's heuristics, and
``--ship RUN NAME``, which turns a finished self-play run into a shipped agent (model and card in ``agents/models``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from dicearena.agents import table_player
from dicearena.agents.evaluation.play import head_to_head
from dicearena.agents.shipped import MODELS, ShippedAgent, shipped, shipped_card

__all__ = ["git_commit", "main", "match", "ship"]


def match(name: str, games: int, seed: int = 0) -> list[dict[str, Any]]:
    """The shipped agent head to head against each agent its card names (``against``), at 2 players."""
    agent = ShippedAgent(name)
    config = agent.table_config(2)
    return [{"agent": name, "against": other, **head_to_head(agent.game, agent, table_player(agent.game, other, config),
                                                             config, games, seed + k)}
            for k, other in enumerate(agent.card["against"])]  # fmt: skip


def _copy_without_optimizer(source: Path, target: Path) -> None:
    """The model zip minus the optimizer state (half its size, and playing never needs it), compressed."""
    import zipfile

    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for item in archive.infolist():
            if item.filename != "policy.optimizer.pth":
                out.writestr(item.filename, archive.read(item.filename))


def ship(run: Path, name: str, commit: str) -> Path:
    """Copy a finished self-play run's model into ``agents/models`` as ``name``, with its card: the game, the
    config keys its observation needs, the players, the recipe, ``commit`` and the run's ``score.json``."""
    recipe = yaml.safe_load((run / "config.yaml").read_text())
    score = json.loads((run / "score.json").read_text())
    task = recipe["task"]
    game = task["id"].removesuffix("_selfplay")
    if game == task["id"]:
        raise ValueError(f"{run} is not a self-play run (task {task['id']!r})")
    keys = {k: v for k, v in task["config"]["game"].items() if k != "num_players"}
    card = {
        "name": name, "game": game, "config": keys, "players": [task["config"]["game"].get("num_players", 2)],
        "advisor": task["config"].get("advisor"),
        "against": task["config"]["evaluation"]["against"], "recipe": recipe, "commit": commit,
        "measured": {"steps": score["timesteps"], "minutes": score["minutes_in_all"],
                     "head_to_head": [{k: r[k] for k in ("against", "win_rate", "ci95", "games")}
                                      for r in score["head_to_head"]]},
    }  # fmt: skip
    MODELS.mkdir(exist_ok=True)
    _copy_without_optimizer(run / "model.zip", MODELS / f"{name}.zip")
    path = MODELS / f"{name}.yaml"
    header = f"# Shipped by: python -m dicearena.agents.evaluation.ship --ship {run} {name}\n"
    path.write_text(header + yaml.safe_dump(json.loads(json.dumps(card)), sort_keys=False))  # no YAML anchors
    shipped.cache_clear()
    return path


def git_commit() -> str:
    """The checked-out commit (what a shipped card says produced it), or "unknown" outside a git clone."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play every shipped agent against its game's heuristics.")
    parser.add_argument("--games", type=int, default=400, help="games per pairing, seats alternated (default 400)")
    parser.add_argument("--only", nargs="*", help="shipped agent names (default: all)")
    parser.add_argument("--ship", nargs=2, metavar=("RUN", "NAME"), help="ship a finished self-play run as NAME")
    args = parser.parse_args(argv)
    if args.games < 2:
        parser.error("--games must be at least 2")
    if args.ship:
        print(ship(Path(args.ship[0]), args.ship[1], git_commit()))
        return 0
    names = args.only or list(shipped())
    print(f"{'shipped agent':<14} {'game':<18} {'against':<18} {'win share':>9}  95% interval     games/s  "
          "its card (the games it was measured on)")  # fmt: skip
    for name in names:
        card = shipped_card(name)
        measured = {r["against"]: r for r in card.get("measured", {}).get("head_to_head", [])}
        for row in match(name, args.games):
            low, high = row["ci95"]
            known = measured.get(row["against"])
            told = f"{known['win_rate']:.3f} over {known['games']:,}" if known else ""
            print(f"{name:<14} {card['game']:<18} {row['against']:<18} {row['win_rate']:>9.3f}  "
                  f"[{low:.3f}, {high:.3f}]  {row['games_per_second']:>8.0f}  {told}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
