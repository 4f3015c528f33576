"""What the AEC and Parallel faces of Extra! share: config, dice, spaces, observing, input checks, rendering.

No rule lives here: legality, transitions and scoring are the engine's; this module only calls it.
Chance never reaches the agents: whenever the engine is at a chance node the table asks its dice source for
one ``roll(5)``, so a batched engine drawing the same seeded stream plays the same game.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import EzPickle
from numba import njit

from envs.common.config import validate_config
from envs.common.dice import DiceSource
from envs.common.table import DiceTable, coerce_action, reseed

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


class ExtraTable(DiceTable):
    """Engine state plus everything both faces need around it (the game-independent part: ``DiceTable``)."""

    metadata = METADATA
    _engine = E
    _game_name = "Extra!"
    _observe_into = staticmethod(_observe)
    _render_ansi = staticmethod(render_ansi)
    _render_rgb = staticmethod(render_rgb)

    def __init__(
        self,
        config: ExtraConfig | dict[str, Any] | None = None,
        dice: DiceSource | None = None,
        render_mode: str | None = None,
        **config_overrides: Any,
    ) -> None:
        """The PettingZoo faces' constructor (pickled by its arguments)."""
        EzPickle.__init__(self, config, dice, render_mode, **config_overrides)
        self._setup(config, dice, render_mode, **config_overrides)

    def _setup(
        self, config: ExtraConfig | dict[str, Any] | None, dice: DiceSource | None, render_mode: str | None, **kw: Any
    ) -> None:
        cfg = validate_config(ExtraConfig, config, **kw)
        sheet = cfg.sheet
        bound = E.observation_bound(sheet.penalty, sheet.points)
        self._setup_table(cfg, dice, render_mode, (-bound, bound))
        self._reward_mode = cfg.reward_mode
        self._shaping = cfg.shaping
        self._header = E.header(cfg)

    # --- engine plumbing

    def _new_game(self, seed: int | None) -> None:
        """Reseed (so this and every later unseeded reset are reproducible), init, throw."""
        reseed(self.dice, seed)
        E.init_state(self.engine_state, self._header)
        self._resolve_chance(E.dice_needed(self.engine_state))
        self._has_reset = True

    def _play(self, seat: int, action: int) -> bool:
        """Record a checked legal choice; resolve the next throw if the round ended. True if it ended."""
        resolved = _act(self.engine_state, seat, action)
        if resolved < 0:
            raise AssertionError("unreachable: the action was checked legal")
        if resolved:
            self._resolve_chance(E.dice_needed(self.engine_state))
        return bool(resolved)

    def _finished(self, seat: int) -> bool:
        return bool(self.engine_state[E.PLAYERS + seat * E.PLAYER_SIZE + E.P_DONE])

    def _game_over(self) -> bool:
        return int(self.engine_state[E.PHASE]) == E.PHASE_OVER

    def _reward(self, seat: int) -> float:
        return float(E.final_reward(self.engine_state, seat, self._reward_mode))

    def _step_reward(self, seat: int, finished: bool) -> float:
        """``"score"`` reward of a seat that played the round just resolved: the shaping reward (score change / 100)
        with ``shaping``, else final score / 100 if it ``finished`` in that round, else 0."""
        if self._shaping:
            return float(E.shaped_reward(self.engine_state, seat))
        return self._reward(seat) if finished else 0.0

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
        return coerce_action(action, E.NUM_ACTIONS, ACTION_HELP)

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
