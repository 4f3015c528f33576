"""Policies for Dice Arena games. Every agent follows :class:`agents.base.Agent`."""

from agents.base import Agent
from agents.random_agent import RandomAgent

__all__ = ["Agent", "RandomAgent"]
