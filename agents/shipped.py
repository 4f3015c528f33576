"""Trained agents that ship with the package, loadable by name: ``make_agent("eceg_ppo")``.

Why: a new user should be able to play against (and benchmark) a trained agent without training one first. Each
shipped agent is two files in ``agents/models/``: its model and ``<name>.yaml``, its card (the game, the config keys
its observation needs, the player counts it was trained for, the recipe and the commit that produced it, and what
it measured). The model is ``<name>.zip``, an SB3 policy read as data (``dicearena.agents.model_files``), or the file
the card's ``model`` names, read by the card's ``loader`` (Easy Come's learned position values, ``eceg_td.npz``).
``python -m dicearena.agents.evaluation.ship`` plays each one head to head against its game's heuristics and prints the
win shares (``--ship RUN NAME`` adds a finished self-play run).

What a card is trusted with: it is read as plain YAML (no tags that build objects), its name is a plain name
(``[a-z0-9_]+``), its ``model`` is a file inside the models folder, and its ``loader`` is one of ``LOADERS`` (the
package's own readers of learned tables; no loader: an SB3 zip read as data). A card that breaks any of these is
skipped with a warning naming the file; every other agent still loads.
"""

from __future__ import annotations

import re
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from dicearena.agents import table_player
from dicearena.agents.advice import AdvisedAgent
from dicearena.agents.base import Agent
from dicearena.agents.sb3_agent import SB3Agent

__all__ = ["LOADERS", "MODELS", "NAME", "CardError", "ShippedAgent", "check_card", "load_shipped", "shipped",
           "shipped_card"]  # fmt: skip

MODELS = Path(__file__).resolve().parent / "models"  # tests point it at a folder of their own
NAME = re.compile(r"[a-z0-9_]+")  # a shipped agent's name: its files' stem, so never a path
# what a card's ``loader`` may name (no loader: an SB3 zip, read as data); each is called with the model file's path
LOADERS = (
    "dicearena.agents.easy_come_easy_go.position_agent:PositionValueAgent",
    "dicearena.agents.extra.learned_planner:LearnedPlannerAgent",
    "dicearena.agents.yay.learned_lookahead:LearnedLookaheadAgent",
)


class CardError(ValueError):
    """A shipped agent's card that is not one: the message names the file and what is wrong."""


def check_card(name: str, card: Any, folder: Path) -> Path:
    """The model file of the card ``<folder>/<name>.yaml`` holding ``card``, after checking its name, its keys, that
    its model is a file inside ``folder`` and that its loader is one of ``LOADERS``; a CardError naming what is
    wrong."""
    where = f"{name}.yaml"
    if not NAME.fullmatch(name):
        raise CardError(f"{where}: a shipped agent's name is lowercase letters, digits and '_' only")
    if not isinstance(card, dict):
        raise CardError(f"{where}: not a card (a YAML mapping of keys), got {type(card).__name__}")
    if not isinstance(card.get("game"), str) or not card["game"]:
        raise CardError(f"{where}: no 'game' (the game id the agent plays)")
    players = card.get("players")
    if not isinstance(players, list) or not players or not all(type(n) is int and n >= 1 for n in players):
        raise CardError(f"{where}: 'players' must be a list of player counts, got {players!r}")
    if not isinstance(card.get("config", {}), dict):
        raise CardError(f"{where}: 'config' must be a mapping of the game's config keys")
    model = card.get("model", f"{name}.zip")
    if not isinstance(model, str) or not model or Path(model).is_absolute() or ".." in Path(model).parts:
        raise CardError(f"{where}: 'model' must name a file in the models folder, got {model!r}")
    path = folder / model
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        raise CardError(f"{where}: 'model' {model!r} leads outside the models folder ({folder})") from None
    loader = card.get("loader")
    if loader is not None and loader not in LOADERS:
        raise CardError(f"{where}: loader {loader!r} is not one of the allowed loaders: {', '.join(LOADERS)} (or no "
                        "loader, for an SB3 zip)")  # fmt: skip
    return path


@cache
def shipped() -> dict[str, dict[str, Any]]:
    """name -> its card (the ``<name>.yaml``), for every model in ``agents/models``; a card that does not check out
    (``check_card``) is skipped with a warning naming it, a card whose model file is absent is left out."""
    cards = {}
    for card in sorted(MODELS.glob("*.yaml")):
        try:
            data = yaml.safe_load(card.read_text())
            model = check_card(card.stem, data, MODELS)
        except (OSError, UnicodeDecodeError, yaml.YAMLError, CardError) as exc:
            reason = str(exc).removeprefix(f"{card.name}: ") if isinstance(exc, CardError) else (
                f"not a readable YAML card ({' '.join(str(exc).split())})")  # fmt: skip
            warnings.warn(f"skipping the shipped agent card {card}: {reason}", stacklevel=2)
            continue
        if model.is_file():
            cards[card.stem] = data
    return cards


def shipped_card(name: str) -> dict[str, Any]:
    cards = shipped()
    if name not in cards:
        raise ValueError(f"no shipped agent {name!r}; shipped agents: {', '.join(cards) or 'none'}")
    return cards[name]


class ShippedAgent(Agent):
    """A shipped model (an ``SB3Agent``, or what the card's ``loader`` builds from its ``model`` file) that also knows
    the game config its observations need (``config``) and the player counts it claims (``players``), so a runner
    can build a table it can read; a card naming an ``advisor`` plays with that agent's advice in its observation
    (``dicearena.agents.advice``)."""

    def __init__(self, name: str, deterministic: bool = True) -> None:
        card = shipped_card(name)
        self.name, self.card = name, card
        self.game, self.config, self.players = card["game"], dict(card.get("config", {})), list(card["players"])
        self.model = _load_model(name, card, deterministic)
        self.reads_state = bool(getattr(self.model, "reads_state", False))
        self.advisor = card.get("advisor")
        if self.advisor:  # it reads its advisor's advice too (dicearena.agents.advice)
            advisor = table_player(self.game, self.advisor, self.table_config(self.players[0]))
            self.model = AdvisedAgent(self.model, advisor, name)
        self.reads_both = bool(self.advisor)

    @property
    def observation_space(self) -> Any:
        """The observations it reads (None for a model that plans on engine states: it reads none)."""
        return getattr(self.model, "observation_space", None)

    def table_config(self, num_players: int, **keys: Any) -> dict[str, Any]:
        """The game config of a table this agent can read (its observation keys, ``num_players``, ``keys``)."""
        if num_players not in self.players:
            raise ValueError(f"{self.name} was trained for {self.players} players, not {num_players}")
        return {**self.config, **keys, "num_players": num_players}

    def act_batch(self, observations: Any, action_masks: Any) -> Any:
        return self.model.act_batch(observations, action_masks)

    def act_observed(self, observations: Any, action_masks: Any, states: Any, seats: Any) -> Any:
        return self.model.act_observed(observations, action_masks, states, seats)

    def act_states(self, states: Any, action_masks: Any, seats: Any) -> Any:
        return self.model.act_states(states, action_masks, seats)

    def act(self, observation: Any, action_mask: Any, state: Any = None, seat: int | None = None) -> int:
        return self.model.act(observation, action_mask, state, seat)

    def reset(self, seed: int | None = None) -> None:
        self.model.reset(seed)


def _load_model(name: str, card: dict[str, Any], deterministic: bool) -> Any:
    """The card's model: ``loader`` (one of ``LOADERS``, called with the model file's path) or an SB3 policy read as
    data. Only the allowed loaders run, so a card cannot make loading call anything else."""
    path = MODELS / card.get("model", f"{name}.zip")
    loader = card.get("loader")
    if loader is None:
        return SB3Agent.load(path, deterministic=deterministic, name=name)
    if loader not in LOADERS:
        raise CardError(f"{name}.yaml: loader {loader!r} is not one of the allowed loaders: {', '.join(LOADERS)} (or "
                        "no loader, for an SB3 zip)")  # fmt: skip
    import importlib

    module, _, cls = loader.partition(":")
    return getattr(importlib.import_module(module), cls)(path)


def load_shipped(name: str, deterministic: bool = True) -> ShippedAgent:
    """The shipped agent ``name`` (``agents.make_agent`` calls this for every name in ``shipped()``)."""
    return ShippedAgent(name, deterministic)


def __getattr__(name: str) -> Any:
    """``dicearena.agents.shipped.<model name>``: its loader, what the agent registry's
    ``"dicearena.agents.shipped:<name>"`` imports."""
    if name in shipped():
        def load(deterministic: bool = True) -> ShippedAgent:
            return ShippedAgent(name, deterministic)

        load.__name__ = name
        return load
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
