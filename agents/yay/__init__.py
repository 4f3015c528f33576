"""Yay! agents: the greedy baseline and the engine-lookahead baseline, batched over observations and masks."""

from .heuristics import BEAT, YayGreedyAgent, num_players_of
from .lookahead import YayLookaheadAgent

__all__ = ["BEAT", "YayGreedyAgent", "YayLookaheadAgent", "num_players_of"]
