"""Yay! agents: the greedy baseline and the engine-lookahead baseline, planning on batched engine states."""

from .heuristics import BEAT, YayGreedyAgent
from .lookahead import YayLookaheadAgent

__all__ = ["BEAT", "YayGreedyAgent", "YayLookaheadAgent"]
