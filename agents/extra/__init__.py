"""Extra! agents: greedy, planner and one-throw expectimax, planning on engine states (``act_states``)."""

from dicearena.agents.registry import register_agents

from .at_table import table_agent
from .heuristics import ExpectimaxAgent, GreedyAgent, PlannerAgent

__all__ = ["ExpectimaxAgent", "GreedyAgent", "PlannerAgent"]

register_agents("extra", {"extra_greedy": GreedyAgent, "extra_planner": PlannerAgent,
                          "extra_expectimax": ExpectimaxAgent},
                table_agent=table_agent)  # fmt: skip
