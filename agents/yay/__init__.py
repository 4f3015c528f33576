"""Yay! agents: the greedy baseline, batched over observations and masks."""

from .heuristics import BEAT, YayGreedyAgent, num_players_of

__all__ = ["BEAT", "YayGreedyAgent", "num_players_of"]
