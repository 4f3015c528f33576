"""Extra! agents: greedy, planner and one-throw expectimax, planning on engine states (``act_states``)."""

from .heuristics import ExpectimaxAgent, GreedyAgent, PlannerAgent

__all__ = ["ExpectimaxAgent", "GreedyAgent", "PlannerAgent"]
