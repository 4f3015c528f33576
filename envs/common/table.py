"""What every game's PettingZoo / Gymnasium faces do around their engine state, written once.

Why: the faces of each game differ only in the rules they call (engine) and the words of their errors; the
plumbing around them -- config and constructor checks, the dice source, agents and spaces, resolving chance
nodes, rendering, the AEC bookkeeping and input coercion -- is the same for every game, so it lives here.
No rule lives here: a face passes in its engine module, which must provide ``NUM_FACES``, ``NUM_DICE``,
``NUM_ACTIONS``, ``STATE_SIZE``, ``observation_size(P)``, ``dice_needed(state)``, ``apply_chance(state, faces)``
(a game may override ``_sizes`` and ``_resolve_chance`` where its sizes or chance events differ).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .config import GameConfig
from .dice import DiceSource, SeededDice

__all__ = [
    "AECBookkeeping", "DiceTable", "check_faces", "check_seed", "coerce_action", "dice_source", "reseed",
    "wrap_classic",
]  # fmt: skip


def wrap_classic(raw: AECEnv) -> AECEnv:
    """PettingZoo classic wrapping: an illegal move ends the game with -1 for the mover."""
    e = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def coerce_action(action: Any, num_actions: int, action_help: str) -> int:
    """``action`` as an int in ``0..num_actions-1``: Python ints, NumPy integer scalars and 0-d integer arrays.

    Bools, floats, strings, sequences and other arrays are a TypeError; an integer out of range a ValueError
    that appends ``action_help`` (the game's wording of its action ids).
    """
    if type(action) is int and 0 <= action < num_actions:
        return action
    if isinstance(action, bool | np.bool_):
        raise TypeError(f"action must be an int 0..{num_actions - 1}, got a bool ({action!r})")
    if isinstance(action, int | np.integer):
        value = int(action)
    elif isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        value = int(action)
    else:
        shape = f" of shape {action.shape} and dtype {action.dtype}" if isinstance(action, np.ndarray) else ""
        raise TypeError(
            f"action must be an int 0..{num_actions - 1} (Python int, NumPy integer scalar or 0-d integer "
            f"array), got {type(action).__name__}{shape}: {action!r}"
        )
    if not 0 <= value < num_actions:
        raise ValueError(f"action {value} is out of range: {action_help}")
    return value


def dice_source(dice: Any, faces: int, block: int, game: str) -> tuple[DiceSource, bool]:
    """The dice a face will use (a seeded source when ``None``) and whether its rolls can be trusted unchecked."""
    if dice is None:
        return SeededDice(faces=faces, block=block, seed=None), True
    if not isinstance(dice, DiceSource):
        raise TypeError(f"dice must have a roll(n) method (a DiceSource), got {type(dice).__name__}")
    if isinstance(dice, SeededDice):
        if dice.faces != faces or dice.block < block:
            raise ValueError(
                f"SeededDice for {game} needs faces={faces} and block>={block}, got {dice.faces}, {dice.block}"
            )
        return dice, True
    return dice, False


def check_faces(faces: Any, k: int, num_faces: int) -> np.ndarray:
    """An injected source's roll as int64, or a ValueError saying what it must return."""
    arr = np.asarray(faces)
    if arr.shape != (k,) or arr.dtype.kind not in "iu" or (k and (arr.min() < 0 or arr.max() >= num_faces)):
        raise ValueError(f"the dice source must return {k} integer faces in 0..{num_faces - 1}, got {faces!r}")
    return arr.astype(np.int64)


def check_seed(seed: Any) -> int | None:
    """``seed`` as a non-negative int or None, else a TypeError / ValueError that says "seed"."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be a non-negative int or None, got {type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative int or None, got {seed}")
    return int(seed)


def reseed(dice: Any, seed: int | None) -> None:
    """Reseed a dice source that can be reseeded (scripted dice ignore it); ``None`` leaves it alone."""
    seed = check_seed(seed)
    if seed is not None:
        reseed_fn = getattr(dice, "seed", None)
        if reseed_fn is not None:
            reseed_fn(seed)


class DiceTable:
    """Engine state, config, dice source, agents, spaces, chance resolution and rendering of one game.

    A game's face sets the class attributes (its engine module, observe and render functions, metadata) and
    calls ``_setup_table`` from its constructor.
    """

    metadata: ClassVar[dict[str, Any]]
    _engine: ClassVar[ModuleType]
    _game_name: ClassVar[str]
    #: compiled ``(state, seat, obs, mask)``: the observation and, if ``seat`` must act, the legal mask.
    _observe_into: ClassVar[Callable[..., None]]
    _render_ansi: ClassVar[Callable[[np.ndarray], str]]
    _render_rgb: ClassVar[Callable[[np.ndarray], np.ndarray]]

    def _setup_table(
        self, config: GameConfig, dice: Any, render_mode: str | None, obs_bound: tuple[float, float]
    ) -> None:
        """Check render mode and dice before building anything (``config``: validated, has ``num_players``).

        ``obs_bound`` = (low, high) of the observation Box.
        """
        E = self._engine
        self.config = config
        modes = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode {render_mode!r} is not one of None, {modes}")
        self.render_mode = render_mode
        self.dice, self._trusted_dice = dice_source(dice, E.NUM_FACES, E.NUM_DICE, self._game_name)

        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._obs_size, self._num_actions = self._sizes()
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(*obs_bound, (self._obs_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self._num_actions,), np.int8),
            }
        )
        act_space = spaces.Discrete(self._num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self.engine_state = np.zeros(E.STATE_SIZE, dtype=np.int32)
        self._has_reset = False
        self.agents: list[str] = []

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise RuntimeError(f"{self._game_name}: last() before reset(): call reset() first")
        return super().last(observe)  # type: ignore[misc]

    def _sizes(self) -> tuple[int, int]:
        """(observation length, number of actions); a game whose sizes depend on more than the player count
        (e.g. a board size) overrides this."""
        return self._engine.observation_size(self.config.num_players), self._engine.NUM_ACTIONS

    # --- spaces and observations

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            raise RuntimeError(f"{self._game_name}: observe() before reset(): call reset() first")
        obs = np.empty(self._obs_size, dtype=np.float32)
        mask = np.zeros(self._num_actions, dtype=np.int8)
        self._observe_into(self.engine_state, self._seat[agent], obs, mask)
        return {"observation": obs, "action_mask": mask}

    # --- chance

    def _resolve_chance(self, k: int) -> None:
        """One ``dice.roll(k)`` per pending chance event, in engine order (the batched engines rely on it)."""
        E = self._engine
        state = self.engine_state
        while k > 0:
            faces = self.dice.roll(k)
            if not self._trusted_dice:
                faces = check_faces(faces, k, E.NUM_FACES)
            E.apply_chance(state, faces)
            k = E.dice_needed(state)

    # --- rendering

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= to the constructor")
            return None
        if not self._has_reset:
            raise RuntimeError("render() before reset(): call reset() first")
        if self.render_mode == "rgb_array":
            return self._render_rgb(self.engine_state)
        text = self._render_ansi(self.engine_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: rendering draws off-screen."""


class AECBookkeeping:
    """The per-episode dicts and the step preamble every AEC face keeps the same way (mix in before AECEnv)."""

    def _start_episode(self) -> None:
        """Every agent in, no rewards, nobody done (PettingZoo's AEC bookkeeping for a fresh game)."""
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._skip_agent_selection = None

    def _dead_step_taken(self, action: Any) -> bool:
        """Raise if no game is running; step a done agent out (True) or leave the live one to act (False)."""
        if not self._has_reset:
            raise RuntimeError("step() before reset(): call reset() to start a game")
        if not self.agents:
            raise RuntimeError("the game is over and every agent has stepped out: call reset() for a new game")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return True
        return False
