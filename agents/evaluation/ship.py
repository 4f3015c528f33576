"""``python -m dicearena.agents.evaluation.ship``: every shipped agent (``dicearena.agents.shipped``) head to head
against its game's heuristics, each row beside the share its card records and whether the two agree, and ``--ship
RUN NAME``, which turns a finished self-play run into a shipped agent (model and card in ``agents/models``). NAME
is a plain name (``[a-z0-9_]+``), so the files land in that folder; an existing shipped agent of that name is
replaced only with ``--replace``. Every mistake (an unknown ``--only`` name, a run that is missing or not finished)
is one ``error:`` line and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import yaml

from dicearena.agents import agent_names, table_player
from dicearena.agents.evaluation.play import head_to_head
from dicearena.agents.evaluation.stats import Z95, rate_difference_z
from dicearena.agents.model_files import replace_atomically
from dicearena.agents.shipped import MODELS, NAME, ShippedAgent, check_card, shipped, shipped_card

__all__ = ["git_commit", "main", "match", "ship"]

# |z| beyond which a row is said to differ from its card: 99.9% (not 95%), since a run prints some 25 rows and at
# 95% one or two of them would differ by chance alone
Z_DIFFER = 3.29


def match(name: str, games: int, seed: int = 0) -> list[dict[str, Any]]:
    """The shipped agent head to head against each agent its card names (``against``), at 2 players."""
    agent = ShippedAgent(name)
    config = agent.table_config(2)
    return [{"agent": name, "against": other, **head_to_head(agent.game, agent, table_player(agent.game, other, config),
                                                             config, games, seed + k)}
            for k, other in enumerate(agent.card["against"])]  # fmt: skip


def _copy_without_optimizer(source: Path, target: Path) -> None:
    """The model zip minus the optimizer state (half its size, and playing never needs it), compressed."""
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for item in archive.infolist():
            if item.filename != "policy.optimizer.pth":
                out.writestr(item.filename, archive.read(item.filename))


def _run_files(run: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The recipe and score of the finished self-play run at ``run``; a ValueError naming what is missing."""
    if not run.is_dir():
        raise ValueError(f"no run at {run}: give a finished self-play run's output_dir")
    missing = [f for f in ("config.yaml", "score.json", "model.zip") if not (run / f).is_file()]
    if missing:
        raise ValueError(f"{run} is not a finished self-play run: {', '.join(missing)} missing (train it to the end "
                         "first)")  # fmt: skip
    try:
        recipe = yaml.safe_load((run / "config.yaml").read_text())
        score = json.loads((run / "score.json").read_text())
    except (OSError, UnicodeDecodeError, yaml.YAMLError, json.JSONDecodeError) as exc:
        raise ValueError(f"{run}: config.yaml or score.json is unreadable ({exc})") from None
    return recipe, score


def ship(run: Path, name: str, commit: str, replace: bool = False) -> Path:
    """Copy a finished self-play run's model into ``agents/models`` as ``name``, with its card: the game, the
    config keys its observation needs, the players, the recipe, ``commit`` and the run's ``score.json``. ``name`` is
    a plain name; an existing shipped agent of that name is replaced only with ``replace``."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ValueError(f"the shipped name must be lowercase letters, digits and '_' only (it names the files in "
                         f"{MODELS}), got {name!r}")  # fmt: skip
    existing = [f"{name}{ext}" for ext in (".yaml", ".zip") if (MODELS / f"{name}{ext}").exists()]
    if existing and not replace:
        raise ValueError(f"a shipped agent {name!r} exists ({', '.join(existing)} in {MODELS}); add --replace to "
                         "replace it, or choose another name")  # fmt: skip
    if name in agent_names() and name not in shipped():
        raise ValueError(f"{name!r} is the name of a built-in agent; choose another name")
    run = Path(run)
    recipe, score = _run_files(run)
    try:
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
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{run} is not a finished self-play run: its config.yaml or score.json lacks {exc}") from None
    card = json.loads(json.dumps(card))  # plain data: no YAML anchors, nothing but what a card reads back as
    check_card(name, card, MODELS)  # what shipped() will check when it reads the card back
    MODELS.mkdir(exist_ok=True)
    try:
        replace_atomically(MODELS / f"{name}.zip", lambda tmp: _copy_without_optimizer(run / "model.zip", tmp))
    except (zipfile.BadZipFile, OSError) as exc:
        raise ValueError(f"{run / 'model.zip'}: not a readable model zip ({exc})") from None
    path = MODELS / f"{name}.yaml"
    shown = str(run) if str(run).isprintable() else repr(str(run))  # the header stays one comment line
    header = f"# Shipped by: python -m dicearena.agents.evaluation.ship --ship {shown} {name}\n"
    text = header + yaml.safe_dump(card, sort_keys=False)
    replace_atomically(path, lambda tmp: tmp.write_text(text))
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
    parser.add_argument("--games", type=int, default=400, help="games per pairing, seats alternated (default 400: a "
                        "share to about +-0.05; the cards used 4,000 or more)")  # fmt: skip
    parser.add_argument("--only", nargs="*", help="shipped agent names (default: all)")
    parser.add_argument("--ship", nargs=2, metavar=("RUN", "NAME"), help="ship a finished self-play run as NAME "
                        "(a plain name: lowercase letters, digits, '_')")  # fmt: skip
    parser.add_argument("--replace", action="store_true", help="with --ship: replace a shipped agent of that name")
    args = parser.parse_args(argv)
    try:
        if args.games < 2:
            raise ValueError(f"--games must be at least 2, got {args.games}")
        if args.replace and not args.ship:
            raise ValueError("--replace goes with --ship RUN NAME")
        if args.ship:
            print(ship(Path(args.ship[0]), args.ship[1], git_commit(), replace=args.replace))
            return 0
        names = args.only or list(shipped())
        unknown = [n for n in names if n not in shipped()]
        if unknown:
            raise ValueError(f"no shipped agent {unknown[0]!r}; shipped agents: {', '.join(shipped()) or 'none'}")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"Each shipped agent head to head against the agents its card names: 2 players, seats alternated, "
          f"{args.games:,} games a row (a shared top counts 1/k).")  # fmt: skip
    print(f"{'shipped agent':<14} {'game':<18} {'against':<16} {'win share':>9}  {'95% interval':<14} {'games/s':>8}  "
          f"{'its card':>8}  {'over games':>10}  here vs card")  # fmt: skip
    differ = 0
    for name in names:
        card = shipped_card(name)
        measured = {r["against"]: r for r in card.get("measured", {}).get("head_to_head", [])}
        for row in match(name, args.games):
            low, high = row["ci95"]
            known = measured.get(row["against"])
            told = verdict = ""
            if known:
                z = rate_difference_z(row["win_rate"], row["games"], known["win_rate"], known["games"])
                differ += abs(z) > Z_DIFFER
                told = f"{known['win_rate']:>8.3f}  {known['games']:>10,}"
                verdict = "agree" if abs(z) <= Z_DIFFER else f"differ (z = {z:+.1f})"
            print(f"{name:<14} {card['game']:<18} {row['against']:<16} {row['win_rate']:>9.3f}  "
                  f"[{low:.3f}, {high:.3f}] {row['games_per_second']:>8,.0f}  {told}  {verdict}")  # fmt: skip
    notes = (f"'its card': the share recorded on the agent's card when it was trained or shipped, measured the same "
             f"way (this head to head, the card's game config) over its own games and seeds. Here a share is known to "
             f"about +-{Z95 * 0.5 / args.games ** 0.5:.3f} (95%); the cards used 4,000 or 20,000 games (--games "
             f"4000 measures as they did). 'agree': the two differ by less than their game counts explain "
             f"(two-proportion z-test at 99.9%). games/s leaves out compiling.")  # fmt: skip
    if differ:
        notes += (f" {differ} row{'s' * (differ != 1)} differ: if that stays with --games 4000, the agent or its "
                  "opponents changed since the card's commit.")  # fmt: skip
    print(textwrap.fill(notes, 120))
    return 0


if __name__ == "__main__":
    sys.exit(main())
