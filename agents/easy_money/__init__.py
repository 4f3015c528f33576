"""Ea$y Money agents: the rule-per-phase heuristic, the exact Greed agent (full game and the Greed stop task) and
the Greed solver (``greed_solver``)."""

from .greed_agent import GreedExactAgent, GreedTaskExactAgent, GreedTaskThresholdAgent
from .heuristics import EasyMoneyHeuristicAgent

__all__ = ["EasyMoneyHeuristicAgent", "GreedExactAgent", "GreedTaskExactAgent", "GreedTaskThresholdAgent"]
