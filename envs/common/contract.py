"""The game contract: what a rules engine provides, and the spec a game declares itself with.

Why: every face (AEC env, batched engine, seat-vs-opponents env, evaluation, tournaments, self-play, RLlib)
is written once, over this contract, instead of once per game. A game is its own folder: an engine module
that implements the names below, a config model, renderers, and one :class:`GameSpec` passed to
:func:`register_game`.

**Engine module** (numba ``@njit`` functions over one flat ``int32`` state; same names and arity in every game):

- ``sizes(config) -> Sizes`` (plain Python): the state, observation, action and chance-outcome lengths.
- ``header(config) -> np.ndarray`` (plain Python, int32): every rule knob, which ``init_state`` writes into the
  state's header, so one compiled engine serves every config.
- ``init_state(state, header)``: a new game, at its first chance or decision node; ``state[0]`` holds the number
  of players (the state API checks a loaded state's against its config's).
- ``to_act(state) -> int``: the seat that must decide, or ``CHANCE`` at a chance node, ``NOBODY`` when over.
- ``legal_mask(state, seat, mask)``, ``is_legal(state, seat, action) -> bool``, ``apply_action(state, seat,
  action)``: the decision rules (``apply_action`` only ever receives legal actions).
- ``status(state) -> int``: ``PLAYING``, ``TERMINATED`` or ``TRUNCATED``.
- ``rewards(state, out)``: each seat's final reward into ``out`` (all 0 while playing).
- ``observe(state, seat, out)``: the float32 observation from ``seat``'s side.
- optional ``current_seat(state) -> int``: whose turn it is, also after the end (the AEC env selects that agent
  when the game is over, e.g. Easy Come's winner, decided as their turn starts); without it the mover stays.
- optional ``refresh(state)``, for an engine that keeps derived data beside the rules' state to spare its hot paths
  a pass (Yay!'s filled and legal squares as bitboards): recompute it from the rest. Every transition keeps it; the
  state API calls this on each state it loads, so a state written by hand loads right.
- optional ``resample_hidden(state, key)``, for a game that hides part of its state from every player (Ea$y Money's
  face-down decks): redraw the hidden part from one random word, as the players' information allows, so that every
  seat's ``observe`` is unchanged. Search plans on such redraws (``State.resample_from_infostate``, the search
  agent's worlds); without it the game declares that nothing is hidden.

**Simultaneous games** (``GameSpec.dynamics == "simultaneous"``, e.g. Extra!: every seat decides on the same
throw): ``to_act`` is ``SIMULTANEOUS`` at a decision node and ``acting(state, out) -> int`` marks in ``out`` (one
entry per seat) the seats that must still decide and returns how many. ``apply_action(state, seat, action)``
records the seat's choice (no other seat sees it) and returns 1 once the last acting seat's choice resolves the
round, else 0. Two more functions: ``seat_status(state, seat) -> int`` (a seat can finish before the game, e.g.
Extra!'s last EXTRA box: ``TERMINATED``) and ``step_rewards(state, out)``, what the faces pay right after a
resolved round (a finisher's score, a shaped change, the final rewards at the end); over a game they sum to
``rewards`` at its end. A sequential game's faces pay ``rewards`` once, at the end, unless its engine has
``shaping_potentials(state, out)`` (0 in a new game and when the config does not shape; the generated kernels pass
it to the loops): then every step pays the change of each seat's potential, and the last the final reward minus it.
A simultaneous game whose seats' views share work may add ``observe_scratch(state) -> scratch`` and
``observe_all(state, obs, scratch)`` (every seat's observation, ``obs`` (P, D), in one call); its kernels
(generated from the engine, ``dicearena.envs.common.kernels``) then use it.

**Chance** (one mechanism for dice, landings and card decks): at a chance node
``chance_words(state) -> int`` says how many random 64-bit words (non-negative int64) the event uses (a seeded
source always draws a block of ``Sizes.words``, so one game and a batch consume the same stream);
``draw_outcome(state, words, outcome)`` turns them into an int32 outcome vector (the engine's chance model:
faces, touched squares, a card); ``apply_outcome(state, outcome)`` plays it. An injected source supplies
outcomes directly, checked by ``check_outcome(state, outcome) -> int`` (0: valid, else a game-specific code
that the spec's ``explain_outcome`` words). Where the outcome set is small, ``enumerate_outcomes(state,
outcomes, probs) -> int`` writes every outcome with its probability (OpenSpiel's ``chance_outcomes``) and
returns how many (``-1``: not enumerable), so solvers need no chance code of their own.
"""

from __future__ import annotations

import difflib
import importlib
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal, NamedTuple

import numpy as np

from .config import GameConfig
from .kernels import kernels_for

__all__ = [
    "CHANCE",
    "GAMES",
    "NOBODY",
    "PLAYING",
    "SIMULTANEOUS",
    "TERMINATED",
    "TRUNCATED",
    "GameSpec",
    "Sizes",
    "float64_bits",
    "TASK_GAMES",
    "float_bits",
    "game_module",
    "game_reference",
    "game_spec",
    "nearest_games",
    "register_game",
    "register_task",
    "resolve_spec",
    "spec_reference",
    "task_module",
]

# to_act(state) when no single seat decides
CHANCE = -1
NOBODY = -2
SIMULTANEOUS = -3  # several seats decide at once (``acting`` says which)
# status(state)
PLAYING = 0
TERMINATED = 1
TRUNCATED = 2

ENGINE_FUNCTIONS = (
    "sizes", "header", "init_state", "to_act", "legal_mask", "is_legal", "apply_action", "status", "rewards",
    "observe", "chance_words", "draw_outcome", "apply_outcome", "check_outcome", "enumerate_outcomes",
)  # fmt: skip
SIMULTANEOUS_FUNCTIONS = ("acting", "seat_status", "step_rewards")


def float_bits(value: float) -> int:
    """A float32 as the int32 with the same bits: how a float rule knob (a reward, a die's size) lives in a header
    (numba reads it back with ``state[i : i + 1].view(np.float32)[0]``)."""
    return int(np.array([value], dtype=np.float32).view(np.int32)[0])


def float64_bits(*values: float) -> np.ndarray:
    """float64 values as int32 pairs with the same bits: a knob that must stay exact (a reward), read back with
    ``state[i : i + 2 * n].view(np.float64)`` (keep ``i`` even and the state length even: 8-byte aligned)."""
    return np.array(values, dtype=np.float64).view(np.int32)


class Sizes(NamedTuple):
    """Array lengths of one game under one config."""

    num_players: int
    state: int
    observation: int
    actions: int
    outcome: int  # length of a chance outcome vector
    words: int  # most random words one chance event needs


@dataclass(frozen=True)
class GameSpec:
    """A game, declared once; every generic face and tool reads it.

    ``describe_action(config, state, action)`` and ``explain_illegal(config, state, seat, action)`` give the game's
    words for its action ids and for why an action is not allowed now (``state`` may be None for
    ``describe_action``: the words then leave out what only a state knows, such as the dice thrown; one signature in
    every game, so a tool that lists moves, e.g. ``dicearena play``, needs no per-game code);
    ``explain_outcome(config, code)`` why an injected chance outcome was refused. Renderers take ``(config, state)``.
    Rules and their words only: the layers that use a game keep its agents, tasks and benchmarks in registries of
    their own (``dicearena.agents``).
    """

    id: str
    title: str
    config: type[GameConfig]
    engine: ModuleType
    dynamics: Literal["sequential", "simultaneous"] = "sequential"
    version: int = 0
    describe_action: Callable[[Any, np.ndarray | None, int], str] = lambda config, state, action: f"action {action}"
    explain_illegal: Callable[[Any, np.ndarray, int, int], str] = lambda config, state, seat, action: "not legal now"
    explain_outcome: Callable[[Any, int], str] = lambda config, code: f"outcome refused (code {code})"
    render_ansi: Callable[[Any, np.ndarray], str] | None = None
    render_rgb: Callable[[Any, np.ndarray], np.ndarray] | None = None
    kernels: str | None = None  # a hand-written kernels "module" (default: generated, dicearena.envs.common.kernels)
    bench_targets: dict[str, float] = field(default_factory=dict)  # "env", "batched": x connect_four_v3 env()
    action_help: Callable[[Any], str] | None = None  # what the action ids are, for out-of-range errors
    info: Callable[[Any, np.ndarray], dict[str, Any]] | None = None  # what AEC infos hold beyond "to_act"
    seat_info: Callable[[Any, np.ndarray, int], dict[str, Any]] | None = None  # what one seat's info adds
    render_fps: int = 2
    classic: str | None = None  # a PettingZoo classic-style module (env, raw_env) serving the id, if any
    observation_bounds: Callable[[Any], tuple[float, float]] = lambda config: (0.0, 1.0)  # of every float slot
    gym_envs: dict[str, str] = field(default_factory=dict)  # Gymnasium task envs: "Name-v0" -> "module:Class"
    dice: Callable[[Any, Any], Any] | None = None  # (config, dice) -> chance source: the faces' ``dice=`` keyword
    # (config, seat) -> why ``seat`` can never decide in any game under ``config`` (naming the keys), or None: the
    # seat-vs-opponents faces refuse such a learner seat when built (a seat that only may not decide, by chance, is
    # skipped game by game instead)
    seat_never_decides: Callable[[Any, int], str | None] | None = None
    # (config) -> the most outcomes one chance event enumerates (``enumerate_outcomes``' buffer; 0: only sampled),
    # and whether every chance node enumerates (OpenSpiel's explicit chance; else some are sampled, e.g. a shuffle):
    # the state API (``dicearena.envs.common.game_state``) and search read them
    max_chance_outcomes: Callable[[Any], int] = lambda config: 0
    every_chance_enumerable: bool = False

    def __post_init__(self) -> None:
        needed = ENGINE_FUNCTIONS + (SIMULTANEOUS_FUNCTIONS if self.dynamics == "simultaneous" else ())
        missing = [name for name in needed if not callable(getattr(self.engine, name, None))]
        if missing:
            raise TypeError(f"game {self.id!r}: engine {self.engine.__name__} lacks {missing} "
                "(dicearena.envs.common.contract)")
        if self.dynamics not in ("sequential", "simultaneous"):
            raise ValueError(f"game {self.id!r}: dynamics is 'sequential' or 'simultaneous', got {self.dynamics!r}")
        if not self.id.isidentifier():
            raise ValueError(f"a game id is a lower-case identifier (it prefixes agent names), got {self.id!r}")

    @property
    def camel_name(self) -> str:
        """The id in CamelCase, as Gymnasium ids spell it (``easy_come_easy_go`` -> ``EasyComeEasyGo``)."""
        return "".join(part.capitalize() for part in self.id.split("_"))

    @property
    def env_id(self) -> str:
        """The PettingZoo id, e.g. ``dicearena/pig-v0``."""
        return f"dicearena/{self.id}-v{self.version}"

    def sizes(self, config: GameConfig) -> Sizes:
        return self.engine.sizes(config)

    def observation_box(self, config: GameConfig) -> Any:
        """The Gymnasium Box of one seat's observation under ``config``."""
        from gymnasium import spaces

        low, high = self.observation_bounds(config)
        return spaces.Box(low, high, (self.sizes(config).observation,), np.float32)

    def kernel_module(self) -> ModuleType:
        """The compiled batched and AEC kernels: generated from the engine (``dicearena.envs.common.kernels``) unless
        the spec names a hand-written module."""
        if self.kernels is None:
            return kernels_for(self.engine)
        return importlib.import_module(self.kernels)


GAMES: dict[str, GameSpec] = {}
_GAME_MODULES: dict[str, str] = {}  # game id -> the module that registered it (importing it registers the game)


def register_game(spec: GameSpec, module: str | None = None) -> GameSpec:
    """Add ``spec`` to the registry (idempotent for the same spec) and register its PettingZoo and Gymnasium ids
    (``dicearena.envs.registration``, through :func:`on_register`): the generic faces and ``make`` find it from now on,
    a game defined in the user's
    own module too. ``module`` (default: the caller's ``__name__``) registers the game when imported: a spawned
    worker or an unpickled face imports it to find the game again."""
    known = GAMES.get(spec.id)
    if known is not None and known is not spec and known.engine is not spec.engine:
        raise ValueError(f"another game is already registered as {spec.id!r}")
    module = module or sys._getframe(1).f_globals.get("__name__")
    GAMES[spec.id] = spec
    if module and module != "__main__":  # a script's __main__ cannot be imported again elsewhere
        _GAME_MODULES[spec.id] = module
    for listener in _ON_REGISTER:  # the id registry (dicearena.envs.registration): its ids exist from now on
        listener(spec, True)
    return spec


_ON_REGISTER: list[Callable[[GameSpec, bool], None]] = []


def on_register(listener: Callable[[GameSpec, bool], None]) -> None:
    """Call ``listener(spec, is_game)`` for every game (``True``) and task (``False``) registered from now on.
    Why a listener: the id registry reads this module, so this module cannot import it back."""
    if listener not in _ON_REGISTER:
        _ON_REGISTER.append(listener)


def game_module(game: str) -> str | None:
    """The module that registered the game ``game`` (``None``: unknown, or registered by a script)."""
    return _GAME_MODULES.get(game)


def game_reference(spec: GameSpec) -> str:
    """How an id's ``game=`` argument names ``spec``: its id, or ``"module:id"`` for a game registered outside
    ``dicearena.envs`` (``game_spec`` imports the module first, so a fresh process finds the game)."""
    module = game_module(spec.id) or task_module(spec.id)
    return spec.id if module is None or module.startswith("dicearena.envs.") else f"{module}:{spec.id}"


def game_spec(game: str | GameSpec) -> GameSpec:
    """The registered spec (game or task) named ``game`` (or ``game`` itself), or a ValueError listing them;
    ``"module:id"`` imports ``module`` first (it registers the game: ``game_reference``)."""
    if isinstance(game, GameSpec):
        return game
    if isinstance(game, str) and ":" in game:
        module, _, game = game.partition(":")
        if game not in GAMES and game not in TASK_GAMES:
            importlib.import_module(module)
    spec = GAMES.get(game) or TASK_GAMES.get(game)
    if spec is None:
        near = nearest_games(game)
        hint = f" (did you mean {' or '.join(map(repr, near))}?)" if near else ""
        raise ValueError(f"unknown game {repr(game)[:80]}{hint}; games: {', '.join(sorted(GAMES)) or 'none'}")
    return spec


def nearest_games(name: Any) -> list[str]:
    """The registered game (or task) ids closest to ``name``, best first (at most 3; none when nothing is close). A
    PettingZoo id or module name (``dicearena/yay-v0``, ``yay_v0``) is read as its game id."""
    if not isinstance(name, str):
        return []
    known = sorted(GAMES) + sorted(TASK_GAMES)
    bare = re.sub(r"[-_]v\d+$", "", name.strip().removeprefix("dicearena/").removeprefix("dicearena.envs."))
    if bare in known and bare != name:
        return [bare]
    return difflib.get_close_matches(bare, known, n=3)


# --- Tasks: one-player games on the contract that a game's task envs serve (Easy Come's turn task, Extra!'s
# solitaire). A task is its rules only: the generic faces (``BatchedGame``, ``SeatEnv`` / ``SeatGames`` with no
# opponents) find it by id, as they find games, but the tools that iterate ``GAMES`` (PettingZoo ids, agents,
# evaluation, bench) never see it; its Gymnasium id is its game's ``gym_envs`` entry.

TASK_GAMES: dict[str, GameSpec] = {}
_TASK_MODULES: dict[str, str] = {}


def register_task(spec: GameSpec, module: str) -> GameSpec:
    """Add a one-player ``spec`` to the task registry (idempotent). ``module`` (the caller's ``__name__``) registers
    it when imported: a face unpickled in a fresh process imports it to find the task again."""
    players = spec.sizes(spec.config()).num_players
    if players != 1:
        raise ValueError(f"task {spec.id!r}: a task is a one-player game, its default config has {players} players")
    known = TASK_GAMES.get(spec.id)
    if spec.id in GAMES or known is not None and known.engine is not spec.engine:
        raise ValueError(f"another game or task is already registered as {spec.id!r}")
    TASK_GAMES[spec.id] = spec
    _TASK_MODULES[spec.id] = module
    if spec.gym_envs:  # its own Gymnasium ids, if it declares any (a task is usually served by its game's)
        for listener in _ON_REGISTER:
            listener(spec, False)
    return spec


def task_module(game: str) -> str | None:
    """The module that registers the task ``game`` (``None``: not a task)."""
    return _TASK_MODULES.get(game)


def spec_reference(spec: GameSpec) -> tuple[str, str]:
    """What a pickled face keeps of its spec (functions in a spec do not pickle): its id and the module to import
    to find it again (a task's module, the module that registered the game, a hand-written kernels module, or the
    engine's)."""
    return spec.id, task_module(spec.id) or game_module(spec.id) or spec.kernels or spec.engine.__name__


def resolve_spec(game: str, module: str) -> GameSpec:
    """The spec ``game`` in this process, a spawned worker too: importing ``module`` registers a task or a game
    defined in one file (Pig); a suite game's engine module does not, so ``envs`` registers the suite's games."""
    importlib.import_module(module)
    if game not in GAMES and game not in TASK_GAMES:
        importlib.import_module("dicearena.envs")
    return game_spec(game)

