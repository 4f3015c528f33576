"""Easy Come, Easy Go agents: the exact turn solver and the agents built on it."""

from dicearena.agents.registry import register_agents

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
from .in_game import table_agent

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

register_agents("easy_come_easy_go", {"eceg_myopic": MyopicAgent, "eceg_exact_turn": ExactTurnAgent,
                                        "eceg_heuristic": FullGameHeuristicAgent},
                prefix="eceg", table_agent=table_agent)  # fmt: skip
