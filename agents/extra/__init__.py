"""Extra! agents: greedy, planner and one-throw expectimax, all batched over observations and masks."""

from .heuristics import (
    ExpectimaxAgent,
    GreedyAgent,
    PlannerAgent,
    SheetView,
    decode_sheet,
    num_players_of,
)

__all__ = ["ExpectimaxAgent", "GreedyAgent", "PlannerAgent", "SheetView", "decode_sheet", "num_players_of"]
