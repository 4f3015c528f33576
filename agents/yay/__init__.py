"""Yay! agents: the greedy baseline and the engine-lookahead baseline, planning on batched engine states."""

from dicearena.agents.registry import register_agents

from .heuristics import BEAT, YayGreedyAgent
from .lookahead import YayLookaheadAgent

__all__ = ["BEAT", "YayGreedyAgent", "YayLookaheadAgent"]

register_agents("yay", {"yay_greedy": YayGreedyAgent, "yay_lookahead": YayLookaheadAgent})
