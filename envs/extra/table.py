"""What the AEC and Parallel faces of Extra! share: config, dice, spaces, observing, input checks, rendering.

No rule lives here: legality, transitions and scoring are the engine's; this module only calls it.
Chance never reaches the agents: whenever the engine is at a chance node the table asks its dice source for
one ``roll(5)``, so a batched engine drawing the same seeded stream plays the same game.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from numba import njit

from envs.common.config import validate_config
from envs.common.dice import DiceSource, SeededDice

from . import engine as E
from .config import ExtraConfig
from .render import render_ansi, render_rgb

__all__ = ["ACTION_HELP", "ExtraTable", "describe_action"]

METADATA = {"name": "extra_v0", "render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

ACTION_HELP = (
    f"actions are 0..{E.NUM_ACTIONS - 1}: 9 * fifth die (0..4) + 3 * pairing (0..2) + EXTRA column (0..2); "
    "pairing 0 = (1st,2nd)(3rd,4th), 1 = (1st,3rd)(2nd,4th), 2 = (1st,4th)(2nd,3rd) of the other four dice"
)


def describe_action(action: int, dice: list[int] | None = None) -> str:
    """Human wording of an action id, e.g. ``pairs dice 0+1, 2+4; fifth die 3 -> EXTRA column 1``."""
    e, p, c = E.decode_action(action)
    a, b, x, y = (int(i) for i in E.PAIRINGS[e, p])
    if dice is None:
        return f"pairs dice {a}+{b}, {x}+{y}; fifth die {e} -> EXTRA column {c}"
    return (
        f"pairs {dice[a]}+{dice[b]}={dice[a] + dice[b]} and {dice[x]}+{dice[y]}={dice[x] + dice[y]} "
        f"(dice {a}+{b}, {x}+{y}); fifth die {e} (a {dice[e]}) -> EXTRA column {c}"
    )


@njit(cache=True)
def _observe(state: np.ndarray, seat: int, obs: np.ndarray, mask: np.ndarray) -> None:
    """Observation and mask in one compiled call (the mask is all zero unless ``seat`` must decide)."""
    E.encode_observation(state, seat, obs)
    E.legal_mask(state, seat, mask)


@njit(cache=True)
def _act(state: np.ndarray, seat: int, action: int) -> int:
    """Record a legal choice: 1 if the round resolved, 0 if others still decide, -1 (state untouched) if illegal."""
    if not E.is_legal(state, seat, action):
        return -1
    return E.apply_action(state, seat, action)


class ExtraTable:
    """Engine state plus everything both faces need around it."""

    metadata = METADATA

    def _setup(
        self, config: ExtraConfig | dict[str, Any] | None, dice: DiceSource | None, render_mode: str | None, **kw: Any
    ) -> None:
        self.config = validate_config(ExtraConfig, config, **kw)
        if render_mode is not None and render_mode not in METADATA["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of None, {METADATA['render_modes']}")
        self.render_mode = render_mode
        if dice is None:
            dice = SeededDice(faces=E.NUM_FACES, block=E.NUM_DICE, seed=None)
        elif not isinstance(dice, DiceSource):
            raise TypeError(f"dice must have a roll(n) method (a DiceSource), got {type(dice).__name__}")
        if isinstance(dice, SeededDice) and (dice.faces != E.NUM_FACES or dice.block < E.NUM_DICE):
            raise ValueError(f"SeededDice for Extra! needs faces=6 and block>=5, got {dice.faces}, {dice.block}")
        self.dice = dice
        self._trusted_dice = isinstance(dice, SeededDice)

        cfg = self.config
        sheet = cfg.sheet
        n = cfg.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._obs_size = E.observation_size(n)
        bound = E.observation_bound(sheet.penalty, sheet.points)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-bound, bound, (self._obs_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (E.NUM_ACTIONS,), np.int8),
            }
        )
        act_space = spaces.Discrete(E.NUM_ACTIONS)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self._reward_mode = cfg.reward_mode
        self._sheet_args = (
            int(cfg.children),
            sheet.penalty,
            np.asarray(sheet.minus_boxes, dtype=np.int32),
            np.asarray(sheet.points, dtype=np.int32),
            np.asarray(sheet.extra_columns, dtype=np.int32),
        )
        self.engine_state = np.zeros(E.STATE_SIZE, dtype=np.int32)
        self._has_reset = False
        self.agents: list[str] = []

    # --- spaces and observations

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = np.empty(self._obs_size, dtype=np.float32)
        mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
        _observe(self.engine_state, self._seat[agent], obs, mask)
        return {"observation": obs, "action_mask": mask}

    # --- engine plumbing

    def _new_game(self, seed: int | None) -> None:
        """Reseed (so this and every later unseeded reset are reproducible), init, throw."""
        if seed is not None:
            reseed = getattr(self.dice, "seed", None)
            if reseed is not None:
                reseed(seed)
        E.init_state(self.engine_state, self.config.num_players, *self._sheet_args)
        self._resolve_chance()
        self._has_reset = True

    def _resolve_chance(self) -> None:
        """One ``dice.roll(5)`` per pending throw."""
        k = E.dice_needed(self.engine_state)
        while k > 0:
            faces = self.dice.roll(k)
            if not self._trusted_dice:
                faces = self._check_faces(faces, k)
            E.apply_chance(self.engine_state, faces)
            k = E.dice_needed(self.engine_state)

    @staticmethod
    def _check_faces(faces: Any, k: int) -> np.ndarray:
        arr = np.asarray(faces)
        if arr.shape != (k,) or arr.dtype.kind not in "iu" or (k and (arr.min() < 0 or arr.max() >= E.NUM_FACES)):
            raise ValueError(f"the dice source must return {k} integer faces in 0..{E.NUM_FACES - 1}, got {faces!r}")
        return arr.astype(np.int64)

    def _play(self, seat: int, action: int) -> bool:
        """Record a checked legal choice; resolve the next throw if the round ended. True if it ended."""
        resolved = _act(self.engine_state, seat, action)
        if resolved < 0:
            raise AssertionError("unreachable: the action was checked legal")
        if resolved:
            self._resolve_chance()
        return bool(resolved)

    def _finished(self, seat: int) -> bool:
        return bool(self.engine_state[E.PLAYERS + seat * E.PLAYER_SIZE + E.P_DONE])

    def _game_over(self) -> bool:
        return int(self.engine_state[E.PHASE]) == E.PHASE_OVER

    def _reward(self, seat: int) -> float:
        return float(E.final_reward(self.engine_state, seat, self._reward_mode))

    def _info(self, seat: int) -> dict[str, Any]:
        s = self.engine_state
        base = E.PLAYERS + seat * E.PLAYER_SIZE
        return {
            "round": int(s[E.ROUND]),
            "dice": s[E.DICE : E.DICE + E.NUM_DICE].tolist(),
            "score": int(E.score(s, seat)),
            "extra_numbers": s[base + E.P_NUMBER : base + E.P_NUMBER + E.NUM_COLUMNS].tolist(),
            "finished": bool(s[base + E.P_DONE]),
            "last_action": int(s[base + E.P_LAST]),
        }

    # --- input checks (raise before anything changes)

    @staticmethod
    def _coerce_action(action: Any) -> int:
        """Accept ints and NumPy integer scalars / 0-d arrays in range; anything else is a clear error."""
        if type(action) is int and 0 <= action < E.NUM_ACTIONS:
            return action
        if isinstance(action, bool | np.bool_):
            raise TypeError(f"action must be an int 0..{E.NUM_ACTIONS - 1}, got a bool ({action!r})")
        if isinstance(action, int | np.integer):
            value = int(action)
        elif isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            value = int(action)
        else:
            shape = f" of shape {action.shape} and dtype {action.dtype}" if isinstance(action, np.ndarray) else ""
            raise TypeError(
                f"action must be an int 0..{E.NUM_ACTIONS - 1} (Python int, NumPy integer scalar or 0-d integer "
                f"array), got {type(action).__name__}{shape}: {action!r}"
            )
        if not 0 <= value < E.NUM_ACTIONS:
            raise ValueError(f"action {value} is out of range: {ACTION_HELP}")
        return value

    def _check_legal(self, agent: str, action: int) -> None:
        """Raise a ValueError naming the action, why it is illegal, and the legal ids."""
        state = self.engine_state
        seat = self._seat[agent]
        if E.is_legal(state, seat, action):
            return
        if self._finished(seat):
            raise ValueError(f"{agent} has finished and makes no further decisions")
        if not E.must_act(state, seat):
            raise ValueError(f"{agent} has already decided on this throw")
        mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
        E.legal_mask(state, seat, mask)
        dice = state[E.DICE : E.DICE + E.NUM_DICE].tolist()
        base = E.PLAYERS + seat * E.PLAYER_SIZE
        numbers = state[base + E.P_NUMBER : base + E.P_NUMBER + E.NUM_COLUMNS].tolist()
        e, _, c = E.decode_action(action)
        rule = int(E.extra_rule(state, seat, e))
        if rule == E.RULE_NOT_ALLOWED:
            why = f"the throw holds one of the EXTRA numbers {numbers}, so the fifth die must be one of those"
        elif rule == E.RULE_LUCKY:
            why = f"the throw holds none of the EXTRA numbers {numbers}: no EXTRA check, the column must be 0"
        elif rule == E.RULE_ANY_EMPTY:
            empty = [j for j in range(E.NUM_COLUMNS) if numbers[j] == 0]
            why = f"{dice[e]} is a new EXTRA number and goes into an empty column {empty}, not column {c}"
        else:
            why = f"{dice[e]} is the EXTRA number of column {rule}, so the column must be {rule}"
        raise ValueError(
            f"illegal action {action} ({describe_action(action, dice)}) for {agent}: {why}. "
            f"Legal action ids: {np.flatnonzero(mask).tolist()}"
        )

    # --- rendering

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= to the constructor")
            return None
        if not self._has_reset:
            raise RuntimeError("render() before reset(): call reset() first")
        if self.render_mode == "rgb_array":
            return render_rgb(self.engine_state)
        text = render_ansi(self.engine_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: rendering draws off-screen."""
