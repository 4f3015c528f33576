"""Extra! agents: greedy, a planning heuristic, and a one-throw expectimax.

All three read the player's own sheet from the observation (solitaire or full game: the observer's block comes
first in both), rebuild a one-player engine state from it and score each legal action's *afterstate*, which
the engine itself computes (``apply_action`` on a scratch copy): no rule is re-implemented here.

- ``GreedyAgent``: the afterstate's sheet score (``engine.score``: a row in the minus zone is -200 at once).
- ``PlannerAgent``: the afterstate's *planning value* ``V`` (below); an action that finishes the game is
  worth its true final score.
- ``ExpectimaxAgent``: ``Q(a) = E_throw[max_a' V(after(after(a), a'))]`` over the 252 distinct next throws
  (exact probabilities), with the true final score wherever a game ends; i.e. the planner looking one throw
  further ahead.

Planning value ``V`` of a sheet (weights in ``PlannerAgent.DEFAULTS``):
- a row past the minus zone: its score; an unchecked row: 0;
- a row inside the minus zone with ``need`` checks still missing to its 0 box: ``-penalty * (need / (M + 1))
  ** alpha`` (the rows near zero are planned for: each check that brings a row closer is worth a lot);
- EXTRA chart: ``-extra_weight * sum_j checks_j / (length_j - checks_j + 1)`` (columns near their end are
  costly, so the longer columns are used first and the game lasts), and ``rare_bonus`` for each EXTRA number
  that is a 1 or a 6 (the rarest pair material for the middle rows, so setting them aside costs least).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.base import Agent
from envs.common.config import validate_config
from envs.extra import engine as E
from envs.extra.config import ExtraConfig, ExtraSheet

__all__ = [
    "ExpectimaxAgent",
    "GreedyAgent",
    "PlannerAgent",
    "SheetView",
    "decode_sheet",
    "num_players_of",
]

KIND_GREEDY = 0
KIND_PLANNER = 1
KIND_EXPECTIMAX = 2


def _throws() -> tuple[np.ndarray, np.ndarray]:
    """The 252 distinct throws of five dice (0-based faces, sorted) and their probabilities: the engine's
    ``enumerate_outcomes`` at a chance node, so the agents hold no chance model of their own."""
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.init_state(state, E.header(ExtraConfig(num_players=1)))
    faces = np.zeros((E.NUM_THROWS, E.NUM_DICE), dtype=np.int32)
    probs = np.zeros(E.NUM_THROWS, dtype=np.float64)
    count = E.enumerate_outcomes(state, faces, probs)
    return faces[:count].astype(np.int64), probs[:count]


THROWS, THROW_PROBS = _throws()


def num_players_of(obs: np.ndarray) -> int:
    """Players of the game an observation (B, D) comes from (1 = solitaire); ValueError if D fits none."""
    size = np.shape(obs)[-1]
    for p in range(1, E.MAX_PLAYERS + 1):
        if size == E.observation_size(p):
            return p
    allowed = [E.observation_size(p) for p in range(1, E.MAX_PLAYERS + 1)]
    raise ValueError(f"observation length {size} is not an Extra! observation (one of {allowed} for 1..6 players)")


class SheetView:
    """The observer's own sheet decoded from observations (B rows)."""

    def __init__(self, obs: np.ndarray, sheet: ExtraSheet) -> None:
        obs = np.atleast_2d(np.asarray(obs, dtype=np.float64))
        num_players_of(obs)
        o = E.OBS_PLAYERS
        dice_hot = obs[:, E.OBS_DICE : E.OBS_DICE + E.NUM_DICE * E.NUM_FACES].reshape(-1, E.NUM_DICE, E.NUM_FACES)
        boxes = np.asarray(sheet.minus_boxes) + 1 + E.NUM_FACTORS
        self.dice = np.where(dice_hot.max(-1) > 0.5, dice_hot.argmax(-1) + 1, 0)  # pips, 0 = no throw shown
        self.rows = np.rint(obs[:, o + E.PO_ROW_CHECKS : o + E.PO_ROW_CHECKS + E.NUM_ROWS] * boxes).astype(np.int64)
        numbers = obs[:, o + E.PO_EXTRA_NUMBER : o + E.PO_EXTRA_NUMBER + 7 * E.NUM_COLUMNS].reshape(-1, 3, 7)
        self.numbers = numbers.argmax(-1)
        lengths = np.asarray(sheet.extra_columns)
        self.checks = np.rint(obs[:, o + E.PO_EXTRA_CHECKS : o + E.PO_EXTRA_CHECKS + 3] * lengths).astype(np.int64)
        self.round = np.rint(obs[:, E.OBS_ROUND] * 100).astype(np.int64)
        self.to_act = obs[:, E.OBS_TO_ACT] > 0.5


def decode_sheet(obs: np.ndarray, sheet: ExtraSheet | dict[str, Any] | None = None) -> SheetView:
    """Dice (pips), row checks, EXTRA numbers and column checks of the observer, for a given sheet layout."""
    return SheetView(obs, validate_config(ExtraSheet, sheet))


# --- numba: rebuild a state, value sheets, choose ------------------------------------------------------


MAX_CHECKS = 31  # table width: more than any row (12 + 6) or column (30) can hold


def planning_tables(sheet: ExtraSheet, params: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``V`` as lookup tables: row part (11, 31) by checks, column part (3, 31) by checks, number bonus (7,)."""
    alpha, extra_weight, rare_bonus = (float(x) for x in params)
    rows = np.zeros((E.NUM_ROWS, MAX_CHECKS))
    for r, (m, pts) in enumerate(zip(sheet.minus_boxes, sheet.points, strict=True)):
        for c in range(1, m + 1 + E.NUM_FACTORS + 1):
            rows[r, c] = pts * (c - m - 1) if c > m else -sheet.penalty * ((m + 1 - c) / (m + 1)) ** alpha
    cols = np.zeros((E.NUM_COLUMNS, MAX_CHECKS))
    for j, length in enumerate(sheet.extra_columns):
        for c in range(length + 1):
            cols[j, c] = -extra_weight * c / (length - c + 1)
    numbers = np.zeros(7)
    numbers[[1, 6]] = rare_bonus
    return rows, cols, numbers


@njit(cache=True, inline="always")
def _planning_value(state: np.ndarray, rows: np.ndarray, cols: np.ndarray, numbers: np.ndarray) -> float:
    """``V`` of seat 0's sheet (see the module docstring), from ``planning_tables``."""
    base = E.PLAYERS
    total = 0.0
    for r in range(E.NUM_ROWS):
        total += rows[r, state[base + E.P_ROWS + r]]
    for j in range(E.NUM_COLUMNS):
        total += cols[j, state[base + E.P_CHECKS + j]] + numbers[state[base + E.P_NUMBER + j]]
    return total


@njit(cache=True, inline="always")
def _leaf(state: np.ndarray, kind: int, rows: np.ndarray, cols: np.ndarray, numbers: np.ndarray) -> float:
    """Value of an afterstate: the true score if the game is over, else the kind's estimate."""
    if kind == KIND_GREEDY or state[E.PHASE] == E.PHASE_OVER:
        return float(E.score(state, 0))
    return _planning_value(state, rows, cols, numbers)


_SAVED_SEAT = 2 + E.NUM_DICE  # saved: phase, round, dice, then seat 0's block


@njit(cache=True, inline="always")
def _save(state: np.ndarray, saved: np.ndarray) -> None:
    saved[0] = state[E.PHASE]
    saved[1] = state[E.ROUND]
    for i in range(E.NUM_DICE):
        saved[2 + i] = state[E.DICE + i]
    for i in range(E.PLAYER_SIZE):
        saved[_SAVED_SEAT + i] = state[E.PLAYERS + i]


@njit(cache=True, inline="always")
def _restore(state: np.ndarray, saved: np.ndarray) -> None:
    state[E.PHASE] = saved[0]
    state[E.ROUND] = saved[1]
    for i in range(E.NUM_DICE):
        state[E.DICE + i] = saved[2 + i]
    for i in range(E.PLAYER_SIZE):
        state[E.PLAYERS + i] = saved[_SAVED_SEAT + i]


@njit(cache=True, inline="always")
def _effect_key(state: np.ndarray, action: int) -> int:
    """Actions with equal pair sums, fifth-die value and column lead to the same afterstate: one key."""
    e = action // 9
    p = (action // 3) % 3
    d = E.DICE
    s1 = state[d + E.PAIRINGS[e, p, 0]] + state[d + E.PAIRINGS[e, p, 1]]
    s2 = state[d + E.PAIRINGS[e, p, 2]] + state[d + E.PAIRINGS[e, p, 3]]
    lo, hi = min(s1, s2), max(s1, s2)
    return ((lo * 13 + hi) * 7 + state[d + e]) * 3 + action % 3


@njit(cache=True, inline="always")
def _first_of_its_effect(state, action, keys, n_keys) -> bool:
    """True (and its key recorded at ``keys[n_keys]``) unless an action of the same effect was seen already."""
    key = _effect_key(state, action)
    for k in range(n_keys):
        if keys[k] == key:
            return False
    keys[n_keys] = key
    return True


@njit(cache=True, inline="always")
def _best_next(state, rows, cols, numbers, throws, probs, mask, keys, saved) -> float:
    """E over the next throw of the best afterstate value (state: an afterstate waiting for a throw)."""
    _save(state, saved[0])
    expected = 0.0
    for t in range(throws.shape[0]):
        E.apply_chance(state, throws[t])
        E.legal_mask(state, 0, mask)
        _save(state, saved[1])
        best = -1e18
        n_keys = 0
        for a in range(E.NUM_ACTIONS):
            if mask[a] == 0:
                continue
            if not _first_of_its_effect(state, a, keys, n_keys):
                continue
            n_keys += 1
            E.apply_action(state, 0, a)
            value = _leaf(state, KIND_PLANNER, rows, cols, numbers)
            if value > best:
                best = value
            _restore(state, saved[1])
        expected += probs[t] * best
        _restore(state, saved[0])
    return expected


@njit(cache=True)
def _choose(obs, masks, children, penalty, minus, points, columns, kind, rows, cols, numbers, throws, probs, out):
    """Best legal action of every row (first of equal values) for the agent ``kind``."""
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
    keys = np.zeros(E.NUM_ACTIONS, dtype=np.int64)
    inner_keys = np.zeros(E.NUM_ACTIONS, dtype=np.int64)
    saved = np.zeros((3, _SAVED_SEAT + E.PLAYER_SIZE), dtype=np.int32)
    o = E.OBS_PLAYERS
    for b in range(obs.shape[0]):
        E.start_game(state, 1, children, penalty, minus, points, columns)
        base = E.PLAYERS
        for r in range(E.NUM_ROWS):
            boxes = minus[r] + 1 + E.NUM_FACTORS
            state[base + E.P_ROWS + r] = int(round(obs[b, o + E.PO_ROW_CHECKS + r] * boxes))
        for j in range(E.NUM_COLUMNS):
            number = 0
            for v in range(1, 7):
                if obs[b, o + E.PO_EXTRA_NUMBER + 7 * j + v] > 0.5:
                    number = v
            state[base + E.P_NUMBER + j] = number
            state[base + E.P_CHECKS + j] = int(round(obs[b, o + E.PO_EXTRA_CHECKS + j] * columns[j]))
        for i in range(E.NUM_DICE):
            for f in range(E.NUM_FACES):
                if obs[b, E.OBS_DICE + E.NUM_FACES * i + f] > 0.5:
                    state[E.DICE + i] = f + 1
        state[E.ROUND] = int(round(obs[b, E.OBS_ROUND] * 100))
        state[E.PHASE] = E.PHASE_DECIDE
        _save(state, saved[2])
        best = -1e18
        chosen = -1
        n_keys = 0
        for a in range(E.NUM_ACTIONS):
            if masks[b, a] == 0:
                continue
            if chosen < 0:
                chosen = a
            if not _first_of_its_effect(state, a, keys, n_keys):
                continue
            n_keys += 1
            E.apply_action(state, 0, a)
            if kind == KIND_EXPECTIMAX and state[E.PHASE] != E.PHASE_OVER:
                value = _best_next(state, rows, cols, numbers, throws, probs, mask, inner_keys, saved)
            else:
                value = _leaf(state, kind, rows, cols, numbers)
            if value > best:
                best = value
                chosen = a
            _restore(state, saved[2])
        out[b] = chosen


class _SheetAgent(Agent):
    """Shared plumbing: observation checks, the sheet layout, the compiled chooser."""

    kind = KIND_GREEDY
    DEFAULTS: tuple[float, ...] = (1.0, 0.0, 0.0)

    def __init__(
        self,
        sheet: ExtraSheet | dict[str, Any] | None = None,
        children: bool = False,
        params: tuple[float, ...] | None = None,
        shaping: bool = False,
    ) -> None:
        """``shaping`` (a reward knob of the solitaire task's config) changes nothing here; it is accepted so an
        agent can be built from a task config as is (``GreedyAgent(**task_config)``)."""
        self.sheet = validate_config(ExtraSheet, sheet)
        self.children = bool(children)
        self.params = np.asarray(self.DEFAULTS if params is None else params, dtype=np.float64)
        if self.params.shape != (3,) or not np.isfinite(self.params).all():
            raise ValueError(f"{self.name}: params must be 3 finite numbers (alpha, extra_weight, rare_bonus)")
        self._sheet_args = (
            int(self.children),
            self.sheet.penalty,
            np.asarray(self.sheet.minus_boxes, dtype=np.int32),
            np.asarray(self.sheet.points, dtype=np.int32),
            np.asarray(self.sheet.extra_columns, dtype=np.int32),
        )
        self._tables = planning_tables(self.sheet, self.params)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs = np.atleast_2d(np.asarray(observations))
        masks = np.atleast_2d(np.asarray(action_masks))
        if obs.ndim != 2 or masks.ndim != 2 or obs.shape[0] != masks.shape[0] or masks.shape[1] != E.NUM_ACTIONS:
            raise ValueError(
                f"{self.name}: need obs (B, D) and masks (B, {E.NUM_ACTIONS}); got {obs.shape}, {masks.shape}"
            )
        num_players_of(obs)
        out = np.empty(obs.shape[0], dtype=np.int64)
        _choose(
            np.ascontiguousarray(obs, dtype=np.float32),
            np.ascontiguousarray(masks, dtype=np.int8),
            *self._sheet_args,
            self.kind,
            *self._tables,
            THROWS,
            THROW_PROBS,
            out,
        )
        return out


class GreedyAgent(_SheetAgent):
    """Best immediate sheet value: the action whose afterstate has the highest score."""

    name = "extra_greedy"
    kind = KIND_GREEDY


class PlannerAgent(_SheetAgent):
    """Best planning value ``V`` of the afterstate (rows near zero, EXTRA numbers and columns: module doc)."""

    name = "extra_planner"
    kind = KIND_PLANNER
    DEFAULTS = (0.5, 20.0, 30.0)


class ExpectimaxAgent(_SheetAgent):
    """One-throw expectimax over the planner's value: ``Q(a) = E_throw[max_a' V(after(after(a), a'))]``."""

    name = "extra_expectimax"
    kind = KIND_EXPECTIMAX
    DEFAULTS = PlannerAgent.DEFAULTS
