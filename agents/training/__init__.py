"""Training: tasks, self-play, SB3 and RLlib runs, checkpoints and the value-table trainers.

Layer: training -> evaluation -> policies (dicearena.agents) -> dicearena.envs; nothing below imports this.
"""
