"""Easy Come, Easy Go agents: the exact turn solver and the agents built on it."""

from .exact import (
    TurnSolution,
    any_prize_probability,
    evaluate_turn_policy_exact,
    lookahead_turn,
    solve_turn,
    solve_turns,
    success_probability,
)
from .heuristics import ExactTurnAgent, FullGameHeuristicAgent, MyopicAgent

__all__ = [
    "TurnSolution",
    "solve_turn",
    "solve_turns",
    "lookahead_turn",
    "success_probability",
    "any_prize_probability",
    "evaluate_turn_policy_exact",
    "ExactTurnAgent",
    "MyopicAgent",
    "FullGameHeuristicAgent",
]
