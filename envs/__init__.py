"""Dice Arena environments."""
