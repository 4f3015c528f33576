"""Every game and task inside OpenSpiel (the ``openspiel`` extra): ``pyspiel.load_game("python_dicearena_yay")``.

Why a thin adapter: ``dicearena.envs.common.game_state`` already speaks OpenSpiel's vocabulary over the engines, so a
pyspiel game is its ``GameType`` and ``GameInfo`` (declared from the spec and the config: ``FACTS``) and a state that
forwards every call. OpenSpiel's own tools then run unchanged: ``pyspiel.random_sim_test``, ``MCTSBot``,
``evaluate_bots``, ``alpharank``. This is the only module that imports ``pyspiel``.

- **Parameters**: every config key whose default pyspiel can type (int, float, bool, str) is a game parameter of the
  same name and default (``{"num_players": 3}``); the other keys (``None`` defaults, tuples, nested models) go in the
  parameter ``config``, a JSON object (``{"config": '{"reward": "score"}'}``). A bad value is the config's own
  ``ConfigError`` naming the key; an unknown key or a wrong type is pyspiel's ``SpielError``.
- **Chance**: where the engine lists an event's outcomes the pyspiel game offers exactly those, with their
  probabilities (``EXPLICIT_STOCHASTIC`` if every chance node does). Where it cannot (Yay!'s landings, Ea$y Money's
  shuffles, the turn task's drawn prize values), the game is ``SAMPLED_STOCHASTIC`` and such a node offers
  ``chance_samples`` outcome ids of equal probability: id ``k`` draws the event as the faces do, from a generator
  seeded by ``(rng_seed, the engine state, k)``. The same id at the same state always gives the same outcome, so a
  search tree's chance children are real states (OpenSpiel's single dummy outcome with a random ``ApplyAction``
  would hand MCTS a different board under the same tree node, whose stored moves may then be illegal). The
  probabilities are those of the samples, not of the outcomes: that is why such a game does not claim to be
  explicit (OpenSpiel's exact solvers refuse it), and each id's outcome is a draw of the true distribution.
- **Rewards** are terminal (``RewardModel.TERMINAL``): the state API pays the config's final rewards at the end
  (shaping is a face's way of spreading the same sum, not part of the game tree).
- **Observations**: the envs' ``obs["observation"]`` of a seat (``provides_observation_tensor``); in a game of
  perfect information also the game's picture as the observation string (elsewhere the picture shows what a player
  may not see, e.g. every Ea$y Money player's tickets, so there is no string).
"""

from __future__ import annotations

import copyreg
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    import pyspiel
    from open_spiel.python.observation import IIGObserverForPublicInfoGame
except ImportError as exc:  # the extra is not installed: say which
    raise ImportError(f"dicearena.envs.openspiel needs OpenSpiel: pip install 'dice-arena[openspiel]' ({exc})") from exc

from dicearena.envs.common.config import MAX_REWARD, GameConfig
from dicearena.envs.common.contract import GAMES, game_reference, game_spec
from dicearena.envs.common.game_state import CHANCE_PLAYER, Game, State, import_tasks, load_game
from dicearena.envs.easy_come_easy_go.engine import NUM_DICE as EASY_COME_DICE
from dicearena.envs.easy_money.engine import MONEY_SCALE
from dicearena.envs.extra.engine import NUM_FACTORS, REWARD_SCORE

__all__ = ["FACTS", "PREFIX", "AgentBot", "DiceArenaGame", "DiceArenaState", "Facts", "Payoffs",
           "register_openspiel_games", "short_name"]  # fmt: skip

PREFIX = "python_dicearena_"
CONFIG_PARAMETER = "config"  # the JSON object of the config keys pyspiel cannot type
SAMPLING_PARAMETERS = {"rng_seed": 0, "chance_samples": 64}  # only in the games with sampled chance
RUN_CAP = 200  # see Facts.max_length: (5/6) ** 200 < 2e-16
_SCALARS = (bool, int, float, str)
_Type = pyspiel.GameType


def short_name(game_id: str) -> str:
    return f"{PREFIX}{game_id}"


@dataclass(frozen=True)
class Payoffs:
    """What the returns can be under one config: every seat's return lies in ``[low, high]``; ``total`` is their
    sum when it is the same in every outcome (0: zero-sum), else None (general sum)."""

    low: float
    high: float
    total: float | None = None


@dataclass(frozen=True)
class Facts:
    """What a game's pyspiel declaration needs beyond its spec (which knows the dynamics and the chance), per config.

    ``perfect``: every player knows the whole state (else ``IMPERFECT_INFORMATION``). ``payoffs``: the bounds of the
    returns (``GameInfo.min_utility`` / ``max_utility``) and their constant sum. ``max_length``: the most decisions
    in a game (joint decisions in a simultaneous one), which ``random_sim_test`` checks. Where the rules set no bound
    (a run of rolls that only a die's 1 or the player stops), the run is counted as at most ``RUN_CAP`` decisions:
    longer runs happen with probability below (5/6) ** 200 < 2e-16 per run.
    """

    perfect: Callable[[Any], bool]
    payoffs: Callable[[Any], Payoffs]
    max_length: Callable[[Any], int]


def _win_loss(config: Any) -> Payoffs:
    """+1 each winner, -1 the others, 0 for all after truncation (a shared win pays +1 to several seats: general
    sum); with ``zero_sum`` +1/k each of k winners, -1/(P-k) the others (``dicearena.envs.common.rewards``)."""
    return Payoffs(-1.0, 1.0, 0.0 if config.zero_sum else None)


def _easy_come(config: Any) -> Payoffs:
    """One winner: ``win_reward``, the others ``loss_reward``, all 0 after truncation. Zero-sum when a win's rewards
    sum to 0 (the default 2-player game: +1 / -1) or with ``zero_sum`` (+1, -1/(P-1) each)."""
    if config.zero_sum:
        return Payoffs(-1.0 / (config.num_players - 1), 1.0, 0.0)
    win, loss = config.win_reward, config.loss_reward
    zero = win + (config.num_players - 1) * loss == 0
    return Payoffs(min(0.0, win, loss), max(0.0, win, loss), 0.0 if zero else None)


def _easy_money(config: Any) -> Payoffs:
    """``"money"``: (own cash + stake - the start) / 100, and a seat's money is 0 to the whole ``supply``."""
    if config.reward == "money":
        start = config.start_money
        return Payoffs(-start / MONEY_SCALE, (config.supply - start) / MONEY_SCALE)
    return _win_loss(config)


def _extra(config: Any) -> Payoffs:
    """``"score"``: the final score / 100; a row scores -penalty inside its minus zone (only a row with a minus box
    has one), at most points x NUM_FACTORS once past it, 0 unchecked."""
    if config.reward_mode != REWARD_SCORE:
        return _win_loss(config)
    sheet = config.sheet
    low = -sheet.penalty * sum(1 for boxes in sheet.minus_boxes if boxes > 0)
    return Payoffs(low / 100, NUM_FACTORS * sum(sheet.points) / 100)


def _extra_rounds(config: Any) -> int:
    """Every round that is not a lucky guy's checks one of a seat's EXTRA boxes (with ``children`` a new number's
    first round may not: three more); lucky-guy rounds (no EXTRA number thrown, p = 1/32) are a run."""
    return sum(config.sheet.extra_columns) + 3 + RUN_CAP


# Information: the dice, sheets, prizes and money are on the table in every game; Ea$y Money's three decks are
# shuffled face down (their order is hidden from everyone), and Extra!'s players choose on the same throw without
# seeing each other's choices (alone at the table, nothing is hidden). The tasks are one-player games.
# Decisions per turn: Easy Come freezes at least one of its four dice per decision; a Yay! turn throws again only
# on a strictly higher total (3..18: at most 16 throws) and may end with one cross-off; an Ea$y Money turn has a
# stake round (P), an out-of-money choice, then one space: a ticket steal, Greed (a name and a run of rolls), Wall
# Street (P bets) or Lucky Dice (two per other seat). Truncation (max_turns) bounds the turns (+1: the last turn).
FACTS: dict[str, Facts] = {
    "easy_come_easy_go": Facts(lambda c: True, _easy_come, lambda c: EASY_COME_DICE * (c.max_turns + 1)),
    "easy_come_easy_go_turn": Facts(lambda c: True, lambda c: Payoffs(0.0, c.value_scale), lambda c: EASY_COME_DICE),
    "easy_money": Facts(lambda c: False, _easy_money, lambda c: (c.max_turns + 1) * (4 * c.num_players + 3 + RUN_CAP)),
    "easy_money_greed": Facts(lambda c: True, lambda c: Payoffs(0.0, float(c.cash_range[1])), lambda c: 1 + RUN_CAP),
    "extra": Facts(lambda c: c.num_players == 1, _extra, _extra_rounds),
    "extra_solitaire": Facts(lambda c: True, _extra, _extra_rounds),
    "yay": Facts(lambda c: True, _win_loss, lambda c: 17 * (c.max_turns + 1)),
}  # fmt: skip
# A game not in FACTS (one registered outside the suite, e.g. examples/pig) claims the least: imperfect information,
# returns within the contract's bound on a reward knob, and a generous length. Add its entry to declare more.
UNKNOWN = Facts(lambda c: False, lambda c: Payoffs(-MAX_REWARD, MAX_REWARD), lambda c: 1_000_000)


def _facts(game: Game) -> Facts:
    return FACTS.get(game.spec.id, UNKNOWN)


def _scalar_defaults(config_type: type[GameConfig]) -> dict[str, bool | int | float | str]:
    """The config keys whose defaults pyspiel can type, with those defaults."""
    out: dict[str, bool | int | float | str] = {}
    for name, field in config_type.model_fields.items():
        default = None if field.is_required() else field.get_default(call_default_factory=True)
        if type(default) in _SCALARS:
            out[name] = float(default) if field.annotation is float else default
    return out


def parameter_specification(game: Game) -> dict[str, Any]:
    """The pyspiel parameters of ``game``'s id: its typable config keys, ``config`` and, if it samples chance,
    ``rng_seed`` and ``chance_samples``."""
    params: dict[str, Any] = {**_scalar_defaults(type(game.config)), CONFIG_PARAMETER: "{}"}
    if not game.explicit_chance:
        params.update(SAMPLING_PARAMETERS)
    return params


def _player_range(game: Game) -> tuple[int, int]:
    """The seats the config allows (its ``num_players`` bounds), or the game's fixed count."""
    n = game.num_players()
    field = type(game.config).model_fields.get("num_players")
    if field is None:
        return n, n
    low = next((m.ge for m in field.metadata if hasattr(m, "ge")), n)
    high = next((m.le for m in field.metadata if hasattr(m, "le")), n)
    return int(low), int(high)


def game_type(game: Game) -> pyspiel.GameType:
    """The truthful ``GameType`` of ``game`` under its config (the registered one is the default config's)."""
    facts, payoffs = _facts(game), _facts(game).payoffs(game.config)
    low, high = _player_range(game)
    return _Type(
        short_name=short_name(game.spec.id),
        long_name=f"Dice Arena {game.spec.title}",
        dynamics=_Type.Dynamics.SIMULTANEOUS if game.simultaneous else _Type.Dynamics.SEQUENTIAL,
        chance_mode=_Type.ChanceMode.EXPLICIT_STOCHASTIC if game.explicit_chance
        else _Type.ChanceMode.SAMPLED_STOCHASTIC,  # fmt: skip
        information=_Type.Information.PERFECT_INFORMATION if facts.perfect(game.config)
        else _Type.Information.IMPERFECT_INFORMATION,  # fmt: skip
        utility=_Type.Utility.GENERAL_SUM if payoffs.total is None
        else _Type.Utility.ZERO_SUM if payoffs.total == 0 else _Type.Utility.CONSTANT_SUM,  # fmt: skip
        reward_model=_Type.RewardModel.TERMINAL,
        max_num_players=high,
        min_num_players=low,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=facts.perfect(game.config),
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(game),
    )


def _config(game_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """The config keys of pyspiel ``params`` (those of a scalar key that differ from its default, as pyspiel fills
    in every default, and the JSON ``config`` object's)."""
    defaults = _scalar_defaults(game_spec(game_id).config)
    config = {k: v for k, v in params.items() if k not in defaults or v != defaults[k]}
    text = config.pop(CONFIG_PARAMETER, "{}")
    try:
        extra = json.loads(text)
    except (TypeError, json.JSONDecodeError):
        extra = None
    if not isinstance(extra, dict):
        raise ValueError(f"{short_name(game_id)}: parameter {CONFIG_PARAMETER!r} is a JSON object of config keys, "
                         f"e.g. '{{\"first_player\": 0}}'; got {str(text)[:80]!r}")  # fmt: skip
    twice = sorted(set(extra) & set(config))
    if twice:
        raise ValueError(f"{short_name(game_id)}: {twice} given both as parameters and in {CONFIG_PARAMETER!r}")
    return {**config, **extra}


class DiceArenaGame(pyspiel.Game):
    """A Dice Arena game under one config (its pyspiel parameters), as a pyspiel Python game."""

    game_id = ""  # set by register_openspiel_games on each registered subclass

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        sampling = {k: params.pop(k, v) for k, v in SAMPLING_PARAMETERS.items()}
        self.inner = load_game(self.game_id, **_config(self.game_id, params))
        self.chance_samples = 0 if self.inner.explicit_chance else int(sampling["chance_samples"])
        if not self.inner.explicit_chance and self.chance_samples < 1:
            raise ValueError(f"{short_name(self.game_id)}: 'chance_samples' is at least 1, got {self.chance_samples}")
        seed = int(sampling["rng_seed"])
        self.salt = seed if seed >= 0 else int(np.random.SeedSequence().entropy)  # -1: a fresh one
        facts, payoffs = _facts(self.inner), _facts(self.inner).payoffs(self.inner.config)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.inner.num_distinct_actions(),
            max_chance_outcomes=max(1, self.inner.max_chance_outcomes(), self.chance_samples),
            num_players=self.inner.num_players(),
            min_utility=float(payoffs.low),
            max_utility=float(payoffs.high),
            utility_sum=payoffs.total,
            max_game_length=int(facts.max_length(self.inner.config)),
        )
        given = {**params, **({} if self.inner.explicit_chance else sampling)}
        super().__init__(game_type(self.inner), info, given)

    def new_initial_state(self) -> DiceArenaState:
        return DiceArenaState(self, self.inner.new_initial_state())

    def make_py_observer(self, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> Any:
        """A seat's observation (``DiceArenaObserver``); a perfect-recall one (the information state) only where
        every player knows the state: there it is the history (OpenSpiel's observer for public-information games)."""
        if isinstance(iig_obs_type, dict):  # pyspiel's default observer passes only the params
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"{self.get_type().short_name}: observers take no parameters, got {params}")
        if iig_obs_type is None or not iig_obs_type.perfect_recall:
            return DiceArenaObserver(self.inner.observation_tensor_size(), self.get_type().provides_observation_string)
        if self.get_type().information == _Type.Information.PERFECT_INFORMATION:
            return IIGObserverForPublicInfoGame(iig_obs_type, params)
        raise ValueError(f"{self.get_type().short_name}: observations only (no information state: the game hides "
                         "something from the players)")  # fmt: skip


class DiceArenaState(pyspiel.State):
    """Forwards every call to a ``game_state.State`` (``inner``); at a chance node the engine cannot list, the
    outcome ids are ``chance_samples`` seeded draws (module docstring). pyspiel clones a Python state by
    deep-copying its attributes: the inner state clones itself, the rest are numbers."""

    def __init__(self, game: DiceArenaGame, inner: State) -> None:
        super().__init__(game)
        self.inner = inner
        self.samples, self.salt = game.chance_samples, game.salt

    def current_player(self) -> int:
        return self.inner.current_player()  # the same ids as pyspiel.PlayerId

    def _legal_actions(self, player: int) -> list[int]:
        return self.inner.legal_actions(player)

    def _sampled(self) -> bool:
        return self.samples > 0 and not self.inner.chance_enumerable()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._sampled():
            return [(k, 1.0 / self.samples) for k in range(self.samples)]
        return self.inner.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        if self.inner.current_player() == CHANCE_PLAYER and self._sampled():
            if not 0 <= action < self.samples:
                raise ValueError(f"sampled chance outcome ids are 0..{self.samples - 1}, got {action}")
            key = hashlib.blake2b(self.inner.engine_state.tobytes(), digest_size=16).digest()
            words = np.frombuffer(key, dtype=np.uint32).tolist()
            self.inner.sample_chance(np.random.default_rng([self.salt, int(action), *words]))
            return
        self.inner.apply_action(action)

    def _apply_actions(self, actions: list[int]) -> None:
        self.inner.apply_actions(actions)  # a seat that does not decide now passes pyspiel.INVALID_ACTION: ignored

    def _action_to_string(self, player: int, action: int) -> str:
        return self.inner.action_to_string(player, action)

    def is_terminal(self) -> bool:
        return self.inner.is_terminal()

    def returns(self) -> list[float]:
        return self.inner.returns()

    def rewards(self) -> list[float]:
        return self.inner.rewards()

    def __str__(self) -> str:
        """The picture, then the engine state (OpenSpiel compares states by this string: it must tell them apart)."""
        return f"{self.inner}\nengine state: {self.inner.serialize()}"


class DiceArenaObserver:
    """OpenSpiel's PyObserver over ``State.observation_tensor``: what the envs show a seat, no memory. The string is
    the game's picture, in a game of perfect information only (there it is the same for every seat)."""

    def __init__(self, size: int, picture: bool) -> None:
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}
        self.picture = picture

    def set_from(self, state: DiceArenaState, player: int) -> None:
        self.tensor[:] = state.inner.observation_tensor(player)

    def string_from(self, state: DiceArenaState, player: int) -> str:
        if not self.picture:
            raise ValueError(f"{state.inner.game.spec.title}: no observation string (its picture shows what some "
                             "players may not see); use observation_tensor")  # fmt: skip
        return str(state.inner)


class AgentBot(pyspiel.Bot):
    """One of our agents as an OpenSpiel bot for seat ``player`` (``evaluate_bots``, a match against ``MCTSBot``). It
    is handed what the envs hand it (``Agent.act``): the seat's observation and legal mask, and the engine state for a
    planner (``reads_state``). Duck-typed, so ``dicearena.envs`` still never imports ``dicearena.agents``."""

    def __init__(self, agent: Any, player: int) -> None:
        pyspiel.Bot.__init__(self)
        self.agent, self.player = agent, player

    def player_id(self) -> int:
        return self.player

    def restart_at(self, state: DiceArenaState) -> None:
        pass  # the agents keep no memory of a game

    def inform_action(self, state: DiceArenaState, player: int, action: int) -> None:
        pass

    def step(self, state: DiceArenaState) -> int:
        inner = state.inner
        observation, mask = inner.observation_tensor(self.player), inner.legal_actions_mask(self.player)
        return int(self.agent.act(observation, mask, state=inner.engine_state, seat=self.player))


def _load_state(game: str, config: dict[str, Any], engine_state: list[int]) -> State:
    return load_game(game, **config).state_from(np.array(engine_state, dtype=np.int32))


def _reduce_state(state: State) -> tuple[Any, ...]:
    """A state pickles as its game (id, or "module:id" outside the suite), config and engine state: how pyspiel
    serializes a Python state (``state.serialize()``, ``game.deserialize_state``) is by pickling its attributes."""
    game = state.game
    return _load_state, (game_reference(game.spec), game.config.model_dump(), state.engine_state.tolist())


copyreg.pickle(State, _reduce_state)


def register_openspiel_games() -> list[str]:
    """Register every registered game and task with pyspiel (idempotent: a name already registered is kept, and a
    game registered later, e.g. by a user's module, is added by the next call); their short names, in order."""
    names = []
    for game_id in sorted(GAMES) + import_tasks():
        name = short_name(game_id)
        if name not in pyspiel.registered_names():
            cls = type(f"DiceArenaGame_{game_id}", (DiceArenaGame,), {"game_id": game_id, "__module__": __name__})
            globals()[cls.__name__] = cls  # where pickle looks a game's class up
            pyspiel.register_game(game_type(load_game(game_id)), cls)
        names.append(name)
    return names
