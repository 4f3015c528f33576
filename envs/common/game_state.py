"""OpenSpiel's state vocabulary over the game contract: ``load_game(id, **config)``, then states to search with.

Why: tree search (MCTS, expectimax, CFR) needs a state that copies in one call, explicit chance nodes with their
probabilities, legality and returns. The contract already has all of it (a flat ``int32`` state, ``enumerate_outcomes``
/ ``apply_outcome``), so this module only names it the way OpenSpiel users know (``new_initial_state``, ``clone``,
``current_player``, ``chance_outcomes``, ``returns`` ...), for every registered game and task, with no rule of its
own: every call is the engine's. A state taken from any face (``env.state()``, a ``BatchedGame`` row) loads with
``Game.state_from`` and goes back with ``State.engine_state``.

Chance: where the engine enumerates an event's outcomes (``GameSpec.max_chance_outcomes``), ``chance_outcomes()``
gives ``(outcome id, probability)`` pairs and ``apply_action(outcome id)`` plays one; where it cannot (Yay!'s
landings, Ea$y Money's shuffles), ``chance_outcomes()`` says so and ``sample_chance(rng)`` draws one as the faces do.
``Game.explicit_chance`` tells whether every chance node enumerates (OpenSpiel's explicit stochastic) or not.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from .config import validate_config
from .contract import CHANCE, GAMES, NOBODY, PLAYING, SIMULTANEOUS, TASK_GAMES, GameSpec, game_spec

__all__ = ["CHANCE_PLAYER", "SIMULTANEOUS_PLAYER", "TERMINAL_PLAYER", "Game", "State", "import_tasks", "load_game"]

# OpenSpiel's player ids (pyspiel.PlayerId)
CHANCE_PLAYER = -1
SIMULTANEOUS_PLAYER = -2
TERMINAL_PLAYER = -4


def load_game(game: str | GameSpec, **config: Any) -> Game:
    """The registered game or task ``game`` under ``config`` (its config keys; a bad one is a ConfigError naming it).
    A task (``easy_money_greed``) is found too: its module is imported first (``import_tasks``)."""
    if isinstance(game, str) and game not in GAMES and game not in TASK_GAMES:
        import_tasks()
    return Game(game, **config)


def import_tasks() -> list[str]:
    """Import every registered game's task modules (the modules of its Gymnasium ids), which register the tasks;
    the task ids, sorted."""
    for spec in list(GAMES.values()):
        for entry in spec.gym_envs.values():
            importlib.import_module(entry.partition(":")[0])
    return sorted(TASK_GAMES)


class Game:
    """One game under one config: sizes, and the states that start it."""

    def __init__(self, game: str | GameSpec, config: Any = None, **config_overrides: Any) -> None:
        self.spec = spec = game_spec(game)
        self.config = validate_config(spec.config, config, **config_overrides)
        self.engine = spec.engine
        self.sizes = spec.sizes(self.config)
        self._header = np.ascontiguousarray(spec.engine.header(self.config), dtype=np.int32)
        self._max_outcomes = int(spec.max_chance_outcomes(self.config))

    def __repr__(self) -> str:
        return f"load_game({self.spec.id!r}, **{self.config.model_dump()!r})"

    def num_players(self) -> int:
        return self.sizes.num_players

    def num_distinct_actions(self) -> int:
        return self.sizes.actions

    def max_chance_outcomes(self) -> int:
        """The most outcomes one chance event enumerates (0: this game's chance is only sampled)."""
        return self._max_outcomes

    def observation_tensor_size(self) -> int:
        return self.sizes.observation

    @property
    def simultaneous(self) -> bool:
        return self.spec.dynamics == "simultaneous"

    @property
    def explicit_chance(self) -> bool:
        """Every chance node enumerates its outcomes (else some, or all, are sampled: ``State.sample_chance``)."""
        return self._max_outcomes > 0 and self.spec.every_chance_enumerable

    def new_initial_state(self) -> State:
        """A new game at its first node (chance: the first dice are still to come)."""
        state = np.zeros(self.sizes.state, dtype=np.int32)
        self.engine.init_state(state, self._header)
        return State(self, state)

    def state_from(self, engine_state: np.ndarray) -> State:
        """A state holding a copy of ``engine_state`` (from ``env.state()``, a batch row, ``State.engine_state``)."""
        array = np.asarray(engine_state)
        if array.shape != (self.sizes.state,) or not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"{self.spec.title}: an engine state is an int array of shape ({self.sizes.state},) "
                             f"under this config, got {array.dtype} {array.shape}")  # fmt: skip
        if int(array[0]) != self.num_players():  # the contract's slot 0; the engine reads every knob from the state
            raise ValueError(f"{self.spec.title}: that state has {int(array[0])} players, this game "
                             f"{self.num_players()}: load it with load_game({self.spec.id!r}, "
                             "num_players=...)")  # fmt: skip
        state = np.array(array, dtype=np.int32)
        refresh = getattr(self.engine, "refresh", None)
        if refresh is not None:  # what the engine keeps beside its rules state, recomputed (contract's ``refresh``)
            refresh(state)
        return State(self, state)

    def deserialize_state(self, text: str) -> State:
        """The state ``State.serialize`` wrote."""
        try:
            values = [int(v) for v in text.split()]
        except ValueError:
            raise ValueError(f"{self.spec.title}: a serialized state is whitespace-separated integers") from None
        return self.state_from(np.array(values, dtype=np.int64))


class State:
    """One node of the game tree: a decision (one seat, or several at once), a chance event, or the end."""

    # ``rewards()`` needs no record of the returns before each transition: the contract pays the final rewards
    # only at the end (0 while playing), so the last transition paid exactly ``returns()``, unless this state was
    # loaded as it is (``_moved`` False) and no transition of ours happened yet
    __slots__ = ("game", "_state", "_moved")

    def __init__(self, game: Game, state: np.ndarray) -> None:
        self.game = game
        self._state = state
        self._moved = False

    # --- who moves

    def current_player(self) -> int:
        """A seat; or ``CHANCE_PLAYER`` (-1), ``SIMULTANEOUS_PLAYER`` (-2), ``TERMINAL_PLAYER`` (-4)."""
        if self.game.engine.status(self._state) != PLAYING:
            return TERMINAL_PLAYER
        to_act = int(self.game.engine.to_act(self._state))
        if to_act == CHANCE:
            return CHANCE_PLAYER
        if to_act == SIMULTANEOUS:
            return SIMULTANEOUS_PLAYER
        return TERMINAL_PLAYER if to_act == NOBODY else to_act

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL_PLAYER

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE_PLAYER

    def is_simultaneous_node(self) -> bool:
        return self.current_player() == SIMULTANEOUS_PLAYER

    def acting_players(self) -> list[int]:
        """The seats that decide now (one at a sequential decision, those still to choose at a simultaneous one)."""
        player = self.current_player()
        if player >= 0:
            return [player]
        if player != SIMULTANEOUS_PLAYER:
            return []
        marks = np.zeros(self.game.num_players(), dtype=np.int8)
        self.game.engine.acting(self._state, marks)
        return np.flatnonzero(marks).tolist()

    # --- decisions

    def legal_actions_mask(self, player: int | None = None) -> np.ndarray:
        """(actions,) int8: 1 where ``player`` (default: the one to move) may act now."""
        mask = np.zeros(self.game.num_distinct_actions(), dtype=np.int8)
        seat = self._seat(player)
        if seat is not None:
            self.game.engine.legal_mask(self._state, seat, mask)
        return mask

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal action ids of ``player`` (default: the one to move); at a chance node, the outcome ids."""
        if player is None and self.is_chance_node():
            return [outcome for outcome, _ in self.chance_outcomes()]
        return np.flatnonzero(self.legal_actions_mask(player)).tolist()

    def apply_action(self, action: int) -> None:
        """Play ``action`` for the seat to move, or outcome id ``action`` at a chance node. A ValueError names what is
        allowed and changes nothing."""
        player = self.current_player()
        if player == CHANCE_PLAYER:
            outcomes, _ = self._enumerate()
            if not isinstance(action, int | np.integer) or not 0 <= action < len(outcomes):
                raise ValueError(f"{self.game.spec.title}: chance outcome ids are 0..{len(outcomes) - 1}, "
                                 f"got {action!r}")  # fmt: skip
            self.game.engine.apply_outcome(self._state, outcomes[int(action)])
            self._moved = True
            return
        if player == SIMULTANEOUS_PLAYER:
            raise ValueError(f"{self.game.spec.title}: seats {self.acting_players()} decide at once here; "
                             "use apply_actions (one action per seat)")  # fmt: skip
        if player == TERMINAL_PLAYER:
            raise ValueError(f"{self.game.spec.title}: the game is over; no action can be applied")
        self._check(player, action)
        self.game.engine.apply_action(self._state, player, int(action))
        self._moved = True

    def apply_actions(self, actions: list[int] | np.ndarray) -> None:
        """A simultaneous node: one action per seat (entries of seats that do not decide now are ignored). Every
        action is checked before any is applied."""
        if not self.is_simultaneous_node():
            raise ValueError(f"{self.game.spec.title}: apply_actions is for simultaneous nodes; the node's player "
                             f"is {self.current_player()} (use apply_action)")  # fmt: skip
        if len(actions) != self.game.num_players():
            raise ValueError(f"{self.game.spec.title}: need one action per seat ({self.game.num_players()}), "
                             f"got {len(actions)}")  # fmt: skip
        seats = self.acting_players()
        for seat in seats:
            self._check(seat, actions[seat])
        for seat in seats:
            self.game.engine.apply_action(self._state, seat, int(actions[seat]))
        self._moved = True

    # --- chance

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome id, probability)`` for every outcome of this chance event (the engine's enumeration)."""
        _, probs = self._enumerate()
        return list(enumerate(probs.tolist()))

    def chance_enumerable(self) -> bool:
        """This chance node's outcomes can be listed (else ``sample_chance``)."""
        return self.is_chance_node() and self._count() >= 0

    def sample_chance(self, rng: np.random.Generator) -> np.ndarray:
        """Draw this chance event as the faces do (the engine's ``draw_outcome`` on ``rng``'s words), play it, and
        return the outcome vector."""
        if not self.is_chance_node():
            raise ValueError(f"{self.game.spec.title}: not a chance node (player {self.current_player()})")
        engine = self.game.engine
        words = rng.integers(0, np.iinfo(np.int64).max, size=max(1, self.game.sizes.words), dtype=np.int64)
        outcome = np.zeros(max(1, self.game.sizes.outcome), dtype=np.int32)
        engine.draw_outcome(self._state, words, outcome)
        engine.apply_outcome(self._state, outcome)
        self._moved = True
        return outcome

    # --- results and views

    def returns(self) -> list[float]:
        """Each seat's final reward (0 while the game is on)."""
        return self._returns().tolist()

    def rewards(self) -> list[float]:
        """What the last transition paid each seat (the final rewards on the one that ended the game)."""
        return self.returns() if self._moved else [0.0] * self.game.num_players()

    def observation_tensor(self, player: int) -> np.ndarray:
        """``player``'s observation, the envs' ``obs["observation"]``."""
        self._check_seat(player)
        out = np.zeros(self.game.sizes.observation, dtype=np.float32)
        self.game.engine.observe(self._state, player, out)
        return out

    def action_to_string(self, player: int, action: int) -> str:
        """The game's words for ``action`` here (``GameSpec.describe_action``); a chance outcome by its id."""
        if player == CHANCE_PLAYER:
            return f"chance outcome {action}"
        return self.game.spec.describe_action(self.game.config, self._state, int(action))

    def resample_from_infostate(self, player: int, rng: np.random.Generator) -> State:
        """A state ``player`` could equally be in, drawn from what it cannot see (the engine's ``resample_hidden``:
        Ea$y Money's face-down decks), for determinized search; a clone in a game that hides nothing. ``player`` is
        there for OpenSpiel's signature: in these games what is hidden is hidden from every player alike."""
        self._check_seat(player)
        copy = self.clone()
        resample = getattr(self.game.engine, "resample_hidden", None)
        if resample is not None:
            resample(copy._state, int(rng.integers(0, np.iinfo(np.int64).max)))
        return copy

    def clone(self) -> State:
        copy = State.__new__(State)
        copy.game, copy._state, copy._moved = self.game, self._state.copy(), self._moved
        return copy

    def __deepcopy__(self, memo: dict[int, Any]) -> State:
        return self.clone()  # the game (spec, engine module) is shared, never copied: OpenSpiel clones by deepcopy

    @property
    def engine_state(self) -> np.ndarray:
        """A copy of the engine state (what ``env.state()`` gives; ``Game.state_from`` loads it back)."""
        return self._state.copy()

    def serialize(self) -> str:
        return " ".join(map(str, self._state.tolist()))

    def __str__(self) -> str:
        render = self.game.spec.render_ansi
        return render(self.game.config, self._state) if render is not None else self.serialize()

    # --- internals

    def _returns(self) -> np.ndarray:
        out = np.zeros(self.game.num_players(), dtype=np.float64)
        self.game.engine.rewards(self._state, out)
        return out

    def _seat(self, player: int | None) -> int | None:
        """The seat whose mask is asked for: ``player``, or the one to move (None at chance and terminal nodes)."""
        if player is None:
            player = self.current_player()
            return player if player >= 0 else None
        self._check_seat(player)
        return player

    def _check_seat(self, player: Any) -> None:
        if isinstance(player, bool) or not isinstance(player, int | np.integer) or not (
                0 <= player < self.game.num_players()):  # fmt: skip
            raise ValueError(f"{self.game.spec.title}: players are seats 0..{self.game.num_players() - 1}, "
                             f"got {player!r}")  # fmt: skip

    def _check(self, seat: int, action: Any) -> None:
        spec, n = self.game.spec, self.game.num_distinct_actions()
        if isinstance(action, bool) or not isinstance(action, int | np.integer) or not 0 <= action < n:
            raise ValueError(f"{spec.title}: actions are ids 0..{n - 1}, got {action!r}")
        if not self.game.engine.is_legal(self._state, seat, int(action)):
            words = spec.describe_action(self.game.config, self._state, int(action))
            why = spec.explain_illegal(self.game.config, self._state, seat, int(action))
            raise ValueError(f"{spec.title}: action {int(action)} ({words}) is not legal for player_{seat} now: {why}; "
                             f"legal: {self.legal_actions(seat)}")  # fmt: skip

    def _count(self) -> int:
        if self.game.max_chance_outcomes() <= 0:
            return -1
        outcomes, probs = self._buffers()
        return int(self.game.engine.enumerate_outcomes(self._state, outcomes, probs))

    def _buffers(self) -> tuple[np.ndarray, np.ndarray]:
        size = self.game.max_chance_outcomes()
        return np.zeros((size, max(1, self.game.sizes.outcome)), dtype=np.int32), np.zeros(size, dtype=np.float64)

    def _enumerate(self) -> tuple[np.ndarray, np.ndarray]:
        if not self.is_chance_node():
            raise ValueError(f"{self.game.spec.title}: not a chance node (player {self.current_player()})")
        if self.game.max_chance_outcomes() <= 0:
            raise ValueError(f"{self.game.spec.title}'s chance is sampled, not enumerated: use sample_chance(rng)")
        outcomes, probs = self._buffers()
        count = int(self.game.engine.enumerate_outcomes(self._state, outcomes, probs))
        if count < 0:
            raise ValueError(f"{self.game.spec.title}: this chance event's outcomes are not enumerable (e.g. a "
                             "shuffle): use sample_chance(rng)")  # fmt: skip
        return outcomes[:count], probs[:count]
