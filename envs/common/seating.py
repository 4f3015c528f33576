"""Who sits where: the opponents of a learning seat, checked once for every seat-vs-opponents env, and the
seating protocol a self-play pool follows to change them every episode."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

__all__ = ["FixedSeating", "Policy", "Seating", "choose", "seat_opponents"]


class Policy(Protocol):
    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray: ...


def choose(policy: Any, observations: np.ndarray, masks: np.ndarray, states: np.ndarray, seats: Any) -> np.ndarray:
    """A policy's actions for k games: a planning agent (``reads_state = True``) reads the engine states (k, S,
    read-only) and the seat (k,) it decides for in each, every other policy the observations (k, D); both get
    the legal masks (k, A); a policy reading both (``reads_both = True``, e.g.
    ``dicearena.agents.advice.AdvisedAgent``) gets
    ``act_observed(observations, masks, states, seats)``."""
    if getattr(policy, "reads_both", False):
        return policy.act_observed(observations, masks, states, np.broadcast_to(np.asarray(seats, dtype=np.int64),
                                                                                len(masks)))  # fmt: skip
    if getattr(policy, "reads_state", False):
        return policy.act_states(states, masks, np.broadcast_to(np.asarray(seats, dtype=np.int64), len(masks)))
    return policy.act_batch(observations, masks)


def seat_opponents(opponents: Any, num_players: int, learner_seat: int) -> dict[int, Policy]:
    """{seat: policy} for every seat but the learner's: one policy for all, or one per other seat in seat order."""
    if isinstance(learner_seat, bool) or not isinstance(learner_seat, int | np.integer):
        raise TypeError(f"learner_seat must be an int seat 0..{num_players - 1}, got {type(learner_seat).__name__} "
                        f"{learner_seat!r}")  # fmt: skip
    if not 0 <= learner_seat < num_players:
        raise ValueError(f"learner_seat must be a seat 0..{num_players - 1}, got {learner_seat!r}")
    seats = [s for s in range(num_players) if s != learner_seat]
    if not seats:  # a one-player game (solitaire): nobody else to seat
        if opponents not in (None, [], ()):
            raise ValueError("num_players must be 2 or more against opponents (a one-player game takes none)")
        return {}
    if opponents is None:
        raise ValueError(
            "opponents are required: a policy with act_batch(observations, masks) (e.g. agents.make_agent('random')) "
            f"or a list of {len(seats)}, one per other seat"
        )
    if isinstance(opponents, str | bytes):
        raise TypeError(
            f"opponents must be policies with act_batch(observations, masks), not the name {opponents!r}: build one "
            f"with agents.make_agent({opponents!r})"
        )
    policies = list(opponents) if isinstance(opponents, Sequence) else [opponents]
    if len(policies) == 1:
        policies *= len(seats)
    if len(policies) != len(seats):
        raise ValueError(
            f"opponents: {len(policies)} given for {len(seats)} other seats {seats}; give 1 or {len(seats)}"
        )
    for policy in policies:
        if not callable(getattr(policy, "act_batch", None)):
            raise TypeError(f"opponent {policy!r} has no act_batch(observations, masks) method")
    return dict(zip(seats, policies, strict=True))


class Seating(Protocol):
    """Who sits where in each new episode: ``policies`` (indexed by ``assignment``) and ``seat``, which writes the
    learner's seat and every other seat's policy for the games starting a new episode."""

    policies: Sequence[Policy]

    def seat(self, games: np.ndarray, seats: np.ndarray, assignment: np.ndarray) -> None:
        """For each game index in ``games``: ``seats[g]`` = the learner's seat, ``assignment[g, s]`` = the index in
        ``policies`` of the policy at seat ``s`` (-1 at the learner's seat)."""


class FixedSeating:
    """The learner at one seat, the same opponents every episode (what ``SeatCore(opponents=...)`` builds)."""

    def __init__(self, opponents: Any, num_players: int, learner_seat: int) -> None:
        by_seat = seat_opponents(opponents, num_players, learner_seat)
        self.policies: list[Policy] = list({id(p): p for p in by_seat.values()}.values())
        self.learner_seat = int(learner_seat)
        self._row = np.full(num_players, -1, dtype=np.int64)
        for seat, policy in by_seat.items():
            self._row[seat] = next(i for i, p in enumerate(self.policies) if p is policy)

    def seat(self, games: np.ndarray, seats: np.ndarray, assignment: np.ndarray) -> None:
        seats[games] = self.learner_seat
        assignment[games] = self._row
