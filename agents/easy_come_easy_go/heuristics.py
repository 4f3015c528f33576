"""Easy Come, Easy Go agents built on the exact turn solver: exact, myopic, lookahead and a full-game heuristic.

Full game: the planning agents read engine states (``reads_state = True``, ``act_states(states, masks, seats)``:
the batched engine's ``states``, a PettingZoo env's ``state()``); dice, frozen dice and prize holders come from
the engine's slots (:func:`decision_positions`), never from observation floats. Turn task
(``EasyComeEasyGoTurn-v0``): its observation is the input, as for any policy (``turn_engine.py``: the dice and
the prize values scaled as the task shows them), so ``act_batch`` reads it. Each agent
turns a position into a prize-value vector and plays from (cached) tables for that vector: the exact solution,
a depth-limited one, or (myopic) the one-re-roll expectations.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from dicearena.agents.base import Agent
from dicearena.envs.easy_come_easy_go import engine as eng
from dicearena.envs.easy_come_easy_go import turn_engine as te

from .exact import TurnSolution, dice_codes, kept_multisets, lookahead_turn, reroll_expectations, solve_turn

__all__ = [
    "Positions",
    "decision_positions",
    "any_prize_not_mine",
    "ExactTurnAgent",
    "MyopicAgent",
    "LookaheadAgent",
    "FullGameHeuristicAgent",
]

_BITS = 1 << np.arange(eng.NUM_DICE)


class Positions(NamedTuple):
    """B full-game decisions, read from engine states."""

    dice: np.ndarray  # (B, 4) faces 0..5
    frozen: np.ndarray  # (B,) bit i = die i frozen
    rolls: np.ndarray  # (B,) rolls made this turn, 1..4
    owners: np.ndarray  # (B, 9) seat holding each prize, engine.CENTRE (-1) if none
    seats: np.ndarray  # (B,) the seat deciding


def decision_positions(name: str, states: np.ndarray, action_masks: np.ndarray, seats: np.ndarray) -> Positions:
    """The decisions ``seats`` face in engine ``states`` (B, STATE_SIZE), or a ValueError naming agent ``name``
    (wrong shapes, or a state that is not that seat's decision)."""
    states = np.atleast_2d(np.asarray(states))
    masks = np.atleast_2d(np.asarray(action_masks))
    seats = np.broadcast_to(np.asarray(seats, dtype=np.int64), states.shape[:1])
    if states.shape[1:] != (eng.STATE_SIZE,) or masks.shape != (states.shape[0], eng.NUM_ACTIONS):
        raise ValueError(f"{name}: need engine states (B, {eng.STATE_SIZE}) and masks (B, {eng.NUM_ACTIONS}); got "
                         f"{states.shape}, {masks.shape}")  # fmt: skip
    off = np.flatnonzero((states[:, eng.PHASE] != eng.PHASE_DECIDE) | (states[:, eng.CURRENT] != seats))
    if off.size:
        b = int(off[0])
        raise ValueError(f"{name}: state {b} is not a decision of seat {seats[b]} (phase {states[b, eng.PHASE]}, "
                         f"player_{states[b, eng.CURRENT]} to move)")  # fmt: skip
    return Positions(
        dice=states[:, eng.DICE : eng.DICE + eng.NUM_DICE].astype(np.int64),
        frozen=states[:, eng.FROZEN].astype(np.int64),
        rolls=states[:, eng.ROLLS].astype(np.int64),
        owners=states[:, eng.OWNER : eng.OWNER + eng.NUM_PRIZES].astype(np.int64),
        seats=seats,
    )


def any_prize_not_mine(states: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(B, 9) the plain valuation: every prize the deciding seat does not hold is worth 1."""
    owners = np.atleast_2d(states)[:, eng.OWNER : eng.OWNER + eng.NUM_PRIZES]
    return (owners != np.asarray(seats).reshape(-1, 1)).astype(np.float64)


def _turn_view(name: str, observations: np.ndarray, action_masks: np.ndarray) -> tuple[np.ndarray, ...]:
    """Dice (B, 4), frozen masks (B,), shown prize values (B, 9) and masks of turn-task observations (B, 86)."""
    obs = np.atleast_2d(np.asarray(observations))
    masks = np.atleast_2d(np.asarray(action_masks))
    if obs.shape[1] != te.TURN_OBS_SIZE:
        raise ValueError(
            f"{name}: act_batch reads turn-task observations ({te.TURN_OBS_SIZE} floats), got length {obs.shape[1]}; "
            "in the full game it plans on the engine state: act_states(states, masks, seats), or "
            "act(obs, mask, state=env.state(), seat=)"
        )
    if masks.shape != (obs.shape[0], eng.NUM_ACTIONS):
        raise ValueError(f"{name}: need obs (B, D) and masks (B, {eng.NUM_ACTIONS}); got {obs.shape}, {masks.shape}")
    dice = obs[:, te.T_DICE : te.T_DICE + eng.NUM_DICE * eng.NUM_FACES].reshape(-1, eng.NUM_DICE, eng.NUM_FACES)
    frozen = (obs[:, te.T_FROZEN : te.T_FROZEN + eng.NUM_DICE] > 0.5).astype(np.int64) @ _BITS
    values = obs[:, te.T_VALUES : te.T_VALUES + eng.NUM_PRIZES].astype(np.float64)  # value_scale cancels out
    return dice.argmax(axis=-1).astype(np.int64), frozen, values, masks


def unique_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows, index of each row's distinct row) of a 2-D float array, grouped by their bytes.

    Why not ``np.unique(axis=0)``: that sorts field by field; one opaque 72-byte key per row sorts ~6x faster,
    and agents call this on every batch (the seat-vs-opponents envs, each opponent move).
    """
    rows = np.ascontiguousarray(values, dtype=np.float64)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return rows[first], inverse.reshape(-1)


class _EcegAgent(Agent):
    """What every agent here shares: ``act_batch`` on turn-task observations; a planner of the full game
    (``reads_state``) plays it with ``act_states``, whose values come from :meth:`game_values`."""

    reads_state = True
    plays = "both"  # "turn", "game" or "both"

    def __init__(self, four_of_a_kind_is_two_pairs: bool = False) -> None:
        self.variant = bool(four_of_a_kind_is_two_pairs)

    def _play(self, values: np.ndarray, dice: np.ndarray, frozen: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def game_values(self, states: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """(B, 9) the prize values a full-game decision chases: 1 for every prize the seat does not hold."""
        return any_prize_not_mine(states, seats)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        if self.plays == "game":
            raise ValueError(f"{self.name} plays the full game from engine states (act_states, or act(obs, mask, "
                             "state=env.state(), seat=)); use ExactTurnAgent for the turn task")  # fmt: skip
        if self.plays == "turn" and np.shape(observations)[-1] != te.TURN_OBS_SIZE:
            raise ValueError(f"{self.name} plays the turn task (observations of {te.TURN_OBS_SIZE} floats), got length "
                             f"{np.shape(observations)[-1]}; use FullGameHeuristicAgent for the full game, or "
                             "dicearena.agents.easy_come_easy_go.in_game.TurnPolicyInGame")  # fmt: skip
        dice, frozen, values, masks = _turn_view(self.name, observations, action_masks)
        return self._play(values, dice, frozen, masks)

    def act_states(self, states: np.ndarray, action_masks: np.ndarray, seats: np.ndarray) -> np.ndarray:
        if self.plays == "turn":
            raise ValueError(f"{self.name} plays the turn task; use FullGameHeuristicAgent for the full game, or "
                             "dicearena.agents.easy_come_easy_go.in_game.TurnPolicyInGame")  # fmt: skip
        pos = decision_positions(self.name, states, action_masks, seats)
        masks = np.atleast_2d(np.asarray(action_masks))
        return self._play(self.game_values(np.atleast_2d(states), pos.seats), pos.dice, pos.frozen, masks)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: np.ndarray | None = None,
            seat: int | None = None) -> int:  # fmt: skip
        """One action: from ``state`` and ``seat`` in the full game, from the observation on the turn task."""
        if state is None and self.plays != "game" and np.shape(observation)[-1] == te.TURN_OBS_SIZE:
            if not np.asarray(action_mask).any():
                raise ValueError(f"{self.name}: the action mask is empty; there is no legal action to choose")
            return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])
        return super().act(observation, action_mask, state, seat)


class _SolverAgent(_EcegAgent):
    """Plays, row by row, the best action of a cached solution for the row's value vector."""

    prefer_fewer_frozen = False

    def __init__(self, four_of_a_kind_is_two_pairs: bool = False) -> None:
        super().__init__(four_of_a_kind_is_two_pairs)
        self._cache: dict[bytes, TurnSolution] = {}

    def _solve(self, values: np.ndarray) -> TurnSolution:
        raise NotImplementedError

    def solution(self, values: np.ndarray) -> TurnSolution:
        key = np.round(np.asarray(values, dtype=np.float64), 9).tobytes()
        sol = self._cache.get(key)
        if sol is None:
            if len(self._cache) > 100_000:
                self._cache.clear()
            sol = self._cache[key] = self._solve(np.asarray(values, dtype=np.float64))
        return sol

    def _play(self, values: np.ndarray, dice: np.ndarray, frozen: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if values.shape[0] == 0:
            return np.empty(0, dtype=np.int64)
        if np.all(values == values[:1]):  # common case (exact evaluation, fixed-value tasks): one solution
            return self.solution(values[0]).best_action(dice, frozen, masks, self.prefer_fewer_frozen)
        out = np.empty(values.shape[0], dtype=np.int64)
        uniq, inverse = unique_rows(values)
        for u in range(uniq.shape[0]):
            rows = np.flatnonzero(inverse == u)
            out[rows] = self.solution(uniq[u]).best_action(dice[rows], frozen[rows], masks[rows],
                                                           self.prefer_fewer_frozen)  # fmt: skip
        return out

    advice_scale = 1.0  # action values are in prize values (a prize is worth about 1)

    def advise(self, states: np.ndarray, action_masks: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the actions ``act_states`` plays (B,), every action's value (B, 24): the expected prize value of the
        turn after it, under this agent's value vector; -inf where illegal). What ``dicearena.agents.advice`` reads."""
        pos = decision_positions(self.name, states, action_masks, seats)
        masks = np.atleast_2d(np.asarray(action_masks))
        values = self.game_values(np.atleast_2d(states), pos.seats)
        q = np.full(masks.shape, -np.inf)
        if values.shape[0]:
            uniq, inverse = unique_rows(values)
            for u in range(uniq.shape[0]):
                rows = np.flatnonzero(inverse == u)
                q[rows] = self.solution(uniq[u]).q_values(pos.dice[rows], pos.frozen[rows], masks[rows])
        return self._play(values, pos.dice, pos.frozen, masks), q


class ExactTurnAgent(_SolverAgent):
    """Optimal play of the turn task: the exact solver for the values shown in the observation."""

    name = "exact_turn"
    reads_state = False
    plays = "turn"

    def _solve(self, values: np.ndarray) -> TurnSolution:
        return solve_turn(values, self.variant)


class LookaheadAgent(_SolverAgent):
    """Collect now, or freeze the subset of dice whose next ``horizon`` re-rolls promise the most, then stop.

    ``horizon`` = 1 weighs collecting now against the expected best collectable value after ONE re-roll over
    every freeze subset (about 90% of optimal with all values 1); 3 = optimal. Ties go to collecting, then to
    freezing fewer dice. Values as for :class:`MyopicAgent`.
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


_SINGLE = 1 << np.arange(eng.NUM_DICE)  # freeze masks of one die; action = FREEZE_OFFSET + mask
_SUBSETS = np.arange(1, eng.ALL_FROZEN + 1)


class MyopicAgent(_EcegAgent):
    """The issue's myopic rule: collect, or freeze the single die that maximises the next roll's expected prize.

    If the mask allows collecting a prize worth > 0, collect the most valuable one (ties: lowest prize id).
    Otherwise freeze exactly one not-yet-frozen die: the one whose freezing maximises the expected best
    collectable value after re-rolling the other unfrozen dice once (ties within 1e-12: lowest die index);
    with one die left, freezing it is the only such move. Values: the turn task's shown values; in the full
    game (engine states), 1 for every prize the mover does not hold. Only under a restricted mask that forbids
    every single-die freeze: the legal freeze of best expected value, or if none, the most valuable legal prize.

    Batched: per value vector one (210,) table of re-roll expectations (cached), then array lookups.
    """

    name = "myopic"

    def __init__(self, four_of_a_kind_is_two_pairs: bool = False) -> None:
        super().__init__(four_of_a_kind_is_two_pairs)
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

    def _play(self, values: np.ndarray, dice: np.ndarray, frozen: np.ndarray, masks: np.ndarray) -> np.ndarray:
        n = values.shape[0]
        if n == 0:
            return np.empty(0, dtype=np.int64)
        legal = masks != 0
        if not legal.any(axis=1).all():
            raise ValueError(f"{self.name}: row {int(np.flatnonzero(~legal.any(axis=1))[0])} has no legal action")
        codes = dice_codes(dice)
        if np.all(values == values[:1]):  # common case (exact evaluation, fixed-value tasks): one table
            table, row_of = self.expectations(values[:1]), np.zeros(n, dtype=np.int64)
        else:
            uniq, row_of = unique_rows(values)
            table = self.expectations(uniq)
        prize_value = np.where(legal[:, : eng.NUM_PRIZES], values, -np.inf)
        collect = prize_value.max(axis=1) > 0

        single_legal = legal[:, eng.FREEZE_OFFSET + _SINGLE]  # (B, 4)
        single_ev = table[row_of[:, None], kept_multisets(frozen[:, None] | _SINGLE, codes[:, None])]
        out = np.where(
            collect, np.argmax(prize_value, axis=1), eng.FREEZE_OFFSET + _SINGLE[_pick(single_ev, single_legal)]
        )

        odd = ~collect & ~single_legal.any(axis=1)  # restricted mask: no single-die freeze allowed
        if odd.any():
            sub_legal = legal[odd][:, eng.FREEZE_OFFSET + _SUBSETS]
            sub_ev = table[row_of[odd, None], kept_multisets(frozen[odd, None] | _SUBSETS, codes[odd, None])]
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
    plays = "game"

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

    def position_values(self, states: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """(B, 9) the value vector each deciding seat chases, from the prize holders in engine ``states``."""
        owners = np.atleast_2d(states)[:, eng.OWNER : eng.OWNER + eng.NUM_PRIZES].astype(np.int64)
        mine = owners == np.asarray(seats, dtype=np.int64).reshape(-1, 1)
        held = (owners[:, :, None] == np.arange(eng.MAX_PLAYERS)).sum(axis=1)  # (B, seats): prizes per seat
        holder_count = np.where(owners >= 0, np.take_along_axis(held, np.maximum(owners, 0), axis=1), 0)
        theirs = (owners >= 0) & ~mine
        values = self.base + self.steal_bonus[np.minimum(holder_count, eng.PRIZES_TO_WIN)] * theirs
        winning = theirs & (holder_count >= eng.PRIZES_TO_WIN)
        must_steal = winning.any(axis=1, keepdims=True)
        values = np.where(must_steal & ~winning, 0.0, values)
        return np.where(mine, 0.0, values)

    game_values = position_values
