"""Easy Come, Easy Go agents built on the exact turn solver: exact, myopic, lookahead and a full-game heuristic.

They read either observation layout (told apart by length): the turn task's
(``envs/easy_come_easy_go/turn_encoding.py``, values in slots 41..49) and the full game's
(``engine.encode_observation``, prize holders relative to the observer). Each agent turns a row into a
prize-value vector and plays from (cached) tables for that vector: the exact solution, a depth-limited one,
or (myopic) the one-re-roll expectations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.base import Agent
from envs.easy_come_easy_go import engine as eng
from envs.easy_come_easy_go import turn_encoding as te

from .exact import TurnSolution, dice_codes, kept_multisets, lookahead_turn, reroll_expectations, solve_turn

__all__ = [
    "DiceView",
    "GameView",
    "decode_dice",
    "decode_turn_values",
    "decode_game",
    "observation_kind",
    "ExactTurnAgent",
    "MyopicAgent",
    "LookaheadAgent",
    "FullGameHeuristicAgent",
]

_BITS = 1 << np.arange(eng.NUM_DICE)


def observation_kind(obs: np.ndarray) -> tuple[str, int]:
    """("turn", 1) for the turn task, ("game", P) for the P-player full game; ValueError otherwise."""
    size = np.shape(obs)[-1]
    if size == te.TURN_OBS_SIZE:
        return "turn", 1
    for p in range(2, eng.MAX_PLAYERS + 1):
        if size == eng.observation_size(p):
            return "game", p
    allowed = [te.TURN_OBS_SIZE] + [eng.observation_size(p) for p in range(2, eng.MAX_PLAYERS + 1)]
    raise ValueError(f"observation length {size} is neither the turn task's nor a full game's (one of {allowed})")


@dataclass(frozen=True)
class DiceView:
    dice: np.ndarray  # (B, 4) faces 0..5
    frozen: np.ndarray  # (B,) bit i = die i frozen
    roll: np.ndarray  # (B,) 1..4


def decode_dice(obs: np.ndarray) -> DiceView:
    """Dice, frozen mask and roll number; both layouts put them in the same first 32 slots."""
    obs = np.atleast_2d(obs)
    assert te.T_DICE == eng.OBS_DICE and te.T_FROZEN == eng.OBS_FROZEN and te.T_ROLL == eng.OBS_ROLL
    dice = obs[:, eng.OBS_DICE : eng.OBS_DICE + eng.NUM_DICE * eng.NUM_FACES]
    dice = dice.reshape(-1, eng.NUM_DICE, eng.NUM_FACES).argmax(axis=-1)
    frozen = (obs[:, eng.OBS_FROZEN : eng.OBS_FROZEN + eng.NUM_DICE] > 0.5).astype(np.int64) @ _BITS
    roll = obs[:, eng.OBS_ROLL : eng.OBS_ROLL + eng.NUM_DICE].argmax(axis=-1) + 1
    return DiceView(dice=dice.astype(np.int64), frozen=frozen, roll=roll)


def decode_turn_values(obs: np.ndarray) -> np.ndarray:
    """(B, 9) prize values of the turn task as shown (divided by the task's value_scale)."""
    obs = np.atleast_2d(obs)
    return obs[:, te.T_VALUES : te.T_VALUES + eng.NUM_PRIZES].astype(np.float64)


@dataclass(frozen=True)
class GameView:
    num_players: int
    owners: np.ndarray  # (B, 9): -1 centre, 0 me, k = k seats after me
    held: np.ndarray  # (B, P): prizes held, index 0 = me, k = k seats after me


def decode_game(obs: np.ndarray) -> GameView:
    """Prize holders and prize counts relative to the observer, from a full-game observation."""
    obs = np.atleast_2d(obs)
    kind, n = observation_kind(obs)
    if kind != "game":
        raise ValueError("decode_game needs a full-game observation, got a turn-task one")
    blocks = obs[:, eng.OBS_OWNERS : eng.OBS_OWNERS + eng.NUM_PRIZES * (n + 1)].reshape(-1, eng.NUM_PRIZES, n + 1)
    owners = blocks.argmax(axis=-1) - 1
    held = (owners[:, :, None] == np.arange(n)).sum(axis=1)
    return GameView(num_players=n, owners=owners, held=held)


def unique_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows, index of each row's distinct row) of a 2-D float array, grouped by their bytes.

    Why not ``np.unique(axis=0)``: that sorts field by field; one opaque 72-byte key per row sorts ~6x faster,
    and agents call this on every batch (the seat-vs-opponents envs, each opponent move).
    """
    rows = np.ascontiguousarray(values, dtype=np.float64)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return rows[first], inverse.reshape(-1)


def _batch(name: str, observations: np.ndarray, action_masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Observations (B, D) and masks (B, 24) as 2-D arrays, or a ValueError naming the agent and the shapes."""
    obs = np.atleast_2d(np.asarray(observations))
    masks = np.atleast_2d(np.asarray(action_masks))
    if obs.shape[0] != masks.shape[0] or masks.shape[1] != eng.NUM_ACTIONS:
        raise ValueError(f"{name}: need obs (B, D) and masks (B, {eng.NUM_ACTIONS}); got {obs.shape}, {masks.shape}")
    return obs, masks


class _SolverAgent(Agent):
    """Plays, row by row, the best action of a cached solution for the row's value vector."""

    prefer_fewer_frozen = False

    def __init__(self, four_of_a_kind_is_two_pairs: bool = False) -> None:
        self.variant = bool(four_of_a_kind_is_two_pairs)
        self._cache: dict[bytes, TurnSolution] = {}

    def _solve(self, values: np.ndarray) -> TurnSolution:
        raise NotImplementedError

    def _values(self, obs: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def solution(self, values: np.ndarray) -> TurnSolution:
        key = np.round(np.asarray(values, dtype=np.float64), 9).tobytes()
        sol = self._cache.get(key)
        if sol is None:
            if len(self._cache) > 100_000:
                self._cache.clear()
            sol = self._cache[key] = self._solve(np.asarray(values, dtype=np.float64))
        return sol

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs, masks = _batch(self.name, observations, action_masks)
        values = self._values(obs)  # checks the observation layout first
        view = decode_dice(obs)
        if obs.shape[0] == 0:
            return np.empty(0, dtype=np.int64)
        if np.all(values == values[:1]):  # common case (exact evaluation, fixed-value tasks): one solution
            return self.solution(values[0]).best_action(view.dice, view.frozen, masks, self.prefer_fewer_frozen)
        out = np.empty(obs.shape[0], dtype=np.int64)
        uniq, inverse = unique_rows(values)
        for u in range(uniq.shape[0]):
            rows = np.flatnonzero(inverse == u)
            out[rows] = self.solution(uniq[u]).best_action(
                view.dice[rows], view.frozen[rows], masks[rows], self.prefer_fewer_frozen
            )
        return out


class ExactTurnAgent(_SolverAgent):
    """Optimal play of the turn task: the exact solver for the values shown in the observation."""

    name = "exact"

    def _solve(self, values: np.ndarray) -> TurnSolution:
        return solve_turn(values, self.variant)

    def _values(self, obs: np.ndarray) -> np.ndarray:
        kind, _ = observation_kind(obs)
        if kind != "turn":
            raise ValueError("ExactTurnAgent plays the turn task; use FullGameHeuristicAgent for the full game")
        return decode_turn_values(obs)  # value_scale cancels out of every argmax


def _game_or_turn_values(obs: np.ndarray) -> np.ndarray:
    """Turn task: the values shown. Full game: 1 for every prize the mover may collect (one it does not hold)."""
    kind, _ = observation_kind(obs)
    if kind == "turn":
        return decode_turn_values(obs)
    return (decode_game(obs).owners != 0).astype(np.float64)


class LookaheadAgent(_SolverAgent):
    """Collect now, or freeze the subset of dice whose next ``horizon`` re-rolls promise the most, then stop.

    ``horizon`` = 1 weighs collecting now against the expected best collectable value after ONE re-roll over
    every freeze subset (about 90% of optimal with all values 1); 3 = optimal. Ties go to collecting, then to
    freezing fewer dice. Reads both observation layouts like :class:`MyopicAgent`.
    """

    name = "lookahead"
    prefer_fewer_frozen = True

    def __init__(self, horizon: int = 1, four_of_a_kind_is_two_pairs: bool = False) -> None:
        super().__init__(four_of_a_kind_is_two_pairs)
        if not isinstance(horizon, int) or horizon < 1:
            raise ValueError(f"LookaheadAgent horizon must be an int >= 1, got {horizon!r}")
        self.horizon = horizon

    def _solve(self, values: np.ndarray) -> TurnSolution:
        return lookahead_turn(values, self.horizon, self.variant)

    def _values(self, obs: np.ndarray) -> np.ndarray:
        return _game_or_turn_values(obs)


_SINGLE = 1 << np.arange(eng.NUM_DICE)  # freeze masks of one die; action = FREEZE_OFFSET + mask
_SUBSETS = np.arange(1, eng.ALL_FROZEN + 1)


class MyopicAgent(Agent):
    """The issue's myopic rule: collect, or freeze the single die that maximises the next roll's expected prize.

    If the mask allows collecting a prize worth > 0, collect the most valuable one (ties: lowest prize id).
    Otherwise freeze exactly one not-yet-frozen die: the one whose freezing maximises the expected best
    collectable value after re-rolling the other unfrozen dice once (ties within 1e-12: lowest die index);
    with one die left, freezing it is the only such move. Values: the turn task's shown values; in the full
    game, 1 for every prize the mover does not hold. Only under a restricted mask that forbids every
    single-die freeze: the legal freeze of best expected value, or if none, the most valuable legal prize.

    Batched: per value vector one (210,) table of re-roll expectations (cached), then array lookups.
    """

    name = "myopic"

    def __init__(self, four_of_a_kind_is_two_pairs: bool = False) -> None:
        self.variant = bool(four_of_a_kind_is_two_pairs)
        self._cache: dict[bytes, np.ndarray] = {}

    def expectations(self, values: np.ndarray) -> np.ndarray:
        """(N, 210) re-roll expectations (``exact.reroll_expectations``) of N value vectors, cached by vector."""
        values = np.atleast_2d(np.asarray(values, dtype=np.float64))
        keys = [row.tobytes() for row in np.round(values, 9)]
        missing = [i for i, k in enumerate(keys) if k not in self._cache]
        if missing:
            if len(self._cache) + len(missing) > 100_000:
                self._cache.clear()
                missing = list(range(len(keys)))
            for i, table in zip(missing, reroll_expectations(values[missing], self.variant), strict=True):
                self._cache[keys[i]] = table
        return np.stack([self._cache[k] for k in keys])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs, masks = _batch(self.name, observations, action_masks)
        values = _game_or_turn_values(obs)  # checks the observation layout first
        n = obs.shape[0]
        if n == 0:
            return np.empty(0, dtype=np.int64)
        legal = masks != 0
        if not legal.any(axis=1).all():
            raise ValueError(f"{self.name}: row {int(np.flatnonzero(~legal.any(axis=1))[0])} has no legal action")
        view = decode_dice(obs)
        codes = dice_codes(view.dice)
        if np.all(values == values[:1]):  # common case (exact evaluation, fixed-value tasks): one table
            table, row_of = self.expectations(values[:1]), np.zeros(n, dtype=np.int64)
        else:
            uniq, row_of = unique_rows(values)
            table = self.expectations(uniq)
        prize_value = np.where(legal[:, : eng.NUM_PRIZES], values, -np.inf)
        collect = prize_value.max(axis=1) > 0

        single_legal = legal[:, eng.FREEZE_OFFSET + _SINGLE]  # (B, 4)
        single_ev = table[row_of[:, None], kept_multisets(view.frozen[:, None] | _SINGLE, codes[:, None])]
        out = np.where(
            collect, np.argmax(prize_value, axis=1), eng.FREEZE_OFFSET + _SINGLE[_pick(single_ev, single_legal)]
        )

        odd = ~collect & ~single_legal.any(axis=1)  # restricted mask: no single-die freeze allowed
        if odd.any():
            sub_legal = legal[odd][:, eng.FREEZE_OFFSET + _SUBSETS]
            sub_ev = table[row_of[odd, None], kept_multisets(view.frozen[odd, None] | _SUBSETS, codes[odd, None])]
            out[odd] = np.where(
                sub_legal.any(axis=1),
                eng.FREEZE_OFFSET + _SUBSETS[_pick(sub_ev, sub_legal)],
                np.argmax(prize_value[odd], axis=1),
            )
        return out.astype(np.int64)


def _pick(scores: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Per row, the first column whose score is within 1e-12 of the best allowed score (0 if none allowed)."""
    s = np.where(allowed, scores, -np.inf)
    top = s.max(axis=1, keepdims=True)
    return np.argmax(allowed & (s >= top - 1e-12 * np.maximum(1.0, np.abs(top))), axis=1)


class FullGameHeuristicAgent(_SolverAgent):
    """Full game: price each prize by the position, then play the exact turn solver for those prices.

    A prize I hold is worth 0. If an opponent already holds three (they win at the start of their next
    turn unless one is taken), only their prizes count. Otherwise a centre prize is worth ``base`` and an
    opponent's prize ``base + steal_bonus[c - 1]`` where c (1 or 2) is how many prizes that opponent holds (taking
    from a player on two stops them winning with their next prize).
    """

    name = "heuristic"

    def __init__(
        self,
        base: float = 1.0,
        steal_bonus: tuple[float, float] = (0.25, 1.0),
        four_of_a_kind_is_two_pairs: bool = False,
    ) -> None:
        super().__init__(four_of_a_kind_is_two_pairs)
        if base <= 0 or len(steal_bonus) != eng.PRIZES_TO_WIN - 1 or min(steal_bonus) < -base:
            raise ValueError(
                f"need base > 0 and 2 steal bonuses (holder on 1, on 2 prizes) >= -base, got {base}, {steal_bonus}"
            )
        self.base = float(base)
        self.steal_bonus = np.array((0.0, *steal_bonus, 0.0), dtype=np.float64)  # by holder's count 0..3

    def _solve(self, values: np.ndarray) -> TurnSolution:
        return solve_turn(values, self.variant)

    def position_values(self, view: GameView) -> np.ndarray:
        """(B, 9) the value vector each observer chases."""
        owners, held = view.owners, view.held
        holder_count = np.where(owners >= 0, np.take_along_axis(held, np.maximum(owners, 0), axis=1), 0)
        values = self.base + self.steal_bonus[np.minimum(holder_count, eng.PRIZES_TO_WIN)] * (owners > 0)
        winning = (owners > 0) & (holder_count >= eng.PRIZES_TO_WIN)
        must_steal = winning.any(axis=1, keepdims=True)
        values = np.where(must_steal & ~winning, 0.0, values)
        return np.where(owners == 0, 0.0, values)

    def _values(self, obs: np.ndarray) -> np.ndarray:
        kind, _ = observation_kind(obs)
        if kind != "game":
            raise ValueError("FullGameHeuristicAgent plays the full game; use ExactTurnAgent for the turn task")
        return self.position_values(decode_game(obs))
