"""Exact solver and exact policy evaluator for one Easy Come, Easy Go turn, for any prize-value vector.

Solver: dynamic programming over (frozen dice multiset F, dice just rolled R). With ``best(D)`` the
highest value of a prize the four dice D satisfy (0 if none),
``V(F, R) = max(best(F+R), max over non-empty S <= R of W(F+S))`` and ``W(F) = E_R[V(F, R)]`` (the
value of re-rolling the 4-|F| free dice), freezing all four dice being worth 0. Dice order does not
matter to the prizes, so the DP runs over the 210 multisets of at most four faces, level by level
(|F| = 3, 2, 1, 0) as small dense matrix products; a batch of value vectors is solved at once.

Evaluator: the exact expected reward of any deterministic policy, by pushing probability mass through
the ordered decision states (dice, frozen mask) roll by roll and asking the policy once per roll for
the whole batch of reachable states (observations built by the engine and the turn encoding).

Prize satisfaction comes only from ``engine.PRIZE_TABLE`` and chance only from the engine's enumeration of a
roll's outcomes with their probabilities (``engine.enumerate_outcomes``, applied with ``engine.apply_outcome``;
:func:`roll_outcomes`); no rule and no dice model is restated here.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dicearena.agents.base import StatePlanner
from dicearena.envs.easy_come_easy_go import engine as eng
from dicearena.envs.easy_come_easy_go.turn_engine import TURN_OBS_SIZE, encode_turn_positions

__all__ = [
    "TurnSolution",
    "solve_turn",
    "solve_turns",
    "lookahead_turn",
    "reroll_expectations",
    "kept_multisets",
    "success_probability",
    "any_prize_probability",
    "evaluate_turn_policy_exact",
    "dice_codes",
    "roll_outcomes",
    "roll_distribution",
]

NUM_CODES = eng.NUM_FACES**eng.NUM_DICE  # ordered four-dice outcomes (engine.dice_code)
_PLACE = eng.NUM_FACES ** np.arange(eng.NUM_DICE - 1, -1, -1)  # die 0 is the most significant digit
_DIGIT = np.array([eng.NUM_FACES ** (eng.NUM_DICE - 1 - i) for i in range(eng.NUM_DICE)], dtype=np.int64)
_FREEZE_SUBSETS = np.arange(1, eng.ALL_FROZEN + 1, dtype=np.int64)  # action = FREEZE_OFFSET + m


def dice_codes(dice: np.ndarray) -> np.ndarray:
    """Engine dice codes (``engine.dice_code``) of a batch of four dice, shape (..., 4) -> (...)."""
    return np.asarray(dice, dtype=np.int64) @ _DIGIT


@lru_cache(maxsize=eng.ALL_FROZEN + 1)
def roll_outcomes(frozen_mask: int) -> tuple[np.ndarray, np.ndarray]:
    """The engine's chance node of a roll with the dice in ``frozen_mask`` kept (bit i = die i): every outcome
    (``engine.enumerate_outcomes``) as the dice code after ``engine.apply_outcome`` (kept dice showing face 0, so
    adding the kept dice's digits gives the full code), with its probability. Read-only arrays, cached."""
    if not 0 <= frozen_mask <= eng.ALL_FROZEN:
        raise ValueError(f"frozen_mask must be 0..{eng.ALL_FROZEN}, got {frozen_mask}")
    state = np.zeros(eng.STATE_SIZE, dtype=np.int32)
    eng.init_turn_state(state, 0)  # a turn about to roll; every die shows face 0
    state[eng.FROZEN] = frozen_mask
    outcomes = np.zeros((NUM_CODES, eng.NUM_DICE), dtype=np.int32)
    probs = np.zeros(NUM_CODES, dtype=np.float64)
    count = int(eng.enumerate_outcomes(state, outcomes, probs))
    if count < 0:
        raise RuntimeError("the engine does not enumerate this roll's outcomes")
    codes = np.empty(count, dtype=np.int64)
    for j in range(count):
        rolled = state.copy()
        eng.apply_outcome(rolled, outcomes[j])
        codes[j] = dice_codes(rolled[eng.DICE : eng.DICE + eng.NUM_DICE])
    probs = probs[:count].copy()
    codes.flags.writeable = probs.flags.writeable = False
    return codes, probs


@lru_cache(maxsize=eng.NUM_DICE + 1)
def roll_distribution(num_dice: int) -> dict[tuple[int, ...], float]:
    """The engine's chance model of rolling ``num_dice`` dice, by multiset: {sorted faces: probability}, in
    sorted order (:func:`roll_outcomes` with the other dice kept, the probabilities of equal multisets summed)."""
    if not 0 <= num_dice <= eng.NUM_DICE:
        raise ValueError(f"num_dice must be 0..{eng.NUM_DICE}, got {num_dice}")
    kept = eng.NUM_DICE - num_dice  # dice 0..kept-1 stay; which ones does not matter to a multiset
    codes, probs = roll_outcomes((1 << kept) - 1)
    faces = (codes[:, None] // _DIGIT[kept:]) % eng.NUM_FACES
    parts: dict[tuple[int, ...], list[float]] = {}
    for row, p in zip(faces.tolist(), probs.tolist(), strict=True):
        parts.setdefault(tuple(sorted(row)), []).append(p)
    return {r: math.fsum(parts[r]) for r in sorted(parts)}


@dataclass(frozen=True)
class _Tables:
    """Multiset index structures (independent of values), built once per variant."""

    sizes: np.ndarray  # (M,) size of each multiset
    satisfied: np.ndarray  # (126, 9) 0/1: prizes each four-dice multiset satisfies
    full_index: np.ndarray  # (126,) multiset id of each full multiset, in ``satisfied`` row order
    levels: tuple  # per k = 3..0: (F ids (nF,), D rows (nP,), G ids (nP, 15), prob matrix (nP, nF))
    sub: np.ndarray  # (16, 1296): multiset id of the dice at the positions of mask, per ordered code
    empty: int  # id of the empty multiset


@lru_cache(maxsize=2)
def _tables(variant: int) -> _Tables:
    faces = eng.NUM_FACES
    multisets = [c for n in range(eng.NUM_DICE + 1) for c in itertools.combinations_with_replacement(range(faces), n)]
    index = {m: i for i, m in enumerate(multisets)}
    sizes = np.array([len(m) for m in multisets], dtype=np.int64)
    fulls = [m for m in multisets if len(m) == eng.NUM_DICE]
    full_row = {m: r for r, m in enumerate(fulls)}
    satisfied = np.zeros((len(fulls), eng.NUM_PRIZES), dtype=np.float64)
    for r, m in enumerate(fulls):
        bits = int(eng.PRIZE_TABLE[variant, eng.dice_code(np.array(m))])
        satisfied[r] = [(bits >> p) & 1 for p in range(eng.NUM_PRIZES)]

    def sub_multisets(r: tuple[int, ...]) -> set[tuple[int, ...]]:
        return {tuple(sorted(c)) for n in range(1, len(r) + 1) for c in itertools.combinations(r, n)}

    levels = []
    for k in range(eng.NUM_DICE - 1, -1, -1):
        f_list = [m for m in multisets if len(m) == k]
        n_free = eng.NUM_DICE - k
        d_rows, g_ids, probs, f_cols = [], [], [], []
        rolls = roll_distribution(n_free)  # the engine's chance: each multiset R of the free dice, P(R)
        for fi, f in enumerate(f_list):
            for r, p in rolls.items():
                d = tuple(sorted(f + r))
                gs = [index[tuple(sorted(f + s))] for s in sub_multisets(r)]  # S = R gives D itself: W = 0
                gs += [index[d]] * (eng.ALL_FROZEN - len(gs))
                d_rows.append(full_row[d])
                g_ids.append(gs)
                probs.append(p)
                f_cols.append(fi)
        prob = np.zeros((len(d_rows), len(f_list)))
        prob[np.arange(len(d_rows)), f_cols] = probs
        levels.append(
            (
                np.array([index[f] for f in f_list], dtype=np.int64),
                np.array(d_rows, dtype=np.int64),
                np.array(g_ids, dtype=np.int64),
                prob,
            )
        )
    sub = np.zeros((eng.ALL_FROZEN + 1, NUM_CODES), dtype=np.int64)
    for code in range(NUM_CODES):
        dice = [(code // int(_DIGIT[i])) % faces for i in range(eng.NUM_DICE)]
        for mask in range(eng.ALL_FROZEN + 1):
            sub[mask, code] = index[tuple(sorted(dice[i] for i in range(eng.NUM_DICE) if (mask >> i) & 1))]
    return _Tables(
        sizes=sizes,
        satisfied=satisfied,
        full_index=np.array([index[m] for m in fulls], dtype=np.int64),
        levels=tuple(levels),
        sub=sub,
        empty=index[()],
    )


def _check_values(values: np.ndarray | list[float]) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64)
    if v.ndim not in (1, 2) or v.shape[-1] != eng.NUM_PRIZES:
        raise ValueError(f"prize values must have shape (9,) or (N, 9), got {v.shape}")
    if not np.all(np.isfinite(v)) or np.any(v < 0):
        raise ValueError(f"prize values must be finite and non-negative (0 = not collectable), got {v}")
    return v


@dataclass(frozen=True)
class TurnSolution:
    """Optimal (or lookahead, see :func:`lookahead_turn`) play of one turn for one value vector.

    ``continuation[G]`` is the expected value of having frozen the dice multiset G (re-rolling the rest
    and playing on); full multisets have 0 (freezing every die ends the turn empty).
    """

    values: np.ndarray  # (9,)
    variant: int
    continuation: np.ndarray  # (210,)

    @property
    def value(self) -> float:
        """Expected value of the turn before the first roll."""
        return float(self.continuation[_tables(self.variant).empty])

    @property
    def success_probability(self) -> float:
        """For 0/1 values: the probability of collecting a prize worth 1."""
        if not np.all((self.values == 0) | (self.values == 1)):
            raise ValueError(f"success_probability needs 0/1 prize values, got {self.values}")
        return self.value

    def q_values(
        self, dice: np.ndarray, frozen_mask: np.ndarray | int, allowed: np.ndarray | None = None
    ) -> np.ndarray:
        """Action values of all 24 actions (-inf where illegal), batched: dice (B,4) -> (B,24) or (4,) -> (24,).

        ``allowed`` (B,24) or (24,): the engine's action mask; without it, legality comes from
        ``PRIZE_TABLE`` (every satisfied prize collectable) and the frozen mask.
        """
        dice = np.asarray(dice, dtype=np.int64)
        single = dice.ndim == 1
        dice = np.atleast_2d(dice)
        frozen = np.broadcast_to(np.asarray(frozen_mask, dtype=np.int64), dice.shape[:1])
        codes = dice_codes(dice)
        q = np.full((dice.shape[0], eng.NUM_ACTIONS), -np.inf)
        bits = eng.PRIZE_TABLE[self.variant, codes][:, None] >> np.arange(eng.NUM_PRIZES)
        q[:, : eng.NUM_PRIZES] = np.where(bits & 1 == 1, self.values, -np.inf)
        new_frozen = frozen[:, None] | _FREEZE_SUBSETS
        cont = self.continuation[_tables(self.variant).sub[new_frozen, codes[:, None]]]
        q[:, eng.FREEZE_OFFSET + 1 :] = np.where((frozen[:, None] & _FREEZE_SUBSETS) == 0, cont, -np.inf)
        if allowed is not None:
            allowed = np.atleast_2d(np.asarray(allowed))
            q[:, : eng.NUM_PRIZES] = np.where(allowed[:, : eng.NUM_PRIZES] != 0, self.values, -np.inf)
            q = np.where(allowed != 0, q, -np.inf)
        return q[0] if single else q

    def best_action(
        self,
        dice: np.ndarray,
        frozen_mask: np.ndarray | int,
        allowed: np.ndarray | None = None,
        prefer_fewer_frozen: bool = False,
    ) -> int | np.ndarray:
        """Engine action id(s) of the best move.

        Ties (within 1e-12): collecting first; then the lowest id, or with ``prefer_fewer_frozen`` the
        freeze of the fewest dice (keeps more dice rolling for later).
        """
        q = self.q_values(dice, frozen_mask, allowed)
        if np.any(np.all(np.isneginf(q), axis=-1)):
            raise ValueError("best_action: no legal action (empty mask, or every die already frozen)")
        top = q.max(axis=-1, keepdims=True)
        near = q >= top - 1e-12 * np.maximum(1.0, np.abs(top))
        rank = _RANK_FEWER if prefer_fewer_frozen else _RANK_ID
        a = np.argmin(np.where(near, rank, np.iinfo(np.int64).max), axis=-1)
        return int(a) if np.ndim(a) == 0 else a.astype(np.int64)


_RANK_ID = np.arange(eng.NUM_ACTIONS, dtype=np.int64)
_RANK_FEWER = np.concatenate(
    [
        np.arange(eng.NUM_PRIZES),
        eng.NUM_ACTIONS * np.array([bin(m).count("1") for m in _FREEZE_SUBSETS]) + _FREEZE_SUBSETS,
    ]
).astype(np.int64)


def _best(values: np.ndarray, t: _Tables) -> np.ndarray:
    """(N, 126): the highest value each four-dice multiset can collect (0 if it satisfies nothing)."""
    return (values[:, None, :] * t.satisfied[None]).max(axis=-1)


def solve_turns(values: np.ndarray, four_of_a_kind_is_two_pairs: bool = False) -> np.ndarray:
    """Continuation tables (N, 210) of the optimal turn for N value vectors at once."""
    v = np.atleast_2d(_check_values(values))
    t = _tables(int(four_of_a_kind_is_two_pairs))
    best = _best(v, t)
    w = np.zeros((v.shape[0], t.sizes.shape[0]))
    for f_ids, d_rows, g_ids, prob in t.levels:
        stay = w[:, g_ids].max(axis=-1)  # (N, nP): best freeze (re-rolling what is left)
        w[:, f_ids] = np.maximum(best[:, d_rows], stay) @ prob
    return w


def solve_turn(values: np.ndarray | list[float], four_of_a_kind_is_two_pairs: bool = False) -> TurnSolution:
    """The optimal play of one turn for the prize values ``values`` (9,)."""
    v = _check_values(values)
    if v.ndim != 1:
        raise ValueError(f"solve_turn takes one value vector (9,); use solve_turns for a batch, got {v.shape}")
    w = solve_turns(v, four_of_a_kind_is_two_pairs)[0]
    return TurnSolution(values=v.copy(), variant=int(four_of_a_kind_is_two_pairs), continuation=w)


def lookahead_turn(
    values: np.ndarray | list[float], horizon: int = 1, four_of_a_kind_is_two_pairs: bool = False
) -> TurnSolution:
    """Depth-limited play: a freeze (of any subset) is worth what ``horizon`` more rolls would bring, then stop.

    ``horizon`` = 1 prices a freeze at the expected best collectable value after ONE re-roll and weighs it
    against collecting now (``heuristics.LookaheadAgent``; not the issue's myopic rule, see
    ``heuristics.MyopicAgent``); from
    ``horizon`` = 3 on, every decision is optimal (a turn has at most three re-rolls), and from 4 on
    ``.value`` (which counts the first roll too) is the optimal turn value.
    """
    v = _check_values(values)
    if v.ndim != 1 or not isinstance(horizon, int | np.integer) or horizon < 1:
        raise ValueError(f"lookahead_turn takes one value vector (9,) and horizon >= 1, got {v.shape}, {horizon}")
    t = _tables(int(four_of_a_kind_is_two_pairs))
    best = _best(v[None], t)[0]
    w = np.zeros(t.sizes.shape[0])
    for _ in range(min(int(horizon), eng.NUM_DICE)):
        w_next = np.zeros_like(w)
        for f_ids, d_rows, g_ids, prob in t.levels:
            w_next[f_ids] = np.maximum(best[d_rows], w[g_ids].max(axis=-1)) @ prob
        w = w_next
    return TurnSolution(values=v.copy(), variant=int(four_of_a_kind_is_two_pairs), continuation=w)


def reroll_expectations(values: np.ndarray | list[float], four_of_a_kind_is_two_pairs: bool = False) -> np.ndarray:
    """(N, 210) for N value vectors: the expected best collectable value once the dice outside each kept
    multiset G (index from :func:`kept_multisets`) are re-rolled once; 0 for G = all four dice (turn lost)."""
    v = np.atleast_2d(_check_values(values))
    t = _tables(int(four_of_a_kind_is_two_pairs))
    best = _best(v, t)
    out = np.zeros((v.shape[0], t.sizes.shape[0]))
    for f_ids, d_rows, _, prob in t.levels:
        out[:, f_ids] = best[:, d_rows] @ prob
    return out


def kept_multisets(kept_masks: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Multiset id (column of :func:`reroll_expectations`) of the dice at the positions set in ``kept_masks``
    (bit i = die i) of the ordered dice ``codes`` (``engine.dice_code``); broadcasts."""
    return _tables(0).sub[np.asarray(kept_masks, dtype=np.int64), np.asarray(codes, dtype=np.int64)]


def success_probability(prize_id: int, four_of_a_kind_is_two_pairs: bool = False) -> float:
    """Exact optimal probability of winning prize ``prize_id`` in one turn."""
    if not 0 <= prize_id < eng.NUM_PRIZES:
        raise ValueError(f"prize_id must be 0..{eng.NUM_PRIZES - 1}, got {prize_id}")
    return solve_turn(np.eye(eng.NUM_PRIZES)[prize_id], four_of_a_kind_is_two_pairs).value


def any_prize_probability(four_of_a_kind_is_two_pairs: bool = False) -> float:
    """Exact optimal probability of winning some prize in one turn."""
    return solve_turn(np.ones(eng.NUM_PRIZES), four_of_a_kind_is_two_pairs).value


# --- Exact policy evaluation -------------------------------------------------------------------


@lru_cache(maxsize=1)
def _frozen_keys() -> tuple[np.ndarray, np.ndarray]:
    """key[mask, code]: the code with the unfrozen dice zeroed; reroll_p[mask, code]: the engine's probability
    (:func:`roll_outcomes`) that re-rolling the dice outside ``mask`` shows the free dice of ``code``."""
    codes = np.arange(NUM_CODES)
    digits = (codes[:, None] // _DIGIT) % eng.NUM_FACES  # (1296, 4)
    masks = np.arange(eng.ALL_FROZEN + 1)
    bits = (masks[:, None] >> np.arange(eng.NUM_DICE)) & 1  # (16, 4)
    key = (digits[None] * bits[:, None, :]) @ _DIGIT  # (16, 1296)
    reroll_p = np.zeros((eng.ALL_FROZEN + 1, NUM_CODES))
    for mask in range(eng.ALL_FROZEN + 1):
        rolled, probs = roll_outcomes(mask)
        by_free_dice = np.bincount(rolled, weights=probs, minlength=NUM_CODES)
        reroll_p[mask] = by_free_dice[codes - key[mask]]
    return key, reroll_p


def _policy_fn(policy) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    if hasattr(policy, "act_batch"):
        return policy.act_batch
    if callable(policy):
        return policy
    raise TypeError(f"policy must be an dicearena.agents.base.Agent "
        f"or a callable(obs, masks) -> actions, got {type(policy)}")


def turn_decision_states(dice: np.ndarray, frozen: np.ndarray, roll: int, values: np.ndarray,
                         variant: int) -> np.ndarray:  # fmt: skip
    """The turn task's engine states (k, S) at the decisions ``dice`` (k, 4) with ``frozen`` masks (k,) after roll
    ``roll``, prize ``values`` fixed: what a state-reading policy is handed (its observation scale is the config's
    own; a planner reads the values)."""
    from dicearena.envs.easy_come_easy_go import turn_engine as T
    from dicearena.envs.easy_come_easy_go.turn_config import TurnTaskConfig

    config = TurnTaskConfig(prize_values=[float(x) for x in values], four_of_a_kind_is_two_pairs=bool(variant))
    base = np.zeros(T.STATE_SIZE, dtype=np.int32)
    T.init_state(base, np.ascontiguousarray(T.header(config), dtype=np.int32))
    states = np.tile(base, (len(dice), 1))
    states[:, eng.DICE : eng.DICE + eng.NUM_DICE] = dice
    states[:, eng.FROZEN] = frozen
    states[:, eng.ROLLS] = roll
    states[:, eng.PHASE] = eng.PHASE_DECIDE
    return states


def evaluate_turn_policy_exact(
    policy,
    values: np.ndarray | list[float],
    value_scale: float = 1.0,
    four_of_a_kind_is_two_pairs: bool = False,
) -> float | np.ndarray:
    """Exact expected reward of a deterministic batched policy on the turn task.

    ``values`` (9,) -> float, or (N, 9) -> (N,) evaluated one vector after another. The policy sees
    turn-task observations with values / ``value_scale`` (use the task's value_scale) and engine masks,
    and is called once per roll (at most 4 calls per vector) on every reachable decision state.
    """
    v = _check_values(values)
    if v.ndim == 2:
        return np.array(
            [evaluate_turn_policy_exact(policy, row, value_scale, four_of_a_kind_is_two_pairs) for row in v]
        )
    if not value_scale > 0:
        raise ValueError(f"value_scale must be > 0, got {value_scale}")
    act = _policy_fn(policy)
    variant = int(four_of_a_kind_is_two_pairs)
    key, reroll_p = _frozen_keys()
    scaled = (v / value_scale).astype(np.float32)
    mass = np.zeros((eng.ALL_FROZEN + 1) * NUM_CODES)
    mass[:NUM_CODES] = reroll_p[0]  # first roll: frozen mask 0, every ordered outcome
    total = 0.0
    for roll in range(1, eng.NUM_DICE + 1):
        idx = np.flatnonzero(mass)
        if idx.size == 0:
            break
        frozen, codes = np.divmod(idx, NUM_CODES)
        obs = np.empty((idx.size, TURN_OBS_SIZE), dtype=np.float32)
        masks = np.empty((idx.size, eng.NUM_ACTIONS), dtype=np.int8)
        dice = codes[:, None] // _PLACE % eng.NUM_FACES
        rolls = np.full(idx.size, roll, dtype=np.int64)
        encode_turn_positions(dice, frozen, rolls, np.tile(scaled, (idx.size, 1)), variant, obs, masks)
        if isinstance(policy, StatePlanner):  # plays only from engine states (the search agent): hand it those
            states = turn_decision_states(dice, frozen, roll, v, variant)
            actions = policy.act_states(states, masks, np.zeros(idx.size, dtype=np.int64))
        else:
            actions = act(obs, masks)
        actions = np.asarray(actions, dtype=np.int64).reshape(-1)
        if actions.shape[0] != idx.size:
            raise ValueError(f"policy returned {actions.shape[0]} actions for a batch of {idx.size}")
        bad = (actions < 0) | (actions >= eng.NUM_ACTIONS)
        bad |= masks[np.arange(idx.size), np.clip(actions, 0, eng.NUM_ACTIONS - 1)] == 0
        if bad.any():
            b = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"policy chose illegal action {actions[b]} at roll {roll} (dice code {codes[b]}, frozen mask "
                f"{frozen[b]}); legal: {np.flatnonzero(masks[b]).tolist()}"
            )
        p = mass[idx]
        collect = actions < eng.NUM_PRIZES
        total += float(p[collect] @ v[actions[collect]])
        new_frozen = np.where(collect, 0, frozen | (actions - eng.FREEZE_OFFSET))
        go_on = ~collect & (new_frozen != eng.ALL_FROZEN)
        # Mass flows to the states that agree on the frozen dice; the free dice are re-rolled (engine chance).
        slots = new_frozen[go_on] * NUM_CODES + key[new_frozen[go_on], codes[go_on]]
        agg = np.bincount(slots, weights=p[go_on], minlength=mass.size).astype(np.float64)
        mass = agg[np.repeat(np.arange(eng.ALL_FROZEN + 1), NUM_CODES) * NUM_CODES + key.reshape(-1)]
        mass *= reroll_p.reshape(-1)
        mass[eng.ALL_FROZEN * NUM_CODES :] = 0.0
    return total
