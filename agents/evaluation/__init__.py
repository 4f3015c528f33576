"""Evaluation: the play loop, benchmarks, tournaments, statistics, recipes and shipping.

Layer: training -> evaluation -> policies (dicearena.agents) -> dicearena.envs; policies and envs never import this.
"""
