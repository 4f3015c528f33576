"""Ea$y Money agents: the rule-per-phase heuristic, the exact Greed agent (full game and the Greed stop task) and
the Greed solver (``greed_solver``)."""

from dicearena.agents.registry import register_agents

from .greed_agent import GreedExactAgent, GreedTaskExactAgent, GreedTaskThresholdAgent
from .heuristics import EasyMoneyHeuristicAgent

__all__ = ["EasyMoneyHeuristicAgent", "GreedExactAgent", "GreedTaskExactAgent", "GreedTaskThresholdAgent"]

register_agents("easy_money", {"em_heuristic": EasyMoneyHeuristicAgent, "em_greed_exact": GreedExactAgent}, prefix="em")
